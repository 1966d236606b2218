// `profkit overlap BASE TEST`: how much two IR-PGO profiles agree (report/instrprof_overlap),
// or with --sample how similar two sample profiles are (report/sample_overlap): the reports
// of `llvm-profdata-22 overlap [--sample]`, or the IR-PGO figures as JSON.
#include <memory>
#include <string>

#include "io/output_file.h"
#include "io/profile_merge.h"
#include "io/sample_merge.h"
#include "report/instrprof_overlap.h"
#include "report/sample_overlap.h"
#include "tools/profkit/command.h"

namespace profkit::cli {
namespace {

struct OverlapCommand {
  std::string base, test, output;
  bool sample = false, instr = false, cs = false, json = false;
  std::string function;
  uint64_t value_cutoff = ~uint64_t{0};
  uint64_t similarity_cutoff = 0;
};

int run_overlap_instr(const OverlapCommand& cmd) {
  auto base = read_instrprof_file(cmd.base);
  if (!base) {
    report_error(cmd.base, base.error());
    return 1;
  }
  auto test = read_instrprof_file(cmd.test);
  if (!test) {
    report_error(cmd.test, test.error());
    return 1;
  }
  report::InstrOverlapOptions options;
  options.base_name = cmd.base;
  options.test_name = cmd.test;
  options.function = cmd.function;
  options.value_cutoff = cmd.value_cutoff;
  options.cs = cmd.cs;
  auto overlap = report::overlap_instr(*base, *test, options);
  if (!overlap) {
    report_error(cmd.base, overlap.error());
    return 1;
  }
  return write_output(cmd.output, cmd.json ? report::render_overlap_json(*overlap, options)
                                           : report::render_overlap_text(*overlap, options));
}

int run_overlap(OverlapCommand& cmd) {
  if (cmd.sample && cmd.instr) {
    report_error("overlap: --sample and --instr exclude each other");
    return 1;
  }
  if (cmd.json && cmd.sample) {
    report_error("overlap: --json is for IR-PGO profiles; sample profiles have the text report");
    return 1;
  }
  if (!outputs_are_safe({cmd.output}, {cmd.base, cmd.test})) return 1;
  if (!cmd.sample) return run_overlap_instr(cmd);
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
  report::SampleOverlapOptions options;
  options.base_name = cmd.base;
  options.test_name = cmd.test;
  options.function = cmd.function;
  options.value_cutoff = cmd.value_cutoff;
  options.similarity_cutoff = cmd.similarity_cutoff;
  auto text = report::overlap_sample(*base, *test, options);
  if (!text) {
    report_error("overlap: " + text.error().message);
    return 1;
  }
  return write_output(cmd.output, *text);
}

void add_overlap_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<OverlapCommand>();
  CLI::App* sub = app.add_subcommand(
      "overlap",
      "How much two IR-PGO (or, with --sample, sample) profiles agree, as llvm-profdata overlap");
  sub->add_option("BASE", cmd->base, "The base profile")->required();
  sub->add_option("TEST", cmd->test, "The profile compared with it")->required();
  sub->add_flag("--instr", cmd->instr, "IR-PGO profiles: raw, indexed or text (the default)");
  sub->add_flag("--sample", cmd->sample, "Sample profiles (text, binary or extbinary)");
  sub->add_flag("--cs", cmd->cs,
                "IR-PGO: program totals over the context-sensitive records instead of the others");
  sub->add_option("--function", cmd->function,
                  "List the functions whose name (sample: base context) contains this string");
  sub->add_option("--value-cutoff", cmd->value_cutoff,
                  "List the functions whose largest count in TEST is at least this");
  sub->add_option("--similarity-cutoff", cmd->similarity_cutoff,
                  "Sample: list matched functions less similar than this (parts per million)");
  sub->add_flag("--json", cmd->json, "IR-PGO: the same figures as JSON (shares as fractions)");
  sub->add_option("-o,--output", cmd->output, "Write here (default: standard output)");
  sub->callback([cmd, &exit_status] { exit_status = run_overlap(*cmd); });
}

CommandRegistration reg(35, &add_overlap_command);

}  // namespace
}  // namespace profkit::cli
