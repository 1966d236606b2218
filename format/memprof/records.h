// The symbolized memprof model: per-function records of allocation sites (context + MIB)
// and call sites, as the indexed format stores them (memprof-format.md C, D.4-D.6).
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
#include "format/memprof/raw_layout.h"
#include "format/memprof/raw_reader.h"

namespace profkit::memprof {

// One source-level frame (C.3). Serialized as u64, u32, u32, u8 (17 bytes).
struct Frame {
  uint64_t function = 0;     // GUID of the canonical linkage name
  uint32_t line_offset = 0;  // line - DW_AT_decl_line, u32 wrap-around
  uint32_t column = 0;
  bool is_inline = false;
  friend bool operator==(const Frame&, const Frame&) = default;
};
using CallStack = std::vector<Frame>;  // leaf first

// Canonical function name (D.4): strips ".llvm." and ".part." suffixes, keeps ".__uniq.".
std::string_view canonical_function_name(std::string_view name);
// GUID = low 64 bits of MD5(canonical name).
uint64_t function_guid(std::string_view name);

// BLAKE3 content hashes, truncated to 64 bits (C.3).
uint64_t frame_id(const Frame& frame);
uint64_t call_stack_id(std::span<const Frame> frames);
// The same id from already computed frame ids (leaf first).
uint64_t call_stack_id_from_frame_ids(std::span<const uint64_t> frame_ids);

struct AllocSite {
  CallStack call_stack;
  MemInfoBlock mib;
  std::vector<uint64_t> histogram;  // raw access histogram (not stored in indexed files)
};

struct CallSite {
  CallStack frames;
  std::vector<uint64_t> callee_guids;  // v4 only; from YAML
};

struct Record {
  uint64_t guid = 0;
  std::vector<AllocSite> alloc_sites;
  std::vector<CallSite> call_sites;
};

// Where a call stack lives in MemProfData::records: records[record].alloc_sites[site]
// .call_stack, or records[record].call_sites[site].frames when `call_site`.
struct StackRef {
  uint32_t record = 0;
  uint32_t site = 0;
  bool call_site = false;
  friend bool operator==(const StackRef&, const StackRef&) = default;
};

// Records in creation order (C.9). `stack_order` is the insertion order of distinct call
// stacks (allocation contexts, then call-site lists), as references into `records` (a
// profile's stacks are not stored twice); it decides the v2 call-stack table's chain order.
// Empty means "derive from the records" (each record: allocs, then calls).
struct MemProfData {
  std::vector<Record> records;
  std::vector<StackRef> stack_order;
  std::map<uint64_t, std::string> names;  // GUID -> canonical name, when known (raw, YAML)

  const CallStack& stack(StackRef r) const {
    const Record& rec = records[r.record];
    return r.call_site ? rec.call_sites[r.site].frames : rec.alloc_sites[r.site].call_stack;
  }
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
// MIBs merged (A.8 rules), call sites are united. Beyond llvm-profdata, which keeps only the
// first memprof input (D.7).
void merge_into(MemProfData& out, const MemProfData& in);

// Classification of a context (G.2) with LLVM's default thresholds.
enum class AllocType { not_cold, cold, hot };
struct ClassifyOptions {
  float lifetime_access_density_cold_threshold = 0.05f;
  unsigned ave_lifetime_cold_threshold_s = 200;
  unsigned min_ave_lifetime_access_density_hot_threshold = 1000;
  bool use_hot_hints = false;
};
AllocType classify(const MemInfoBlock& mib, const ClassifyOptions& options = {});

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
