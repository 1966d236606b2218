// `profkit profgen --binary BIN --perfscript FILE -o OUT`: a perf recording turned into a
// sample profile, with llvm-profgen's option names and defaults (profgen/profgen.h).
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "io/output_file.h"
#include "profgen/profgen.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

using profgen::PreInlinerOptions;

struct ProfgenCli {
  profgen::ProfgenOptions options;
  std::string output;
  std::string format = "extbinary";
  std::optional<int64_t> pid;
  std::optional<uint64_t> hot_count, cold_count;
  bool merge_cold = true;
  bool context_cost_ignored = true;
  CLI::Option* merge_cold_option = nullptr;  // given on the command line?
};

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

int run_profgen(ProfgenCli& cli) {
  profgen::ProfgenOptions& o = cli.options;
  const int inputs =
      !o.perfscript.empty() + !o.perfdata.empty() + !o.unsymbolized_profile.empty();
  if (inputs == 0) {
    report_error(
        "Perf input file is missing, please use one of `--perfscript`, `--perfdata` and "
        "`--unsymbolized-profile` for the input.");
    return 1;
  }
  if (inputs > 1) {
    report_error(
        "`--perfscript`, `--perfdata` and `--unsymbolized-profile` cannot be used together.");
    return 1;
  }
  const std::string& input = !o.perfscript.empty() ? o.perfscript
                             : !o.perfdata.empty() ? o.perfdata
                                                   : o.unsymbolized_profile;
  if (!exists(input)) {
    report_error("Input perf file(" + input + ") doesn't exist.");
    return 1;
  }
  if (!exists(o.binary)) {
    report_error("Input binary(" + o.binary + ") doesn't exist.");
    return 1;
  }
  if (cli.format == "text") o.format = sampleprof::Format::text;
  else if (cli.format == "binary") o.format = sampleprof::Format::binary;
  else o.format = sampleprof::Format::extbinary;
  o.pid = cli.pid;
  o.post.hot_count = cli.hot_count;
  o.merge_cold_context_given = cli.merge_cold_option->count() > 0;
  o.cs.merge_cold_context = cli.merge_cold;
  o.post.cold_count = cli.cold_count;
  if (!outputs_are_safe({cli.output}, {o.binary, input})) return 1;
  if (o.format != sampleprof::Format::text && is_stdout_path(cli.output)) {
    report_error("binary profiles cannot be written to standard output: give -o FILE");
    return 1;
  }

  const auto warn = [](std::string_view message) {
    std::fprintf(stderr, "warning: %.*s\n", static_cast<int>(message.size()), message.data());
  };
  const auto out = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  };
  std::string failing;
  auto bytes = profgen::run_profgen(o, warn, out, &failing);
  if (!bytes) {
    report_error(failing, bytes.error());
    return 1;
  }
  std::fflush(stdout);
  return write_output(cli.output, *bytes);
}

