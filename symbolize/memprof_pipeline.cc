// Memprof input files -> merged records.
#include "symbolize/memprof_pipeline.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "format/memprof/input.h"

namespace profkit::symbolize {

namespace {

// Counts the input's allocations and, for the contexts none of whose PCs symbolizes (the
// ones the conversion drops), which objects their PCs lie in. Symbolizing here fills the
// symbolizer's cache, so the conversion that follows looks nothing up twice.
void note_dropped_objects(const memprof::MergedRaw& merged, MemProfSymbolizer& s,
                          MemProfInputReport& report) {
  std::map<std::string, uint64_t> by_object;
  for (size_t m = 0; m < merged.mibs.size(); ++m) {
    const uint64_t count = merged.mibs[m].mib.AllocCount;
    report.alloc_count += count;
    const std::span<const uint64_t> pcs = merged.stacks[merged.mib_stack[m]].pcs;
    bool kept = false;
    for (uint64_t pc : pcs) {
      if (s.symbolize(pc) != nullptr) {
        kept = true;
        break;
      }
    }
    if (kept) continue;
    std::set<std::string> objects;
    for (uint64_t pc : pcs) {
      std::string id;
      for (const memprof::Segment& seg : merged.segments)
        if (pc > seg.start && pc <= seg.end) id = build_id_hex(seg.build_id);
      objects.insert(id);
    }
    for (const std::string& id : objects) by_object[id] += count;
  }
  const std::map<std::string, std::string> given = s.matched_binaries_by_build_id();
  for (const auto& [id, count] : by_object) {
    const auto it = given.find(id);
    report.dropped_objects.push_back({id, it != given.end() ? it->second : std::string(), count});
  }
  std::stable_sort(report.dropped_objects.begin(), report.dropped_objects.end(),
                   [](const auto& a, const auto& b) { return a.alloc_count > b.alloc_count; });
}

}  // namespace

Expected<SymbolizedRaw> symbolize_raw(memprof::MergedRaw merged,
                                      const std::vector<std::string>& binaries,
                                      const MemProfSymbolizerOptions& options,
                                      std::string* failed_path) {
  SymbolizedRaw raw;
  raw.merged = std::move(merged);
  auto sym = MemProfSymbolizer::create(binaries, raw.merged.segments, raw.merged.version, options);
  if (!sym) {
    // Binary problems are reported against the binary when one is named.
    if (failed_path != nullptr && binaries.size() == 1) *failed_path = binaries.front();
    return Unexpected{std::move(sym).error()};
  }
  raw.symbolizer = std::move(*sym);
  return raw;
}

Expected<memprof::MemProfData> load_memprof_records(memprof::MemProfFile file,
                                                    const MemProfLoadOptions& options,
                                                    MemProfInputReport& report,
                                                    std::string* failed_path) {
  switch (file.kind) {
    case memprof::InputKind::raw: {
      MemProfSymbolizerOptions sym_options;
      std::error_code ec;
      sym_options.llvm_compatible = options.auto_llvm_compatible && options.binaries.size() == 1 &&
                                    !std::filesystem::is_directory(options.binaries.front(), ec);
      PROFKIT_TRY_ASSIGN(SymbolizedRaw raw, symbolize_raw(std::move(file.raw), options.binaries,
                                                          sym_options, failed_path));
      memprof::MergedRaw& merged = raw.merged;
      report.raw_version = merged.version;
      report.segments = merged.segments;
      MemProfSymbolizer* s = raw.symbolizer.get();
      report.binaries = s->matched_binaries();
      note_dropped_objects(merged, *s, report);
      memprof::ConversionStats stats;
      PROFKIT_TRY_ASSIGN(auto data, memprof::records_from_raw_consuming(
                                        std::move(merged),
                                        [s](uint64_t pc) { return s->symbolize(pc); }, &stats));
      report.mibs = stats.mibs;
      report.dropped_mibs = stats.dropped_mibs;
      report.dropped_alloc_count = stats.alloc_count_dropped;
      report.stacks_kept = stats.stacks_kept;
      report.symbolizer = s->stats();
      return data;
    }
    case memprof::InputKind::yaml:
      return std::move(file.yaml.data);
    case memprof::InputKind::indexed:
      // Beyond llvm-profdata, which writes an empty MemProf section for indexed inputs:
      // their records and data-access profile join the merge.
      return std::move(file.indexed.data);
    case memprof::InputKind::other:
      break;
  }
  return Unexpected{memprof::unknown_input_error()};
}

Expected<memprof::MemProfData> load_memprof_inputs(const std::vector<MemProfInput>& inputs,
                                                   const MemProfLoadOptions& options,
                                                   std::vector<MemProfInputReport>* reports,
                                                   std::string* failed_path) {
  memprof::MemProfData all;
  bool first = true;
  for (const MemProfInput& input : inputs) {
    if (failed_path != nullptr) *failed_path = input.path;
    MemProfInputReport report;
    report.path = input.path;
    PROFKIT_TRY_ASSIGN(memprof::MemProfFile file,
                       memprof::read_memprof_file(input.bytes, input.consumed));
    if (input.release) input.release();
    PROFKIT_TRY_ASSIGN(memprof::MemProfData data,
                       load_memprof_records(std::move(file), options, report, failed_path));
    if (first) {
      all = std::move(data);
      first = false;
    } else {
      memprof::merge_into(all, data);
    }
    if (reports != nullptr) reports->push_back(std::move(report));
  }
  if (failed_path != nullptr) failed_path->clear();
  return all;
}

}  // namespace profkit::symbolize
