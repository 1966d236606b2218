// The symbolized memprof model: per-function records of allocation sites (context + MIB)
// and call sites, as the indexed format stores them (docs/formats/memprof.md C, D.4-D.6).
// Frames and stacks are in frames.h, the v4 data-access profile in data_access.h, the
// cold/hot verdict in classify.h.
// Built from raw profiles (through a caller-supplied symbolizer), from YAML, or from an
// indexed section; written by indexed_writer.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "format/bytes/flat_map.h"
#include "format/memprof/classify.h"
#include "format/memprof/data_access.h"
#include "format/memprof/frames.h"
#include "format/memprof/raw_layout.h"
#include "format/memprof/raw_reader.h"

namespace profkit::memprof {

struct AllocSite {
  uint32_t stack = 0;  // index in MemProfData::stacks
  MemInfoBlock mib;
  std::vector<uint64_t> histogram;  // raw access histogram (not stored in indexed files)
};

struct CallSite {
  uint32_t stack = 0;                  // index in MemProfData::stacks
  std::vector<uint64_t> callee_guids;  // v4 only; from YAML
};

struct Record {
  uint64_t guid = 0;
  std::vector<AllocSite> alloc_sites;
  std::vector<CallSite> call_sites;
};

// Records in creation order (C.9) and the stacks their sites refer to, in insertion order
// (allocation contexts, then call-site lists, for raw input).
struct MemProfData {
  std::vector<Record> records;
  StackTable stacks;
  std::map<uint64_t, std::string> names;  // GUID -> canonical name, when known (raw, YAML)
  DataAccessProfile data_access;          // v4 only; empty unless from YAML or a v4 file
};

// Where a frame's call (or allocation) is in the source, as DWARF names it.
struct SourceLocation {
  std::string file;   // empty when unknown
  uint32_t line = 0;  // absolute line; 0 when unknown
  uint32_t column = 0;
};

// The frames of one symbolized PC, innermost (most inlined) first; names[i] is the
// canonical linkage name of frames[i].function and sources[i] its source location (filled
// by symbolizers that know it, for reports; the indexed format does not store it).
struct SymbolizedPc {
  std::vector<Frame> frames;
  std::vector<std::string> names;
  std::vector<SourceLocation> sources;  // empty, or one per frame
};

// Returns the frames of a PC, or nullptr if the PC is dropped (D.3).
using PcSymbolizer = std::function<const SymbolizedPc*(uint64_t pc)>;

struct ConversionStats {
  uint64_t mibs = 0;               // merged MIBs in the input
  uint64_t dropped_mibs = 0;       // MIBs whose stack lost every PC
  uint64_t stacks_kept = 0;        // stacks with at least one symbolized PC
  uint64_t alloc_count_dropped = 0;  // Σ AllocCount of dropped MIBs
};

// Builds records from merged raw data (D.5, D.6, C.9). Fails like llvm-profdata when
// nothing symbolizes ("no entries in callstack map after symbolization").
Expected<MemProfData> records_from_raw(const MergedRaw& raw, const PcSymbolizer& symbolize,
                                       ConversionStats* stats = nullptr);
// The same, freeing each raw stack's PCs and each MIB's histogram once converted (lower
// peak memory for large profiles); `raw` keeps only its segments and version afterwards.
Expected<MemProfData> records_from_raw_consuming(MergedRaw&& raw, const PcSymbolizer& symbolize,
                                                 ConversionStats* stats = nullptr);

// Merges `in` into `out` record by record: allocation sites with the same context get their
// MIBs merged (A.8 rules), call sites are united. A context listed k times in a record
// (several PCs of one source location) pairs up in order: the i-th of `in` merges into the
// i-th of `out` (D.7). Beyond llvm-profdata, which keeps only the first memprof input.
void merge_into(MemProfData& out, const MemProfData& in);

// The six MemProf summary values (C.8).
struct MemProfSummary {
  uint64_t num_contexts = 0;
  uint64_t num_cold_contexts = 0;
  uint64_t num_hot_contexts = 0;
  uint64_t max_cold_total_size = 0;
  uint64_t max_warm_total_size = 0;
  uint64_t max_hot_total_size = 0;
  friend bool operator==(const MemProfSummary&, const MemProfSummary&) = default;
};

// Summary over distinct allocation contexts. `full_context_ids`: deduplicate by the hash of
// the frames without the inline flag (what `show` does for raw/YAML); otherwise by CallStackId.
MemProfSummary compute_summary(const MemProfData& data, bool full_context_ids = false,
                               const ClassifyOptions& options = {});

}  // namespace profkit::memprof
