#include "profgen/ip_samples.h"

#include <algorithm>
#include <map>
#include <vector>

namespace profkit::profgen {

namespace {

// Block leaders: instruction indices where a block starts.
std::vector<bool> leaders(const ProfiledBinary& b) {
  const size_t n = b.instruction_count();
  std::vector<bool> leader(n, false);
  if (n > 0) leader[0] = true;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t cls = b.instruction_class(i);
    if ((cls & (kInsnBranch | kInsnReturn)) != 0 && i + 1 < n) leader[i + 1] = true;
    if (const uint64_t t = b.jump_target(i); t != 0) {
      const size_t j = b.lower_bound(t);
      if (j < n && b.instruction_address(j) == t) leader[j] = true;
    }
    // A gap between instructions (padding, data) ends a block too.
    if (i + 1 < n && b.instruction_address(i) + b.instruction_size(i) != b.instruction_address(i + 1))
      leader[i + 1] = true;
  }
  for (const auto& f : b.functions())
    for (const auto& [start, end] : f.ranges) {
      const size_t j = b.lower_bound(start);
      if (j < n) leader[j] = true;
      const size_t k = b.lower_bound(end);
      if (k < n) leader[k] = true;
    }
  return leader;
}

// The entry of the function containing `address`: the start of its entry range.
uint64_t function_entry(const ProfiledBinary& b, uint64_t address) {
  const FuncRange* r = b.find_func_range(address);
  if (r == nullptr) return 0;
  if (r->is_entry) return r->start;
  for (const auto& [start, end] : b.functions()[r->function].ranges)
    if (const FuncRange* e = b.func_range_at(start); e != nullptr && e->is_entry) return start;
  return 0;
}

}  // namespace

IpEstimator::IpEstimator(const ProfiledBinary& binary) : binary_(binary), leader_(leaders(binary)) {}

std::pair<size_t, size_t> IpEstimator::block_of(uint64_t address) const {
  const size_t n = binary_.instruction_count();
  size_t i = binary_.lower_bound(address);
  if (i >= n || binary_.instruction_address(i) != address) return {n, n};
  size_t first = i;
  while (!leader_[first]) --first;
  size_t last = i;
  while (last + 1 < n && !leader_[last + 1]) ++last;
  return {first, last};
}

void IpEstimator::add(const std::vector<AggregatedSample>& samples) {
  const size_t n = binary_.instruction_count();
  for (const auto& [sample, count] : samples) {
    const auto& stack = sample.stack;
    if (stack.empty() || stack[0] == kExternalAddress) continue;
    const auto [first, last] = block_of(stack[0]);
    if (first < n) block_samples_[first] += count;
    // In a prolog or epilog the frame pointer still (or again) names the caller's frame, so
    // the first caller frame is the caller's caller: that edge is not a call.
    const size_t first_edge = binary_.in_prolog_epilog(stack[0]) ? 2 : 1;
    for (size_t i = first_edge; i < stack.size(); ++i) {
      if (stack[i] == kExternalAddress || stack[i - 1] == kExternalAddress) continue;
      const uint64_t callee = function_entry(binary_, stack[i - 1]);
      if (callee != 0) site_callees_[stack[i]][callee] += count;
    }
  }
}

SampleCounter IpEstimator::finish() const {
  const size_t n = binary_.instruction_count();
  SampleCounter c;
  std::map<size_t, uint64_t> block_count;
  for (const auto& [first, samples] : block_samples_) {
    size_t last = first;
    while (last + 1 < n && !leader_[last + 1]) ++last;
    const uint64_t length = last - first + 1;
    const uint64_t estimate = std::max<uint64_t>(1, (samples * kIpCountScale + length / 2) / length);
    block_count[first] = estimate;
    c.ranges[{binary_.instruction_address(first), binary_.instruction_address(last)}] = estimate;
  }
  for (const auto& [site, callees] : site_callees_) {
    uint64_t total = 0;
    for (const auto& [callee, samples] : callees) total += samples;
    const auto [first, last] = block_of(site);
    auto counted = block_count.find(first);
    // A call on a stack ran, even when its block drew no sample of its own.
    const uint64_t calls = counted == block_count.end() ? 1 : counted->second;
    for (const auto& [callee, samples] : callees) {
      const uint64_t share = std::max<uint64_t>(1, (calls * samples + total / 2) / total);
      c.branches[{site, callee}] = share;
    }
  }
  return c;
}

}  // namespace profkit::profgen
