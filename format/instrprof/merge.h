// Merging IR-PGO profiles the way `llvm-profdata merge` does (docs/formats/irpgo.md 3.7):
// records keyed by (name, FuncHash), weights, saturating adds, value-site merging,
// flags ORed, binary ids collected, temporal traces sampled.
//
// The result lists records in first-seen order (inputs in the order they were added,
// records in each input's order): the indexed writer derives LLVM 14's key order and the
// per-key hash order from it. Adding the same inputs in the same order always gives the
// same result, whatever threads were used to decode them.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/bytes/expected.h"
#include "format/bytes/flat_map.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/raw_reader.h"

namespace profkit::instrprof {

// The longest temporal-trace stream an input may claim (see Merger::add).
inline constexpr uint64_t kMaxTraceStreamSize = uint64_t{1} << 30;

struct MergeOptions {
  // LLVM 22 clamps merged counters at UINT64_MAX-2 (the two top values are pseudo counts)
  // and keeps pseudo-count records apart; LLVM 14 saturates at UINT64_MAX.
  bool llvm14_semantics = false;
  size_t trace_reservoir_size = 100;    // --temporal-profile-trace-reservoir-size
  size_t max_trace_length = 10000;      // --temporal-profile-max-trace-length
  // --keep-vtable-symbols: the result lists the vtable names the inputs define, in the
  // order llvm-profdata's writer holds them (each input's names as its reader's string set
  // iterates them, then the writer's set over all of them).
  bool keep_vtable_symbols = false;
};

// Called for each merge warning (counter mismatch, ...): source is the name the caller gave
// the input, function the record's name.
using MergeWarning =
    std::function<void(std::string_view source, std::string_view function, std::string_view message)>;

class Merger final : public RawSink {
 public:
  explicit Merger(MergeOptions options = {}, MergeWarning warn = {});

  // Adds every record of `profile` with its counts multiplied by `weight` (>= 1).
  // Fails (and adds nothing) when IR-level and front-end profiles are mixed.
  Expected<void> add(const Profile& profile, uint64_t weight, std::string_view source = {});
  // Fast path: decodes a raw profile straight into the merge (no intermediate Profile).
  // On error nothing of a failing input may be relied upon; callers stop merging.
  Expected<void> add_raw(Bytes data, uint64_t weight, RawReader& reader,
                         std::string_view source = {});
  size_t num_records() const { return records_.size(); }
  // How many raw images were taken in bulk (see Bulk below): for tests.
  size_t bulk_images() const { return bulk_images_; }

  // Folds `later` (which merged inputs that come after this one's) into this Merger: the
  // result equals merging all inputs in one Merger whenever neither was order_sensitive().
  // Used to merge contiguous chunks of inputs on several threads.
  Expected<void> absorb(Merger&& later);
  // True once something happened whose outcome depends on how inputs are grouped: a merge
  // warning, a weight other than 1, a value site cut at 255 entries, or repeated target
  // values. A caller that merged chunks in parallel then redoes the merge in one Merger.
  bool order_sensitive() const { return order_sensitive_; }
  // The merged profile; the Merger is left empty. name_refs, when given, receives the
  // NameRef (MD5 of the name) of each record (for IndexedWriteOptions::name_refs).
  Profile finish(std::vector<uint64_t>* name_refs = nullptr);

  // RawSink (used by add_raw).
  Expected<void> on_function(const RawFunction& f) override;
  void on_name_table(uint64_t fingerprint, std::span<const std::string_view> names,
                     std::span<const uint64_t> refs) override;
  bool on_image(const RawImage& image) override;
  void on_bulk_image(const RawImage& image) override;