void add_profgen_command(CLI::App& app, int& exit_status) {
  auto cli = std::make_shared<ProfgenCli>();
  profgen::ProfgenOptions& o = cli->options;
  CLI::App* cmd = app.add_subcommand(
      "profgen",
      "Turn perf samples of a binary into a sample profile (AutoFDO / probe-based), as "
      "llvm-profgen does");
  cmd->add_option("--binary", o.binary, "The profiled binary (ELF)")->required();
  cmd->add_option("--output,-o", cli->output, "Output profile ('-' = standard output, text only)")
      ->required();
  cmd->add_option("--perfscript,--ps", o.perfscript,
                  "`perf script -F ip,brstack --show-mmap-events` output");
  cmd->add_option("--perfdata,--pd", o.perfdata,
                  "perf.data (`perf record -b`, or without LBR `perf record -g`); needs perf");
  cmd->add_option("--unsymbolized-profile,--up", o.unsymbolized_profile,
                  "An unsymbolized profile written by --skip-symbolization");
  cmd->add_option("--format", cli->format, "Output format (default extbinary)")
      ->check(CLI::IsMember({"text", "binary", "extbinary"}));
  cmd->add_option("--pid", cli->pid, "Only this process's mmap events place the binary");
  cmd->add_flag("--skip-symbolization", o.skip_symbolization,
                "Write the unsymbolized profile (address ranges and branches) and stop");
  cmd->add_flag("--use-offset", o.use_offset,
                "Unsymbolized addresses as offsets from the base (default true)");
  cmd->add_flag("--use-first-loadable-segment-as-base", o.use_first_loadable_segment_as_base,
                "Offsets from the first loadable segment instead of the first executable one");
  cmd->add_flag("--ignore-stack-samples", o.ignore_stack_samples,
                "Read hybrid samples as LBR-only ones (context-insensitive profile)");
  cmd->add_flag("--show-mmap-events", o.show_mmap_events, "Print the mmap events read");
  cmd->add_flag("--use-dwarf-correlation", o.use_dwarf_correlation,
                "Ignore pseudo probes: a line-based profile");
  cmd->add_flag("--fill-zero-for-all-funcs", o.generate.fill_zero_for_all_funcs,
                "Zero counts for every function of the binary, not only sampled ones");
  cmd->add_flag("--update-total-samples", o.generate.update_total_samples,
                "Total samples := the sum of body samples and inlinee totals");
  cmd->add_flag("--trim-cold-profile", o.post.trim_cold_profile,
                "Drop functions below the cold count threshold");
  cmd->add_option("--profile-summary-hot-count", cli->hot_count, "Hot count threshold");
  cmd->add_option("--profile-summary-cold-count", cli->cold_count, "Cold count threshold");
  cmd->add_option("--profile-summary-cutoff-hot", o.post.cutoff_hot,
                  "Hot threshold cutoff, per million (default 990000)");
  cmd->add_option("--profile-summary-cutoff-cold", o.post.cutoff_cold,
                  "Cold threshold cutoff, per million (default 999999)");
  cmd->add_flag("--use-md5", o.use_md5, "MD5 function names (extbinary only)");
  cmd->add_flag("--populate-profile-symbol-list", o.populate_profile_symbol_list,
                "Store every function name of the binary (extbinary only)");
  cmd->add_option("--profile-density-threshold", o.post.density_threshold,
                  "Density below which more samples are suggested (default 50)");
  cmd->add_option("--profile-density-cutoff-hot", o.post.density_cutoff_hot,
                  "Cutoff, per million, of the density computation (default 990000)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--show-density", o.post.show_density, "Print the profile density");
  // Context-sensitive profiles (hybrid samples).
  cmd->add_option("--compress-recursion", o.cs.context.compress_recursion,
                  "Deduplicate repeated frame sequences up to this length (-1: any, 0: off)")
      ->check(CLI::Range(-1, INT32_MAX));
  cmd->add_option("--csprof-max-context-depth", o.cs.context.max_context_depth,
                  "Keep the last K caller frames of each context (-1: all)");
  cmd->add_flag("--infer-missing-frames", o.cs.infer_missing_frames,
                "Infer frames that tail calls left out of stacks (probe binaries; default on)");
  cmd->add_option("--max-search-depth", o.cs.max_search_depth,
                  "Depth limit of that inference");
  cli->merge_cold_option = cmd->add_flag("--csprof-merge-cold-context", cli->merge_cold,
                "Merge cold contexts into base profiles (default on without the pre-inliner)");
  cmd->add_option("--csprof-max-cold-context-depth", o.cs.max_cold_context_depth,
                  "Frames kept when merging cold contexts (default 1: the base profile)");
  cmd->add_flag("--gen-cs-nested-profile", o.cs.nested,
                "Write contexts as nested (inlinee) profiles (default on)");
  cmd->add_flag("--csspgo-preinliner", o.cs.preinliner,
                "Decide inlining from the profile; merge other contexts into base profiles "
                "(default on)");
  PreInlinerOptions& pi = o.cs.preinliner_options;
  cmd->add_flag("--use-context-cost-for-preinliner", cli->context_cost_ignored,
                "Accepted and ignored, as by llvm-profgen 22 (sizes are machine-code bytes)");
  cmd->add_flag("--csspgo-replay-preinline", pi.replay,
                "Pre-inline exactly what the binary inlined");
  cmd->add_option("--csspgo-preinliner-multiplier-for-previous-inlining",
                  pi.multiplier_for_inlined, "Threshold multiplier for calls the binary inlined");
  cmd->add_option("--sample-profile-hot-inline-threshold", pi.hot_callsite_threshold,
                  "Pre-inliner: size threshold of hot call sites (default 1500)");
  cmd->add_option("--sample-profile-cold-inline-threshold", pi.cold_callsite_threshold,
                  "Pre-inliner: size threshold of cold call sites (default 0)");
  cmd->add_option("--sample-profile-inline-limit-max", pi.limit_max,
                  "Pre-inliner: largest size a function may grow to (default 50000)");
  cmd->add_option("--sample-profile-inline-limit-min", pi.limit_min,
                  "Pre-inliner: size a function may always grow to (default 100)");
  cmd->add_option("--sample-profile-inline-growth-limit", pi.growth_limit,
                  "Pre-inliner: growth factor of a function's size (default 12)");
  cmd->callback([cli, &exit_status] { exit_status = run_profgen(*cli); });
}

CommandRegistration reg(55, &add_profgen_command);

}  // namespace

}  // namespace profkit::cli
