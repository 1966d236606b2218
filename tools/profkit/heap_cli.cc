// Shared options of `profkit report` and `profkit diff` (see heap_cli.h).
#include "tools/profkit/heap_cli.h"

#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "format/elf/elf_file.h"
#include "format/memprof/input.h"
#include "format/memprof/raw_reader.h"
#include "io/mapped_file.h"
#include "io/program_path.h"
#include "symbolize/memprof_symbolizer.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {
// CLI::NonNegativeNumber names its range as 0.000000 to DBL_MAX written out (309 digits).
const CLI::Validator kNonNegative(
    [](std::string& text) -> std::string {
      double v = 0;
      if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
      if (!(v >= 0)) return "value " + text + " not in range: expected a number >= 0";
      return {};
    },
    "NUMBER>=0");
}  // namespace

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
      ->check(kNonNegative);
  sub->add_option(
      "--lifetime-access-density-cold-threshold,--memprof-lifetime-access-density-cold-threshold",
      t.lifetime_access_density_cold_threshold,
      "Cold needs an access density (accesses/byte/s) below this (LLVM: 0.05)")
      ->check(kNonNegative);
  sub->add_option(
      "--min-ave-lifetime-access-density-hot-threshold,"
      "--memprof-min-ave-lifetime-access-density-hot-threshold",
      t.min_ave_lifetime_access_density_hot_threshold,
      "Hot needs an access density above this, with --use-hot-hints (LLVM: 1000)")
      ->check(kNonNegative);
  sub->add_flag("--use-hot-hints,--memprof-use-hot-hints", t.use_hot_hints,
                "Also give hot verdicts (LLVM: off)");
  sub->add_option("--color", o.color, "Colour: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  sub->add_option("--width", o.width, "Output width in columns, 20-10000 (default: the terminal's)")
      ->check(CLI::Range(20, 10000));
  sub->add_option("--hide-frames", o.hide_frames,
                  "Fold frames whose function matches this regex (default: allocator and "
                  "standard-library internals, see docs/report.md)");
  sub->add_flag("--show-all-frames", o.show_all_frames, "Fold no frames");
}

bool resolve_frame_filter(const HeapCliOptions& options, report::FrameFilter& filter) {
  if (options.show_all_frames && !options.hide_frames.empty()) {
    report_error("--hide-frames and --show-all-frames exclude each other");
    return false;
  }
  if (options.show_all_frames) {
    filter = report::FrameFilter();
    return true;
  }
  if (options.hide_frames.empty()) {
    filter = report::FrameFilter::defaults();
    return true;
  }
  auto f = report::FrameFilter::hiding(options.hide_frames);
  if (!f) {
    report_error(f.error().message);
    return false;
  }
  filter = *f;
  return true;
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

namespace {

// For a raw profile read without --profiled-binary: the binaries beside the profile and in
// the current directory whose build id is one the profile's memory map names (the runtime
// writes the profile where the program runs, usually beside it), and, when the profiled
// executable is not among them, the one on $PATH (a system program run under `profkit
// run`). Empty: none found, and `needed` is the build id of the profiled executable (the
// map's first entry).
std::vector<std::string> find_profiled_binaries(const std::string& path, std::string& needed) {
  auto file = MappedFile::open(path);
  if (!file || memprof::input_kind(file->bytes()) != memprof::InputKind::raw) return {};
  auto profiles = memprof::read_raw_profiles(file->bytes());
  if (!profiles || profiles->empty()) return {};
  std::set<std::string> ids;
  for (const memprof::Segment& seg : profiles->front().segments) {
    if (seg.build_id.empty()) continue;
    const std::string id = symbolize::build_id_hex(seg.build_id);
    if (needed.empty()) needed = id;
    ids.insert(id);
  }
  // One file per build id: the first found, unless a later one has debug information and
  // it has none (a stripped program beside its unstripped copy or its .debug file).
  struct Candidate {
    std::string path;
    bool has_dwarf = false;
  };
  std::map<std::string, Candidate> by_id;
  std::set<std::string> seen;
  auto search = [&](const std::filesystem::path& dir, bool executable_only) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string candidate = it->path().string();
      if (!it->is_regular_file(ec) || !seen.insert(candidate).second) continue;
      auto bin = MappedFile::open(candidate);
      if (!bin || !elf::ElfFile::has_format(bin->bytes())) continue;
      auto elf = elf::ElfFile::parse(bin->bytes());
      if (!elf) continue;
      auto id = elf->build_id();
      if (!id || !*id) continue;
      const std::string hex = symbolize::build_id_hex(**id);
      if (executable_only ? hex != needed : ids.count(hex) == 0) continue;
      const bool has_dwarf = elf->find_section(".debug_info") != nullptr;
      auto [at, fresh] = by_id.try_emplace(hex, Candidate{candidate, has_dwarf});
      if (!fresh && has_dwarf && !at->second.has_dwarf) at->second = {candidate, has_dwarf};
    }
  };
  std::error_code ec;
  search(std::filesystem::absolute(path, ec).parent_path(), false);
  search(std::filesystem::current_path(ec), false);
  for (const auto& dir : path_directories()) {
    if (by_id.count(needed) != 0) break;
    search(dir, true);
  }
  std::vector<std::string> found;
  for (const auto& [id, candidate] : by_id) found.push_back(candidate.path);
  return found;
}

}  // namespace

bool load_heap(const std::string& path, const HeapCliOptions& options,
               report::HeapProfile& profile) {
  ProgressBar bar("symbolizing " + path);
  report::HeapLoadOptions load;
  load.binaries = options.profiled_binaries;
  if (load.binaries.empty()) {
    std::string needed;
    load.binaries = find_profiled_binaries(path, needed);
    if (load.binaries.empty() && !needed.empty()) {
      report_error(path, Error{ErrorCode::invalid_argument, kNoOffset,
                               "the profiled binary (build id " + needed +
                                   ") is not beside the profile, in the current directory "
                                   "nor on PATH: "
                                   "pass --profiled-binary=PATH (a file, or a directory "
                                   "searched by build id)"});
      return false;
    }
  }
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

bool load_heaps(const std::vector<std::string>& paths, const HeapCliOptions& options,
                report::HeapProfile& profile) {
  if (paths.size() == 1) return load_heap(paths.front(), options, profile);
  std::vector<report::HeapProfile> each(paths.size());
  for (size_t i = 0; i < paths.size(); ++i)
    if (!load_heap(paths[i], options, each[i])) return false;
  profile = report::merge_heap_profiles(std::move(each), options.thresholds);
  return true;
}

}  // namespace profkit::cli
