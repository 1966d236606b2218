// The symbolized memprof model: per-function records of allocation sites (context + MIB)
// and call sites, as the indexed format stores them (docs/formats/memprof.md C, D.4-D.6).
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

// Distinct frames and call stacks, in first-insertion order, keyed as llvm-profdata keys
// its Frames and CallStacks maps (C.9): by FrameId and by CallStackId, so a second frame or
// stack with an id already present maps to the first one. Sites refer to stacks by index:
// a context costs 4 bytes per frame, once, instead of a 24-byte Frame per frame per site,
// and the indexed writer uses these tables as they are (the insertion order of stacks is
// what decides the v2 call-stack table's chain order; of frames, the v2 frame table's).
class StackTable {
 public:
  // A stack's frames, leaf first, as a range of `const Frame&`.
  class View {
   public:
    class iterator {
     public:
      using value_type = Frame;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      iterator(const uint32_t* at, const Frame* frames) : at_(at), frames_(frames) {}
      const Frame& operator*() const { return frames_[*at_]; }
      const Frame* operator->() const { return &frames_[*at_]; }
      iterator& operator++() {
        ++at_;
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++at_;
        return old;
      }
      friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }

     private:
      const uint32_t* at_ = nullptr;
      const Frame* frames_ = nullptr;
    };
    View(std::span<const uint32_t> indices, const Frame* frames)
        : indices_(indices), frames_(frames) {}
    size_t size() const { return indices_.size(); }
    bool empty() const { return indices_.empty(); }
    const Frame& operator[](size_t i) const { return frames_[indices_[i]]; }
    const Frame& front() const { return frames_[indices_.front()]; }
    iterator begin() const { return {indices_.data(), frames_}; }
    iterator end() const { return {indices_.data() + indices_.size(), frames_}; }
    CallStack to_vector() const { return CallStack(begin(), end()); }

   private:
    std::span<const uint32_t> indices_;
    const Frame* frames_;
  };

  // Interns a frame; returns its dense index. `id` must be frame_id(frame).
  uint32_t add_frame(const Frame& frame);
  uint32_t add_frame(const Frame& frame, uint64_t id);
  // Interns a stack given as frame indices (leaf first); returns its dense index.
  uint32_t add_stack(std::span<const uint32_t> frame_indices);
  uint32_t add_stack(std::span<const Frame> frames);

  size_t num_frames() const { return frames_.size(); }
  size_t num_stacks() const { return stack_ids_.size(); }
  size_t num_stack_frames() const { return pool_.size(); }  // total over all stacks
  const Frame& frame(uint32_t f) const { return frames_[f]; }
  uint64_t frame_id(uint32_t f) const { return frame_ids_[f]; }
  uint64_t stack_id(uint32_t s) const { return stack_ids_[s]; }
  // Offset of stack s's first frame index in the concatenation of all stacks.
  uint64_t stack_begin(uint32_t s) const { return stack_begin_[s]; }
  std::span<const uint32_t> frame_indices(uint32_t s) const {
    return {pool_.data() + stack_begin_[s], pool_.data() + stack_begin_[s + 1]};
  }
  View stack(uint32_t s) const { return View(frame_indices(s), frames_.data()); }

  // Room for `stacks` more stacks of `frames` frames in all.
  void reserve(size_t stacks, size_t frames);
  // Frees the lookup maps once every stack is in (the next add rebuilds them).
  void drop_lookup();

 private:
  void rebuild_lookup();

  std::vector<Frame> frames_;                // dense frame index -> frame
  std::vector<uint64_t> frame_ids_;          // dense frame index -> FrameId
  FlatMap64 frame_by_id_;
  std::vector<uint32_t> pool_;               // frame indices of every stack, concatenated
  std::vector<uint64_t> stack_begin_{0};     // stack s is pool_[begin[s], begin[s + 1])
  std::vector<uint64_t> stack_ids_;          // dense stack index -> CallStackId
  FlatMap64 stack_by_id_;
  bool lookup_dropped_ = false;
  std::vector<uint64_t> scratch_ids_;
};

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

// A v4 data-access profile (docs/formats/memprof.md C.7.1, E.3; YAML input only). Symbol names
// are stored canonical (data_access_symbol_name); records and cold lists keep first-seen
// order, which is the order the payload stores them in.
struct DataAccessLocation {
  std::string file;
  uint32_t line = 0;
  friend bool operator==(const DataAccessLocation&, const DataAccessLocation&) = default;
};
struct DataAccessRecord {
  bool is_string_literal = false;  // true: `hash` names the string literal; else `symbol`
  std::string symbol;
  uint64_t hash = 0;
  uint64_t access_count = 0;
  std::vector<DataAccessLocation> locations;
  friend bool operator==(const DataAccessRecord&, const DataAccessRecord&) = default;
};
struct DataAccessProfile {
  std::vector<DataAccessRecord> records;      // symbols and hashes distinct
  std::vector<std::string> known_cold_symbols;  // distinct
  std::vector<uint64_t> known_cold_hashes;      // distinct
  bool empty() const {
    return records.empty() && known_cold_symbols.empty() && known_cold_hashes.empty();
  }
  friend bool operator==(const DataAccessProfile&, const DataAccessProfile&) = default;
};

// The name LLVM keys a data symbol by (InstrProfSymtab::getCanonicalName): cut at the first
// '.' after any ".__uniq." part, unless that '.' is the first character.
std::string_view data_access_symbol_name(std::string_view name);

// Merges `in` into `out`: records of the same symbol or hash get their access counts
// summed (saturating) and their locations united; new records, cold symbols and cold
// hashes are appended in their order. A name that becomes sampled stays cold if it was.
void merge_data_access(DataAccessProfile& out, const DataAccessProfile& in);

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
