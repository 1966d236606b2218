// `profkit order [--num-test-traces=N] [-o FILE] PROFILE`: a function order from the
// profile's temporal traces, the text `llvm-profdata-22 order` prints (report/instrprof_order).
#include <memory>
#include <string>

#include "format/instrprof/reader.h"
#include "io/mapped_file.h"
#include "report/instrprof_order.h"
#include "tools/profkit/command.h"

namespace profkit::cli {
namespace {

struct OrderCommand {
  std::string input;
  std::string output;  // empty or "-": standard output
  report::OrderOptions options;
};

int run_order(const OrderCommand& cmd) {
  if (!outputs_are_safe({cmd.output}, {cmd.input})) return 1;
  auto file = MappedFile::open(cmd.input, MappedFile::Access::whole);
  if (!file) {
    report_error(cmd.input, file.error());
    return 1;
  }
  if (file->bytes().empty()) {  // llvm-profdata: "empty raw profile file", exit 1
    report_error(cmd.input, Error{ErrorCode::truncated, 0,
                                  "empty profile file: expected a raw, indexed or text IR-PGO "
                                  "profile"});
    return 1;
  }
  auto profile = instrprof::read_profile(file->bytes());
  if (!profile) {
    report_error(cmd.input, profile.error());
    return 1;
  }
  auto text = report::order_instrprof(*profile, cmd.options);
  if (!text) {
    report_error(cmd.input, text.error());
    return 1;
  }
  return write_output(cmd.output, *text);
}

void add_order_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<OrderCommand>();
  CLI::App* sub = app.add_subcommand(
      "order",
      "A function order from an IR-PGO profile's temporal traces, fewer page faults for "
      "them (llvm-profdata order)");
  sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sub->add_option("--num-test-traces", cmd->options.num_test_traces,
                  "Keep the last N traces out of the order and print the area under their "
                  "page-fault curve (32 functions a page) instead");
  sub->add_option("-o,--output", cmd->output, "Output file (default: standard output)");
  sub->add_option("PROFILE", cmd->input,
                  "Profile with temporal traces (.profdata, .profraw or text)")
      ->required();
  sub->footer(
      "Prints '# Ordered N functions', LLVM's Mach-O warning, then one function a line, in "
      "the order balanced partitioning gives (docs/irpgo-order.md). A local function "
      "'FILE;NAME' prints '# FILE' before NAME.\n");
  sub->callback([cmd, &exit_status] { exit_status = run_order(*cmd); });
}

CommandRegistration reg(32, &add_order_command);

}  // namespace
}  // namespace profkit::cli
