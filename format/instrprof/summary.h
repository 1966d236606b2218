// The profile summary LLVM stores in indexed profiles and `show` prints: totals plus, for
// each cutoff (parts per million of the total count), the smallest count among the
// hottest counters that reach it. See docs/formats/irpgo.md 3.4 and 5.3.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "format/instrprof/profile.h"

namespace profkit::instrprof {

// The 16 cutoffs both releases store in indexed files, in parts per million.
inline constexpr std::array<uint32_t, 16> kDefaultCutoffs = {
    10000,  100000, 200000, 300000, 400000, 500000, 600000, 700000,
    800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999};

// The 7 cutoffs LLVM 14's `show --detailed-summary` prints.
inline constexpr std::array<uint32_t, 7> kLlvm14ShowCutoffs = {
    800000, 900000, 950000, 990000, 999000, 999900, 999990};

struct SummaryEntry {
  uint64_t cutoff = 0;      // parts per million
  uint64_t min_count = 0;   // smallest count among the counters that reach the cutoff
  uint64_t num_counts = 0;  // how many counters that takes
  friend bool operator==(const SummaryEntry&, const SummaryEntry&) = default;
};

struct Summary {
  uint64_t total_num_functions = 0;       // field 0
  uint64_t total_num_blocks = 0;          // field 1
  uint64_t max_function_count = 0;        // field 2: max Counts[0]
  uint64_t max_block_count = 0;           // field 3: max over all counters
  uint64_t max_internal_block_count = 0;  // field 4: max over Counts[1..]
  uint64_t total_block_count = 0;         // field 5: sum of all counters
  std::vector<SummaryEntry> detailed;
  friend bool operator==(const Summary&, const Summary&) = default;
};

// Accumulates records in any order; the result does not depend on the order.
class SummaryBuilder {
 public:
  // skip_pseudo_counts: LLVM 22 ignores records whose Counts[0] is a pseudo count.
  explicit SummaryBuilder(bool skip_pseudo_counts = true) : skip_pseudo_(skip_pseudo_counts) {}
  // totals_only: keep only the six totals (detailed entries from finish() are then empty);
  // skips the per-count histogram, which dominates when nobody prints the cutoffs.
  SummaryBuilder(bool skip_pseudo_counts, bool totals_only)
      : skip_pseudo_(skip_pseudo_counts), totals_only_(totals_only) {}

  void add_record(const Record& record);
  // The summary with one detailed entry per cutoff; `cutoffs` must be ascending.
  Summary finish(std::span<const uint32_t> cutoffs = kDefaultCutoffs) const;

 private:
  bool skip_pseudo_;
  bool totals_only_ = false;
  Summary totals_;
  // The counters seen, for the cutoffs: small values counted in a flat histogram, the others
  // listed and sorted by finish() (an ordered map was most of the indexed writer's time).
  static constexpr uint64_t kSmallCounts = 4096;
  std::vector<uint64_t> small_frequency_;  // [c] = how many counters equal c < kSmallCounts
  std::vector<uint64_t> large_counts_;     // counters >= kSmallCounts, in no order
};

}  // namespace profkit::instrprof