 private:
  // The profile kind as llvm-profdata tracks it: the variant flags plus a front-end bit
  // that only a text profile's :fe line sets; a kind with neither (a front-end raw or
  // indexed profile, a text profile without kind lines) takes the next input's, and
  // front-end and IR kinds refuse each other.
  Expected<void> add_kind(uint64_t flags, bool front_end, std::string_view source);
  void add_info(const RawFileInfo& info, uint64_t weight);
  void add_traces(std::vector<TemporalTrace> traces, uint64_t stream_size, uint64_t weight);
  void sample_traces(std::vector<TemporalTrace> traces, uint64_t stream_size);
  void merge_into(uint32_t index, const RawFunction& src);
  void merge_values(uint32_t index, const RawFunction& src);
  void note_layout(const RawFunction& f, uint32_t index);
  void flush_bulk();
  void prefetch_sites(const RawFunction& f);
  void warn(std::string_view function, std::string_view message);

  MergeOptions options_;
  MergeWarning warn_;
  uint64_t weight_ = 1;
  std::string source_;
  bool have_kind_ = false;
  bool front_end_ = false;
  uint64_t flags_ = 0;
  std::vector<Record> records_;
  // Per record: 1 when its value sites are in ascending value order and still to be sorted
  // by count (see merge_into).
  std::vector<uint8_t> by_value_;
  std::vector<KeyPair> record_keys_;  // key (NameRef, FuncHash) of records_[i]
  // Per record: the fingerprint of the last name table in which its NameRef was seen to
  // name a function (0: none yet). A raw record whose NameRef its own image does not name
  // is merged by hash alone, as "", even where another image named that NameRef.
  std::vector<uint64_t> named_in_;
  uint64_t names_fp_ = 0;  // the current raw image's name table (0: not a raw image)
  FlatMapPair index_;  // record_keys_[i] -> i
  uint32_t next_ = 0;  // the record after the last one merged: the likely next match
  bool order_sensitive_ = false;
  struct TraceBatch {
    std::vector<TemporalTrace> traces;
    uint64_t stream_size;
  };
  std::vector<TraceBatch> trace_batches_;  // per input, sampled in input order by finish()
  std::vector<std::vector<uint8_t>> binary_ids_;
  std::vector<TemporalTrace> traces_;
  uint64_t trace_stream_size_ = 0;
  std::mt19937 rng_;  // default seed, as llvm-profdata's writer: same sampled traces
  std::unordered_set<uint64_t> name_tables_seen_;
  // Names the inputs define (name tables, extra_names) with their NameRefs, in first-seen
  // order and possibly repeated: finish() keeps the first of each that no record has.
  void add_vtable_names(std::span<const std::string> names);
  std::vector<std::string> vtable_names_;  // --keep-vtable-symbols, in insertion order
  std::vector<std::string> extra_names_;
  std::vector<uint64_t> extra_refs_;
  std::vector<ValueData> scratch_;
  std::vector<ValueData> merged_;
  // Raw images of one layout (RawImage::layout) after the first: their counters are summed
  // as whole sections and added to the records once (flush_bulk), which gives what adding
  // them record by record gives because the sums saturate (min(total, cap) in any order).
  // The first image of the layout maps each data record to its record here.
  struct Bulk {
    uint64_t layout = 0;
    bool usable = false;   // mapping complete so far, no warning, no pseudo-count record
    bool pending = false;  // counts/bitmap hold sums not yet added to the records
    std::vector<uint32_t> record;  // per data record (ordinal): index in records_
    std::vector<uint64_t> counter_at, bitmap_at;
    std::vector<uint64_t> counts;  // summed counter sections (weighted, saturating)
    std::vector<uint8_t> bitmap;   // ORed bitmap sections
  };
  Bulk bulk_;
  size_t bulk_images_ = 0;
};

// Convenience: merges `profiles` (weights[i] applies to profiles[i]; missing weights are 1).
Expected<Profile> merge_profiles(std::span<const Profile> profiles,
                                 std::span<const uint64_t> weights, MergeOptions options = {},
                                 MergeWarning warn = {});

// --sparse: whether a name's records are all zero (no non-zero counter or bitmap byte).
// Keeps names with at least one non-zero record and drops all records of the others.
void drop_zero_names(Profile& profile);

}  // namespace profkit::instrprof
