// Raw/YAML memprof inputs -> merged records.
#include "symbolize/memprof_pipeline.h"

#include <filesystem>

#include "format/memprof/input_kind.h"
#include "format/memprof/indexed_reader.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/yaml_reader.h"

namespace profkit::symbolize {

Expected<memprof::MemProfData> load_memprof_inputs(const std::vector<MemProfInput>& inputs,
                                                   const MemProfLoadOptions& options,
                                                   std::vector<MemProfInputReport>* reports,
                                                   std::string* failed_path) {
  memprof::MemProfData all;
  bool first = true;
  for (const MemProfInput& input : inputs) {
    const std::string& path = input.path;
    if (failed_path != nullptr) *failed_path = path;
    MemProfInputReport report;
    report.path = path;
    memprof::MemProfData data;
    switch (memprof::input_kind(input.bytes)) {
      case memprof::InputKind::raw: {
        PROFKIT_TRY_ASSIGN(auto profiles, memprof::read_raw_profiles(input.bytes, input.consumed));
        if (input.release) input.release();
        PROFKIT_TRY_ASSIGN(memprof::MergedRaw merged,
                           memprof::merge_raw_profiles(std::move(profiles)));
        report.raw_version = merged.version;
        MemProfSymbolizerOptions sym_options;
        std::error_code ec;
        sym_options.llvm_compatible =
            options.auto_llvm_compatible && options.binaries.size() == 1 &&
            !std::filesystem::is_directory(options.binaries.front(), ec);
        auto sym = MemProfSymbolizer::create(options.binaries, merged.segments, merged.version,
                                             sym_options);
        if (!sym) {
          // Binary problems are reported against the binary when one is named.
          if (failed_path != nullptr && options.binaries.size() == 1)
            *failed_path = options.binaries.front();
          return Unexpected{std::move(sym).error()};
        }
        MemProfSymbolizer* s = sym->get();
        memprof::ConversionStats stats;
        PROFKIT_TRY_ASSIGN(data, memprof::records_from_raw_consuming(
                                     std::move(merged),
                                     [s](uint64_t pc) { return s->symbolize(pc); }, &stats));
        report.mibs = stats.mibs;
        report.dropped_mibs = stats.dropped_mibs;
        report.dropped_alloc_count = stats.alloc_count_dropped;
        report.stacks_kept = stats.stacks_kept;
        report.symbolizer = s->stats();
        break;
      }
      case memprof::InputKind::yaml: {
        PROFKIT_TRY_ASSIGN(memprof::YamlMemProf yaml, memprof::read_memprof_yaml(input.bytes));
        data = std::move(yaml.data);
        break;
      }
      case memprof::InputKind::indexed: {
        // Beyond llvm-profdata, which writes an empty MemProf section for indexed inputs:
        // their records and data-access profile join the merge.
        PROFKIT_TRY_ASSIGN(memprof::IndexedMemProf idx, memprof::read_indexed_memprof(input.bytes));
        data = std::move(idx.data);
        break;
      }
      case memprof::InputKind::other:
        return Unexpected{memprof::unknown_input_error()};
    }
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
