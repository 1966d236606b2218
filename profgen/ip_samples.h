// Profiles without branch stacks (docs/profgen.md, "Samples without LBR"): sampled IPs and
// frame-pointer call stacks (`perf record -e cpu-clock -g`) turned into the range and
// branch counts the generators take, as estimates.
//
//  * Blocks. The binary's code is cut into straight-line blocks at function starts, direct
//    jump targets and after every jump or return (calls return, so they do not end a
//    block). All instructions of a block run equally often.
//  * Block counts. A time-based sample lands on an instruction with probability
//    proportional to how often it runs (instructions cost about the same), so a block's
//    execution count is estimated by its samples divided by its length. Counts are written
//    in units of 1/64 sample per instruction (kIpCountScale), and a sampled block counts at
//    least 1, so that no executed block looks unexecuted.
//  * Calls. Each caller frame of a stack is a call instruction that was active; the share of
//    a call site's stack samples that name callee F estimates the share of its calls going
//    to F (a sample in a prolog or epilog names its caller's caller: that first edge is left
//    out). The calls into F from that site are the site block's count times that share;
//    head samples follow from them as from LBR call branches.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/perf_script.h"

namespace profkit::profgen {

inline constexpr uint64_t kIpCountScale = 64;

class IpEstimator {
 public:
  explicit IpEstimator(const ProfiledBinary& binary);
  void add(const std::vector<AggregatedSample>& samples);
  SampleCounter finish() const;

 private:
  std::pair<size_t, size_t> block_of(uint64_t address) const;  // instruction indices
  const ProfiledBinary& binary_;
  std::vector<bool> leader_;
  std::map<size_t, uint64_t> block_samples_;  // first instruction -> samples
  std::map<uint64_t, std::map<uint64_t, uint64_t>> site_callees_;  // call -> callee -> n
};

}  // namespace profkit::profgen
