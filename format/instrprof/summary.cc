// ProfileSummary computation, following LLVM's documented algorithm (spec 3.4).
#include "format/instrprof/summary.h"

#include <algorithm>

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
    if (!totals_only_) ++count_frequency_[c];
  }
}

Summary SummaryBuilder::finish(std::span<const uint32_t> cutoffs) const {
  Summary s = totals_;
  s.detailed.clear();
  s.detailed.reserve(cutoffs.size());
  unsigned __int128 sum = 0;
  uint64_t seen = 0;
  uint64_t last = 0;
  auto it = count_frequency_.begin();
  for (const uint32_t cutoff : cutoffs) {
    const unsigned __int128 desired =
        static_cast<unsigned __int128>(s.total_block_count) * cutoff / 1000000;
    while (sum < desired && it != count_frequency_.end()) {
      sum += static_cast<unsigned __int128>(it->first) * it->second;
      seen += it->second;
      last = it->first;
      ++it;
    }
    s.detailed.push_back({cutoff, last, seen});
  }
  return s;
}

}  // namespace profkit::instrprof
