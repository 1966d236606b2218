// Shared options of `profkit report` and `profkit diff` (see heap_cli.h).
#include "tools/profkit/heap_cli.h"

#include "tools/profkit/command.h"

namespace profkit::cli {

void add_heap_options(CLI::App* sub, HeapCliOptions& o) {
  sub->add_option("--profiled-binary", o.profiled_binaries,
                  "Profiled binary, shared library or directory searched by build id "
                  "(repeatable); names GUIDs of indexed/YAML profiles too")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  auto& t = o.thresholds;
  sub->add_option("--ave-lifetime-cold-threshold,--memprof-ave-lifetime-cold-threshold",
                  t.ave_lifetime_cold_threshold_s,
                  "Cold needs an average lifetime of at least this many seconds (LLVM: 200)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option(
      "--lifetime-access-density-cold-threshold,--memprof-lifetime-access-density-cold-threshold",
      t.lifetime_access_density_cold_threshold,
      "Cold needs an access density (accesses/byte/s) below this (LLVM: 0.05)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option(
      "--min-ave-lifetime-access-density-hot-threshold,"
      "--memprof-min-ave-lifetime-access-density-hot-threshold",
      t.min_ave_lifetime_access_density_hot_threshold,
      "Hot needs an access density above this, with --use-hot-hints (LLVM: 1000)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--use-hot-hints,--memprof-use-hot-hints", t.use_hot_hints,
                "Also give hot verdicts (LLVM: off)");
  sub->add_option("--color", o.color, "Colour: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  sub->add_option("--width", o.width, "Output width in columns, 20-10000 (default: the terminal's)")
      ->check(CLI::Range(20, 10000));
}

bool resolve_color(const HeapCliOptions& options, bool& color) {
  ColorMode mode = ColorMode::automatic;
  if (!parse_color_mode(options.color, mode)) {
    report_error("--color must be auto, always or never");
    return false;
  }
  color = use_color(mode);
  return true;
}

bool load_heap(const std::string& path, const HeapCliOptions& options,
               report::HeapProfile& profile) {
  ProgressBar bar("symbolizing " + path);
  report::HeapLoadOptions load;
  load.binaries = options.profiled_binaries;
  load.thresholds = options.thresholds;
  load.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  std::string failed;
  load.failed_path = &failed;
  auto loaded = report::load_heap_profile(path, load);
  if (!loaded) {
    report_error(failed.empty() ? path : failed, loaded.error());
    return false;
  }
  profile = std::move(*loaded);
  return true;
}

}  // namespace profkit::cli
