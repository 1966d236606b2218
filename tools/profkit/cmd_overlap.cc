// `profkit overlap --sample BASE TEST`: how similar two sample profiles are, the report of
// `llvm-profdata-22 overlap --sample` (report/sample_overlap).
#include <memory>
#include <string>

#include "io/output_file.h"
#include "io/sample_merge.h"
#include "report/sample_overlap.h"
#include "tools/profkit/command.h"
#include "tools/profkit/memprof_cli.h"

namespace profkit::cli {
namespace {

struct OverlapCommand {
  std::string base, test, output;
  bool sample = false, instr = false;
  report::SampleOverlapOptions options;
};

int run_overlap(OverlapCommand& cmd) {
  if (!cmd.sample) {
    report_error("overlap: only sample profiles are compared so far: add --sample");
    return 1;
  }
  if (!outputs_are_safe({cmd.output}, {cmd.base, cmd.test})) return 1;
  auto base = read_sample_file(cmd.base);
  if (!base) {
    report_error(cmd.base, base.error());
    return 1;
  }
  auto test = read_sample_file(cmd.test);
  if (!test) {
    report_error(cmd.test, test.error());
    return 1;
  }
  cmd.options.base_name = cmd.base;
  cmd.options.test_name = cmd.test;
  auto text = report::overlap_sample(*base, *test, cmd.options);
  if (!text) {
    report_error("overlap: " + text.error().message);
    return 1;
  }
  return write_output(cmd.output, *text);
}

void add_overlap_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<OverlapCommand>();
  CLI::App* sub = app.add_subcommand(
      "overlap", "How similar two sample profiles are (llvm-profdata overlap --sample)");
  sub->add_option("BASE", cmd->base, "The base profile")->required();
  sub->add_option("TEST", cmd->test, "The profile compared with it")->required();
  sub->add_flag("--sample", cmd->sample, "Sample profiles (text, binary or extbinary)");
  sub->add_flag("--instr", cmd->instr, "IR-PGO profiles (not compared yet)");
  sub->add_option("--function", cmd->options.function,
                  "List matched functions whose base context contains this string");
  sub->add_option("--value-cutoff", cmd->options.value_cutoff,
                  "List functions whose largest sample count in TEST is at least this");
  sub->add_option("--similarity-cutoff", cmd->options.similarity_cutoff,
                  "List matched functions less similar than this (parts per million)");
  sub->add_option("-o,--output", cmd->output, "Write here (default: standard output)");
  sub->callback([cmd, &exit_status] { exit_status = run_overlap(*cmd); });
}

CommandRegistration reg(35, &add_overlap_command);

}  // namespace
}  // namespace profkit::cli
