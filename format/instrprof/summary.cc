// ProfileSummary computation, following LLVM's documented algorithm (docs/formats/irpgo.md 3.4).
#include "format/instrprof/summary.h"

#include <algorithm>
#include <functional>

namespace profkit::instrprof {

void SummaryBuilder::add_record(const Record& record) {
  if (record.counts.empty()) return;
  if (skip_pseudo_ && (record.counts[0] == kPseudoHot || record.counts[0] == kPseudoWarm))
    return;
  ++totals_.total_num_functions;
  totals_.total_num_blocks += record.counts.size();
  for (size_t i = 0; i < record.counts.size(); ++i) {
    const uint64_t c = record.counts[i];
    if (i == 0) {
      totals_.max_function_count = std::max(totals_.max_function_count, c);
    } else {
      totals_.max_internal_block_count = std::max(totals_.max_internal_block_count, c);
    }
    totals_.max_block_count = std::max(totals_.max_block_count, c);
    totals_.total_block_count += c;  // wraps like LLVM's uint64_t sum
    if (totals_only_) continue;
    if (c < kSmallCounts) {
      if (small_frequency_.empty()) small_frequency_.assign(kSmallCounts, 0);
      ++small_frequency_[c];
    } else {
      large_counts_.push_back(c);
    }
  }
}

Summary SummaryBuilder::finish(std::span<const uint32_t> cutoffs) const {
  Summary s = totals_;
  s.detailed.clear();
  s.detailed.reserve(cutoffs.size());
  // Distinct counter values from the largest down, each with how many counters hold it.
  std::vector<uint64_t> large = large_counts_;
  std::sort(large.begin(), large.end(), std::greater<>());
  size_t large_at = 0;
  uint64_t small_at = small_frequency_.empty() ? 0 : kSmallCounts;  // next value: small_at - 1
  auto next = [&](uint64_t& value, uint64_t& frequency) {
    if (large_at < large.size()) {
      value = large[large_at];
      frequency = 0;
      while (large_at < large.size() && large[large_at] == value) ++frequency, ++large_at;
      return true;
    }
    while (small_at > 0 && small_frequency_[small_at - 1] == 0) --small_at;
    if (small_at == 0) return false;
    --small_at;
    value = small_at;
    frequency = small_frequency_[small_at];
    return true;
  };
  // The running sum wraps at 2^64 as LLVM's does: with counts near 2^64 the total and the
  // sum both wrap, and LLVM's entries (hence the thresholds built on them) follow.
  uint64_t sum = 0;
  uint64_t seen = 0;
  uint64_t last = 0;
  bool more = true;
  for (const uint32_t cutoff : cutoffs) {
    const unsigned __int128 desired =
        static_cast<unsigned __int128>(s.total_block_count) * cutoff / 1000000;
    uint64_t value = 0, frequency = 0;
    while (sum < desired && more && (more = next(value, frequency))) {
      sum += value * frequency;
      seen += frequency;
      last = value;
    }
    s.detailed.push_back({cutoff, last, seen});
  }
  return s;
}

}  // namespace profkit::instrprof
