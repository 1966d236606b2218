// `profkit merge`: merges raw, indexed and text IR-PGO profiles into one indexed (or text)
// profile, byte-identical to `llvm-profdata merge --num-threads=1` (v13/v11 vs LLVM 22,
// v7 vs LLVM 14). Which files are read is io/merge_inputs' (lists, weights, directories,
// MemProf routing); reading and merging them io/profile_merge's (io/supplement's for
// --supplement-instr-with-sample). This file parses the options, checks them as
// llvm-profdata does, and writes the result.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "format/instrprof/indexed_writer.h"
#include "format/instrprof/text_writer.h"
#include "io/merge_inputs.h"
#include "io/output_file.h"
#include "io/profile_merge.h"
#include "io/supplement.h"
#include "symbolize/profile_correlation.h"
#include "tools/profkit/command.h"
#include "tools/profkit/memprof_cli.h"
#include "tools/profkit/name_filter.h"
#include "tools/profkit/sample_cli.h"

namespace profkit::cli {

namespace {

struct MergeCommand {
  std::vector<std::string> inputs;
  std::vector<std::string> weighted_inputs;  // "W,FILE"
  std::string input_files;                   // -f LIST
  std::string output = "-";
  bool text = false;
  bool sparse = false;
  std::string failure_mode = "any";
  unsigned threads = 0;  // 0: min(hardware threads, (inputs + 1) / 2), like llvm-profdata
  int profile_version = 13;
  bool write_prev_version = false;
  bool dump_input_file_list = false;    // print the inputs as W,FILE lines and stop
  bool keep_vtable_symbols = false;     // keep the inputs' vtable names (v12+, text)
  uint64_t trace_reservoir_size = 100;  // --temporal-profile-trace-reservoir-size
  uint64_t max_trace_length = 10000;    // --temporal-profile-max-trace-length
  MemProfCliOptions memprof;  // --profiled-binary, --memprof-version (memprof_cli.h)
  std::string binary_file;    // --binary-file: correlate raw inputs with its sections
  std::string debug_info;     // --debug-info: correlate raw inputs with its DWARF
  unsigned max_correlation_warnings = 5;  // --max-debug-info-correlation-warnings (0: all)
  bool instr = false;         // --instr: IR-PGO profiles (the default)
  bool sample = false;        // --sample: sample profiles (sample_cli.h)
  bool binary = false;        // --sample output encodings besides --text
  bool extbinary = false;
  SampleMergeOptions sample_options;
  // --supplement-instr-with-sample=FILE and its thresholds (kept as text: parsed as
  // llvm-profdata's cl::opt parses them).
  std::string suppl_sample;
  std::string suppl_min_size = "10";
  std::string zero_counter_threshold = "0.7";
  std::string instr_cold_threshold = "0";
};

// An `unsigned` option as LLVM's command line reads it: radix from the prefix (0x, 0b, 0o,
// a leading 0 for octal, else decimal), at most UINT_MAX.
std::optional<uint64_t> parse_llvm_unsigned(std::string_view s) {
  unsigned radix = 10;
  if (s.size() > 1 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') radix = 16, s.remove_prefix(2);
    else if (p == 'b' || p == 'B') radix = 2, s.remove_prefix(2);
    else if (p == 'o' || p == 'O') radix = 8, s.remove_prefix(2);
    else radix = 8, s.remove_prefix(1);
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, static_cast<int>(radix));
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > 0xFFFFFFFFu)
    return std::nullopt;
  return v;
}

// A `float` option as LLVM reads it: the whole text as a double, then narrowed.
std::optional<float> parse_llvm_float(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return static_cast<float>(d);
}

// llvm-profdata's checks, in its order, then the supplement itself and the output.
// The merged profile as the output's bytes: text (LLVM 14 or 22 flavour by version) or
// indexed of `version`, with the MemProf section when MemProf data was merged. Reports the
// error and returns nothing when the profile cannot be written.
std::optional<std::string> merged_bytes(const MergeCommand& cmd, instrprof::Profile& merged,
                                        std::span<const uint64_t> name_refs, int version,
                                        const MemProfMerged* memprof,
                                        const NameFilter* filter = nullptr) {
  if (cmd.text) {
    if (filter != nullptr)
      std::erase_if(merged.records, [&](const auto& r) { return !filter->keeps(r.name); });
    if (cmd.sparse) instrprof::drop_zero_names(merged);
    return instrprof::write_text_profile(
        merged, version == 7 ? instrprof::TextFlavor::llvm14 : instrprof::TextFlavor::llvm22);
  }
  instrprof::IndexedWriteOptions write;
  write.sparse = cmd.sparse;
  write.name_refs = name_refs;
  if (filter != nullptr)
    write.keep_name = [filter](std::string_view name) { return filter->keeps(name); };
  if (memprof != nullptr)
    write.memprof_section = [&](uint64_t offset) {
      return memprof_section_at(*memprof, cmd.memprof, offset);
    };
  auto written = instrprof::write_indexed_profile(merged, static_cast<uint32_t>(version), write);
  if (!written) {
    report_error(cmd.output, written.error());
    return std::nullopt;
  }
  return std::move(*written);
}

int run_supplement(const MergeCommand& cmd, const std::vector<WeightedPath>& inputs) {
  if (inputs.empty()) {
    report_error("merge: no input files specified");
    return 1;
  }
  if (cmd.sample) {
    report_error("-supplement-instr-with-sample can only work with -instr.");
    return 1;
  }
  instrprof::SupplementOptions options;
  const auto min_size = parse_llvm_unsigned(cmd.suppl_min_size);
  const auto cold = parse_llvm_unsigned(cmd.instr_cold_threshold);
  const auto zero = parse_llvm_float(cmd.zero_counter_threshold);
  if (!min_size || !cold || !zero) {
    report_error(std::string("merge: '") +
                 (!min_size ? cmd.suppl_min_size : !cold ? cmd.instr_cold_threshold
                                                         : cmd.zero_counter_threshold) +
                 "' is not a valid value for " +
                 (!min_size ? "--suppl-min-size-threshold" : !cold ? "--instr-prof-cold-threshold"
                                                                   : "--zero-counter-threshold"));
    return 1;
  }
  options.min_size = *min_size;
  options.cold_threshold = *cold;
  options.zero_counter_threshold = *zero;
  const int version = cmd.write_prev_version ? 11 : cmd.profile_version;
  if (version != 11 && version != 13) {
    report_error("merge: --supplement-instr-with-sample writes version 13 or 11 only");
    return 1;
  }
  if (is_stdout_path(cmd.output)) {
    report_error("cannot write indexed profdata format to stdout");
    return 1;
  }
  if (inputs.size() != 1) {
    report_error("expect one input to be an instr profile");
    return 1;
  }
  if (inputs[0].weight != 1) {
    report_error("expect instr profile doesn't have weight");
    return 1;
  }
  // llvm-profdata keeps the MemProf flag of an indexed input but none of its records: the
  // output then has an empty MemProf section.
  std::shared_ptr<MemProfMerged> memprof;
  if (sniff_instrprof_file(inputs[0].path) == InstrProfFileKind::indexed_memprof)
    memprof = empty_memprof();  // with records or without: the flag is what carries over
  std::string failed_path;
  auto result = supplement_instr_file(
      inputs[0].path, cmd.suppl_sample, options,
      [](std::string_view message) {
        std::fprintf(stderr, "warning: %.*s\n", static_cast<int>(message.size()), message.data());
      },
      &failed_path);
  if (!result) {
    report_error(failed_path, result.error());
    return 1;
  }
  auto bytes = merged_bytes(cmd, result->profile, result->name_refs, version, memprof.get());
  return bytes ? write_output(cmd.output, *bytes) : 1;
}

int run_merge(MergeCommand& cmd) {
  std::string failed_path;
  auto collected = collect_merge_inputs(
      {cmd.inputs, cmd.weighted_inputs, cmd.input_files}, &failed_path);
  if (!collected) {
    if (failed_path.empty())
      report_error(collected.error().message);
    else
      report_error(failed_path, collected.error());
    return 1;
  }
  std::vector<WeightedPath>& inputs = *collected;
  if (cmd.dump_input_file_list) {  // llvm-profdata's check of what a list expands to
    if (inputs.empty()) {
      report_error("merge: no input files specified");
      return 1;
    }
    std::string text;
    for (const WeightedPath& in : inputs) text += std::to_string(in.weight) + "," + in.path + "\n";
    return write_output("-", text);
  }
  {
    std::vector<std::string> read = cmd.memprof.profiled_binaries;
    if (!cmd.input_files.empty()) read.push_back(cmd.input_files);
    if (!cmd.suppl_sample.empty()) read.push_back(cmd.suppl_sample);
    for (const WeightedPath& in : inputs) read.push_back(in.path);
    if (!outputs_are_safe({cmd.output}, read)) return 1;
  }
  if (!cmd.suppl_sample.empty()) return run_supplement(cmd, inputs);
  if (cmd.sample) {
    if (cmd.failure_mode != "any" && cmd.failure_mode != "all" && cmd.failure_mode != "warn") {
      report_error("merge: --failure-mode must be 'any', 'all' or 'warn'");
      return 1;
    }
    if (inputs.empty()) {
      report_error("merge: no input files specified");
      return 1;
    }
    SampleMergeOptions options = cmd.sample_options;
    options.format = cmd.text ? "text" : cmd.binary ? "binary" : "extbinary";
    return run_sample_merge(inputs, cmd.output, cmd.failure_mode == "any", options);
  }
  // Without --sample, --binary and --extbinary (and the extbinary-only options) leave the
  // indexed output as it is, as llvm-profdata does.
  const MemProfRoute route = route_memprof_inputs(inputs);
  std::shared_ptr<MemProfMerged> memprof;
  if (!route.memprof_inputs.empty()) {
    if (!load_memprof(route.memprof_inputs, cmd.memprof, memprof, {cmd.output})) return 1;
    if (inputs.empty()) return write_output(cmd.output, memprof_only_profile(*memprof, cmd.memprof));
  } else if (route.memprof_flag_seen) {
    // As llvm-profdata: the MemProf kind of an input stays in the output, with an empty
    // MemProf section (of --memprof-version) when no input brought records.
    memprof = empty_memprof();
  }
  if (inputs.empty()) {
    report_error("merge: no input files specified");
    return 1;
  }
  int version = cmd.write_prev_version ? 11 : cmd.profile_version;
  if (version != 7 && version != 11 && version != 13) {
    report_error("merge: --profile-version must be 7, 11 or 13");
    return 1;
  }
  if (cmd.failure_mode != "any" && cmd.failure_mode != "all" && cmd.failure_mode != "warn") {
    report_error("merge: --failure-mode must be 'any', 'all' or 'warn'");
    return 1;
  }

  // Correlated raw inputs (counters only) take their records from one binary, as
  // llvm-profdata allows one of --debug-info and --binary-file.
  std::optional<instrprof::Correlation> correlation;
  if (!cmd.binary_file.empty() && !cmd.debug_info.empty()) {
    report_error("merge: give only one of --debug-info and --binary-file");
    return 1;
  }
  if (!cmd.binary_file.empty() || !cmd.debug_info.empty()) {
    const bool binary = !cmd.binary_file.empty();
    const std::string& path = binary ? cmd.binary_file : cmd.debug_info;
    instrprof::CorrelationWarnings warnings(
        cmd.max_correlation_warnings,
        [&](std::string_view message) { report_warning(path, message); });
    auto loaded = symbolize::load_correlation(
        path,
        binary ? symbolize::CorrelationSource::binary : symbolize::CorrelationSource::debug_info,
        warnings);
    if (!loaded) {
      report_error(path, loaded.error());
      return 1;
    }
    correlation = std::move(*loaded);
  }

  // --function / --no-function: llvm-profdata erases the names they leave out after the
  // merge, before writing, and says how many of the names it had.
  std::optional<NameFilter> filter;
  if (!cmd.sample_options.function.empty() || !cmd.sample_options.no_function.empty()) {
    filter = make_name_filter(cmd.sample_options.function, cmd.sample_options.no_function);
    if (!filter) return 1;
  }

  FileMergeOptions merge;
  if (correlation) merge.correlation = &*correlation;
  merge.merge.llvm14_semantics = version == 7;
  merge.merge.trace_reservoir_size = cmd.trace_reservoir_size;
  merge.merge.max_trace_length = cmd.max_trace_length;
  merge.merge.keep_vtable_symbols = cmd.keep_vtable_symbols;
  merge.threads = cmd.threads;
  merge.fail_any = cmd.failure_mode == "any";
  merge.fail_all = cmd.failure_mode != "warn";
  auto merged_files = merge_profile_files(
      inputs, merge, [](std::string_view source, std::string_view message) { report_warning(source, message); },
      &failed_path);
  if (!merged_files) {
    if (failed_path.empty())
      report_error("merge: " + merged_files.error().message);
    else
      report_error(failed_path, merged_files.error());
    return 1;
  }
  instrprof::Merger& merger = *merged_files;

  std::vector<uint64_t> name_refs;
  instrprof::Profile merged = merger.finish(&name_refs);
  if (filter) {
    std::unordered_set<std::string_view> names;
    size_t dropped = 0;
    for (const instrprof::Record& r : merged.records)
      if (names.insert(r.name).second && !filter->keeps(r.name)) ++dropped;
    std::fprintf(stderr, "%zu of %zu functions in the original profile are filtered.\n", dropped,
                 names.size());
  }
  auto bytes = merged_bytes(cmd, merged, name_refs, version, memprof.get(),
                            filter ? &*filter : nullptr);
  if (!bytes) return 1;
  if (const int status = write_output(cmd.output, *bytes); status != 0) return status;
  keep_until_exit(std::move(merged));  // see keep_until_exit
  return 0;
}

void add_merge_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<MergeCommand>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge IR-PGO profiles (raw, indexed, text) into one indexed or text profile");
  sub->add_option("inputs", cmd->inputs, "Input profiles (weight 1)");
  sub->add_option("-o,--output", cmd->output, "Output file ('-' = standard output)");
  // --text, --binary and --extbinary are one choice in llvm-profdata: the last one given wins.
  sub->add_flag_callback(
         "--text", [c = cmd.get()] { c->text = true, c->binary = c->extbinary = false; },
         "Write the text format instead of indexed")
      ->trigger_on_parse();
  sub->add_option("--weighted-input", cmd->weighted_inputs,
                  "W,FILE: merge FILE with its counts multiplied by W")
      ->allow_extra_args(false);
  sub->add_option("-f,--input-files", cmd->input_files,
                  "File listing inputs, one FILE or W,FILE per line");
  sub->add_flag("--sparse", cmd->sparse, "Leave out functions whose counters are all zero");
  sub->add_option("--failure-mode", cmd->failure_mode,
                  "any: fail if any input is invalid (default); all: only if all are; warn: "
                  "never, warn and skip them");
  sub->add_option("-j,--num-threads", cmd->threads,
                  "Threads merging inputs (default: min(cores, (inputs+1)/2)); output is the same for any N");
  sub->add_option("--profile-version", cmd->profile_version,
                  "Indexed version to write: 13 (LLVM 22, default), 11, or 7 (LLVM 14)");
  sub->add_flag("--write-prev-version", cmd->write_prev_version,
                "Same as --profile-version=11 (llvm-profdata 22's spelling)");
  sub->add_flag("--keep-vtable-symbols", cmd->keep_vtable_symbols,
                "Keep the inputs' vtable names (v12+ section; names in text output)");
  sub->add_flag("--dump-input-file-list", cmd->dump_input_file_list,
                "Print every input as W,FILE (after -f and --weighted-input) and stop");
  sub->add_option("--temporal-profile-trace-reservoir-size", cmd->trace_reservoir_size,
                  "Keep at most this many temporal traces, a uniform sample of all (default 100)");
  sub->add_option("--temporal-profile-max-trace-length", cmd->max_trace_length,
                  "Cut temporal traces to this many functions (default 10000)");
  sub->add_option("--profiled-binary", cmd->memprof.profiled_binaries,
                  "MemProf: profiled binary or directory searched by build id (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--binary-file", cmd->binary_file,
                  "Correlate raw profiles that hold only counters (-profile-correlate=binary) "
                  "with this unstripped binary's __llvm_covdata/__llvm_covnames sections");
  sub->add_option("--debug-info", cmd->debug_info,
                  "Correlate raw profiles that hold only counters (-profile-correlate=debug-info) "
                  "with this binary's DWARF");
  sub->add_option("--max-debug-info-correlation-warnings", cmd->max_correlation_warnings,
                  "Report at most this many correlation warnings (default 5, 0 = no limit)");
  sub->add_option("--memprof-version", cmd->memprof.memprof_version,
                  "MemProf section version to write: 2, 3 (default) or 4");
  sub->add_flag("--memprof-full-schema", cmd->memprof.full_schema,
                "MemProf: store all MIB fields instead of the hot/cold schema");
  sub->add_flag("--verbose", cmd->memprof.verbose,
                "MemProf: report every allocation lost to missing debug info, however few");
  sub->add_flag("--instr", cmd->instr, "Instrumentation (IR-PGO) profiles (the default)");
  sub->add_flag("--sample", cmd->sample,
                "Sample profiles (AutoFDO/CSSPGO: text, binary or extbinary inputs)");
  sub->add_flag_callback(
         "--binary", [c = cmd.get()] { c->binary = true, c->text = c->extbinary = false; },
         "--sample: write the binary encoding (IR-PGO: indexed, the default)")
      ->trigger_on_parse();
  sub->add_flag_callback(
         "--extbinary", [c = cmd.get()] { c->extbinary = true, c->text = c->binary = false; },
         "--sample: write the extensible binary encoding (the default)")
      ->trigger_on_parse();
  SampleMergeOptions& so = cmd->sample_options;
  sub->add_flag("--use-md5", so.use_md5, "--sample --extbinary: MD5 name table");
  sub->add_flag("--compress-all-sections", so.compress_all_sections,
                "--sample --extbinary: zlib-compress every section");
  sub->add_flag("--gen-partial-profile", so.gen_partial_profile,
                "--sample --extbinary: mark the profile partial");
  sub->add_flag("--split-layout", so.split_layout,
                "--sample --extbinary: functions with and without inlinees in two sections");
  sub->add_option("--prof-sym-list", so.prof_sym_list,
                  "--sample: file of symbols (one per line) for the profile symbol list");
  sub->add_flag("--drop-profile-symbol-list", so.drop_profile_symbol_list,
                "--sample: leave the inputs' profile symbol lists out");
  sub->add_option("--convert-sample-profile-layout", so.convert_layout,
                  "--sample: nest (CS flat to nested) or flat (nested to flat)")
      ->check(CLI::IsMember({"nest", "flat"}));
  sub->add_option("--function", so.function,
                  "Keep only functions (--sample: profiles) whose name or context matches this regex");
  sub->add_option("--no-function", so.no_function,
                  "Leave out functions (--sample: profiles) whose name or context matches this regex");
  sub->add_flag("--generate-merged-base-profiles", so.merged_base_profiles,
                "--sample with nest: also merge each nested context into its base profile");
  sub->add_flag("--extbinary-write-vtable-type-prof", so.write_vtables,
                "--sample --extbinary: keep vtable type counts");
  sub->add_option("--supplement-instr-with-sample", cmd->suppl_sample,
                  "Sample profile that corrects the one IR-PGO input: functions cold in it but "
                  "warm or hot in the samples are scaled up or given pseudo counts");
  sub->add_option("--suppl-min-size-threshold", cmd->suppl_min_size,
                  "Supplement: leave functions with fewer counters alone (default 10)");
  sub->add_option("--zero-counter-threshold", cmd->zero_counter_threshold,
                  "Supplement: above this share of zero counters, set a pseudo count instead "
                  "of scaling (default 0.7)");
  sub->add_option("--instr-prof-cold-threshold", cmd->instr_cold_threshold,
                  "Supplement: instr cold threshold (default 0: from the profile summary)");
  sub->callback([cmd, &exit_status] { exit_status = run_merge(*cmd); });
}

}  // namespace

static CommandRegistration reg(20, &add_merge_command);

}  // namespace profkit::cli
