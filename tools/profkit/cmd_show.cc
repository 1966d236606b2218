// `profkit show`: prints an IR-PGO profile (raw, indexed or text) exactly as
// `llvm-profdata-22 show` does for the same file and flags. Parses options into
// report::ShowOptions, reads the file, and writes the printer's text in 1 MiB pieces.
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/profile_merge.h"
#include "io/output_file.h"
#include "report/correlation_show.h"
#include "report/instrprof_show.h"
#include "symbolize/profile_correlation.h"
#include "tools/profkit/command.h"
#include "tools/profkit/memprof_cli.h"
#include "tools/profkit/sample_cli.h"

namespace profkit::cli {
namespace {

struct ShowCommand {
  report::ShowOptions options;
  std::string input;
  std::string output;        // empty: standard output
  std::string show_format = "text";
  bool json = false;
  bool instr = false;        // --instr: the only profile kind we show here (the default)
  bool memory = false;       // --memory: MemProf profiles (memprof_cli.h)
  MemProfCliOptions memprof;
  bool sample = false;       // --sample: sample profiles (sample_cli.h)
  bool hot_func_list = false;
  bool show_prof_sym_list = false;
  bool show_sec_info_only = false;
  std::string debug_info;    // --debug-info: show the probes of this binary's DWARF instead
  unsigned max_correlation_warnings = 5;  // --max-debug-info-correlation-warnings (0: all)
};


// `show --debug-info=BIN`: the profile file, if any, is not read (as in llvm-profdata).
int show_debug_info(const ShowCommand& cmd) {
  if (cmd.json || cmd.show_format == "json") {
    std::fputs("error: JSON output is not supported for debug info correlation\n", stderr);
    return 1;
  }
  const std::string& path = cmd.debug_info;
  instrprof::CorrelationWarnings warnings(
      cmd.max_correlation_warnings,
      [&](std::string_view message) { report_warning(path, message); });
  auto probes = symbolize::read_debug_info_probes(path, warnings);
  if (!probes) {
    report_error(path, probes.error());
    return 1;
  }
  const bool yaml = cmd.show_format == "yaml";
  if (probes->empty()) {
    report_error(path, Error{ErrorCode::malformed, kNoOffset,
                             std::string("unable to correlate profile: could not find any "
                                         "profile data metadata in ") +
                                 (yaml ? "debug info" : "correlated file")});
    return 1;
  }
  if (yaml) return write_output(cmd.output, report::debug_info_probes_yaml(*probes));
  std::vector<std::string> names;
  std::unordered_set<uint64_t> offsets;
  for (const symbolize::DebugInfoProbe& p : *probes) {
    names.push_back(p.function_name);
    offsets.insert(p.counter_offset);
  }
  return write_output(cmd.output,
                    report::debug_info_summary(names, offsets.size(), cmd.show_prof_sym_list));
}

// Accepts the single-dash spellings LLVM's option parser also takes (`-all-functions`,
// `-topn=3`), which CLI11 leaves as extras. Values must be attached with '='.
bool apply_single_dash(CLI::App& sub, const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  std::string_view body = std::string_view(arg).substr(1);
  std::string_view name = body;
  std::string_view value;
  bool has_value = false;
  if (size_t eq = body.find('='); eq != std::string_view::npos) {
    name = body.substr(0, eq);
    value = body.substr(eq + 1);
    has_value = true;
  }
  CLI::Option* opt = sub.get_option_no_throw("--" + std::string(name));
  if (opt == nullptr || opt->get_positional()) return false;
  if (opt->get_expected_max() == 0) {  // a flag: LLVM also takes -flag=true/false
    if (has_value && value != "true" && value != "1" && value != "false" && value != "0")
      return false;
    opt->add_result(has_value ? std::string(value) : std::string("true"));
  } else {
    if (!has_value) return false;
    opt->add_result(std::string(value));
  }
  opt->run_callback();
  return true;
}

int run_show(CLI::App& sub, ShowCommand& cmd) {
  std::vector<std::string> inputs = cmd.memprof.profiled_binaries;
  inputs.push_back(cmd.input);
  if (!outputs_are_safe({cmd.output}, inputs)) return 1;
  if (cmd.memory) return show_memprof(cmd.input, cmd.memprof, cmd.output);
  for (const std::string& extra : sub.remaining()) {
    if (!apply_single_dash(sub, extra)) {
      report_error("show: unknown option or extra argument '" + extra + "'");
      return 1;
    }
  }
  if (!cmd.debug_info.empty() && !cmd.sample) return show_debug_info(cmd);
  if (cmd.input.empty()) {
    report_error("show: no profile file given");
    return 1;
  }
  if (cmd.sample) {
    if (cmd.show_format == "yaml") {
      std::fputs("error: YAML output is not supported for sample profiles\n", stderr);
      return 1;
    }
    SampleShowCliOptions s;
    s.show.function = cmd.options.function;
    s.show.all_functions = cmd.options.all_functions;
    s.show.topn = cmd.options.topn;
    s.show.hot_func_list = cmd.hot_func_list;
    s.show.detailed_summary = cmd.options.detailed_summary;
    s.show.show_prof_sym_list = cmd.show_prof_sym_list;
    s.show.json = cmd.json || cmd.show_format == "json";
    s.show_sec_info_only = cmd.show_sec_info_only;
    return run_sample_show(cmd.input, cmd.output, s);
  }
  cmd.options.hot_func_list = cmd.hot_func_list;
  if (cmd.options.all_functions && !cmd.options.function.empty())
    std::fputs("warning: -function argument ignored: showing all functions\n", stderr);
  // LLVM 22 refuses structured output for instrumentation profiles before it reads the file.
  if (cmd.json || cmd.show_format == "json") {
    std::fputs("error: JSON output is not supported for instr profiles\n", stderr);
    return 1;
  }
  if (cmd.show_format == "yaml") {
    std::fputs("error: YAML output is not supported for instr profiles\n", stderr);
    return 1;
  }

  auto profile = read_instrprof_file(cmd.input);
  if (!profile) {
    report_error(cmd.input, profile.error());
    return 1;
  }
  if (is_stdout_path(cmd.output)) {
    const bool ok = report::write_show_instrprof(
        *profile, cmd.options, [](std::string_view piece) {
          return std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size();
        });
    if (!ok) {
      report_error("cannot write to standard output");
      return 1;
    }
    keep_until_exit(std::move(*profile));  // see keep_until_exit
    return 0;
  }
  auto out = OutputFile::create(cmd.output);
  if (!out) {
    report_error(cmd.output, out.error());
    return 1;
  }
  Error write_error;
  const bool ok = report::write_show_instrprof(
      *profile, cmd.options, [&](std::string_view piece) {
        auto w = out->write(piece);
        if (!w) write_error = w.error();
        return w.has_value();
      });
  if (!ok) {
    report_error(cmd.output, write_error);
    return 1;  // OutputFile removes the temporary file: no partial output
  }
  if (auto c = out->commit(); !c) {
    report_error(cmd.output, c.error());
    return 1;
  }
  keep_until_exit(std::move(*profile));  // see keep_until_exit
  return 0;
}

void add_show_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<ShowCommand>();
  CLI::App* sub = app.add_subcommand(
      "show", "Print an IR-PGO profile (raw, indexed or text) as llvm-profdata-22 show does");
  // LLVM lets a repeated option override the earlier one (lists accumulate instead).
  sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  report::ShowOptions& o = cmd->options;
  sub->add_flag("--all-functions", o.all_functions, "Details for each and every function");
  sub->add_flag("--counts", o.counts, "Show counter values for shown functions");
  sub->add_option("--function", o.function,
                  "Only functions whose name contains this string are shown");
  sub->add_option("--topn", o.topn, "Show the N functions with the largest counts");
  sub->add_flag("--detailed-summary", o.detailed_summary, "Show detailed profile summary");
  sub->add_option("--detailed-summary-cutoffs", o.detailed_summary_cutoffs,
                  "Cutoffs (parts per million) for the detailed summary, e.g. 800000,999999")
      ->delimiter(',')
      ->allow_extra_args(false)  // one value per occurrence: the FILE after it stays FILE
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--ic-targets", o.ic_targets,
                "Show indirect call site target values for shown functions");
  sub->add_flag("--memop-sizes", o.memop_sizes,
                "Show the profiled sizes of the memory intrinsic calls for shown functions");
  sub->add_flag("--show-vtables", o.show_vtables, "Show vtable names for shown functions");
  sub->add_flag("--text", o.text, "Show instr profile data in text dump format");
  sub->add_flag("--binary-ids", o.binary_ids, "Show binary ids in the profile");
  sub->add_flag("--covered", o.covered, "Show only the functions that have been executed");
  sub->add_flag("--profile-version", o.profile_version, "Show profile version");
  sub->add_option("--value-cutoff", o.value_cutoff,
                  "Functions whose maximum count is below this value are not printed");
  sub->add_flag("--list-below-cutoff", o.list_below_cutoff,
                "Only list the functions whose maximum count is below --value-cutoff");
  sub->add_flag("--showcs", o.showcs, "Show context-sensitive counts");
  sub->add_flag("--temporal-profile-traces", o.temporal_profile_traces,
                "Show temporal profile traces in the profile");
  sub->add_flag("--instr", cmd->instr, "Instrumentation profile (the default)");
  sub->add_flag("--json", cmd->json, "JSON output (not supported for instr profiles)");
  sub->add_option("--show-format", cmd->show_format, "text (json and yaml are refused)")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  sub->add_option("-o,--output", cmd->output, "Output file (default: standard output)");
  sub->add_option("FILE", cmd->input, "Profile to show (.profraw, .profdata or text)");
  sub->add_option("--debug-info", cmd->debug_info,
                  "Show the profile probes in this binary's DWARF (-profile-correlate=debug-info)"
                  " instead of a profile: their count, or YAML with --show-format=yaml");
  sub->add_option("--max-debug-info-correlation-warnings", cmd->max_correlation_warnings,
                  "Report at most this many correlation warnings (default 5, 0 = no limit)");
  sub->add_flag("--memory", cmd->memory, "Show a MemProf profile (raw, YAML or indexed)");
  sub->add_option("--profiled-binary", cmd->memprof.profiled_binaries,
                  "MemProf: profiled binary or directory searched by build id (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // not TakeLast (default above)
  sub->add_flag("--sample", cmd->sample, "Show a sample profile (text, binary or extbinary)");
  sub->add_flag("--hot-func-list", cmd->hot_func_list,
                "List the hot functions (those whose largest count reaches the 99% cutoff's)");
  sub->add_flag("--show-prof-sym-list", cmd->show_prof_sym_list,
                "--sample: print the profile symbol list");
  sub->add_flag("--show-sec-info-only", cmd->show_sec_info_only,
                "--sample: print the extbinary section table only");
  sub->allow_extras();
  sub->callback([sub, cmd, &exit_status] { exit_status = run_show(*sub, *cmd); });
}

CommandRegistration reg(30, &add_show_command);

}  // namespace
}  // namespace profkit::cli
