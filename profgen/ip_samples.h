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
//  * Contexts (finish_contexts). The same estimates per calling context: a sample's callers
//    (up to the innermost frame outside the binary) are the context of its block, and the
//    callers above a caller frame the context of that call. A sample in a prolog or epilog
//    (also a tail call's: `pop %rbp; jmp f`) has no known context (its caller frame is
//    missing): it is left out, and the block's length counts only its other instructions,
//    so the estimate stays unbiased.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/perf_script.h"
#include "profgen/unwinder.h"

namespace profkit::profgen {

inline constexpr uint64_t kIpCountScale = 64;

class IpEstimator {
 public:
  // `contexts`: keep the counts per calling context (finish_contexts), else one set
  // (finish).
  IpEstimator(ProfiledBinary& binary, bool contexts = false);
  ~IpEstimator();
  void add(const std::vector<AggregatedSample>& samples);
  SampleCounter finish() const;
  std::vector<CsCounter> finish_contexts(const ContextOptions& options);

 private:
  // The samples of one calling context: the blocks they landed in, and the callees the
  // context's call sites were calling.
  struct Group {
    std::map<size_t, uint64_t> block_samples;  // first instruction -> samples
    std::map<uint64_t, std::map<uint64_t, uint64_t>> site_callees;  // call -> callee -> n
    std::map<uint64_t, std::unique_ptr<Group>> callers;  // a deeper context per call address
  };
  std::pair<size_t, size_t> block_of(uint64_t address) const;  // instruction indices
  uint64_t block_length(size_t first, size_t last) const;
  struct BlockCount {
    size_t last;        // the block's last instruction
    uint64_t estimate;  // its executions, in kIpCountScale units
  };
  std::map<size_t, BlockCount> block_counts(const Group& g) const;  // by first instruction
  void add_context(const PerfSample& sample, uint64_t count);
  void collect(const Group& g, std::vector<uint64_t>& stack, const ContextOptions& options,
               ContextCounters& contexts);
  CsCounter& counter_for(const std::vector<uint64_t>& stack, const ContextOptions& options,
                         ContextCounters& contexts);

  ProfiledBinary& binary_;
  bool contexts_;
  std::vector<bool> leader_;
  std::vector<bool> frameless_;  // with contexts: instructions whose samples are left out
  Group root_;  // the context-free counts, or the root of the contexts
  std::vector<Group*> scratch_;  // add_context's path of groups
  CsCounter key_;                // counter_for's key
};

}  // namespace profkit::profgen
