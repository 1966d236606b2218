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

// Instructions where the frame-pointer chain misses the running function's caller: the
// binary's prologs and epilogs (llvm-profgen's set), and the epilogs of tail calls, a jmp to
// another function's entry and the instruction before it (`pop %rbp; jmp f` as `pop %rbp;
// ret`).
std::vector<bool> frameless(const ProfiledBinary& b) {
  const size_t n = b.instruction_count();
  std::vector<bool> out(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (b.in_prolog_epilog(b.instruction_address(i))) out[i] = true;
    const uint8_t cls = b.instruction_class(i);
    const uint64_t target = b.jump_target(i);
    if ((cls & kInsnUncond) == 0 || (cls & kInsnBranch) == 0 || target == 0) continue;
    const FuncRange* to = b.func_range_at(target);
    const FuncRange* from = b.find_func_range(b.instruction_address(i));
    if (to == nullptr || !to->is_entry || (from != nullptr && from->function == to->function))
      continue;
    out[i] = true;
    if (i > 0) out[i - 1] = true;
  }
  return out;
}

}  // namespace

IpEstimator::IpEstimator(ProfiledBinary& binary, bool contexts)
    : binary_(binary),
      contexts_(contexts),
      leader_(leaders(binary)),
      frameless_(contexts ? frameless(binary) : std::vector<bool>()) {}

IpEstimator::~IpEstimator() = default;

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

// The instructions of a block a sample can be counted on: all of them, or with contexts
// those outside prologs and epilogs (samples there are left out).
uint64_t IpEstimator::block_length(size_t first, size_t last) const {
  if (!contexts_) return last - first + 1;
  uint64_t length = 0;
  for (size_t i = first; i <= last; ++i)
    if (!frameless_[i]) ++length;
  return length;
}

void IpEstimator::add(const std::vector<AggregatedSample>& samples) {
  const size_t n = binary_.instruction_count();
  for (const auto& [sample, count] : samples) {
    const auto& stack = sample.stack;
    if (stack.empty() || stack[0] == kExternalAddress) continue;
    if (contexts_) {
      add_context(sample, count);
      continue;
    }
    const auto [first, last] = block_of(stack[0]);
    if (first < n) root_.block_samples[first] += count;
    // In a prolog or epilog the frame pointer still (or again) names the caller's frame, so
    // the first caller frame is the caller's caller: that edge is not a call.
    const size_t first_edge = binary_.in_prolog_epilog(stack[0]) ? 2 : 1;
    for (size_t i = first_edge; i < stack.size(); ++i) {
      if (stack[i] == kExternalAddress || stack[i - 1] == kExternalAddress) continue;
      const uint64_t callee = function_entry(binary_, stack[i - 1]);
      if (callee != 0) root_.site_callees[stack[i]][callee] += count;
    }
  }
}

void IpEstimator::add_context(const PerfSample& sample, uint64_t count) {
  const auto& stack = sample.stack;  // the IP, then the callers' calls, innermost first
  // A sample in a prolog or epilog misses its caller's frame: neither its block nor its
  // first edge has a known context.
  const size_t at = binary_.lower_bound(stack[0]);
  const bool prolog = at < frameless_.size() && frameless_[at];
  // Code outside the binary (a callback called from libc) cuts the stack into pieces: a
  // frame's context is its callers up to the next frame outside.
  for (size_t begin = 0; begin < stack.size();) {
    size_t end = begin + 1;
    while (end < stack.size() && stack[end] != kExternalAddress) ++end;
    // context[j]: the group whose callers are stack[end - 1] down to stack[end - j], the
    // context of frame end - 1 - j.
    std::vector<Group*>& context = scratch_;
    context.clear();
    Group* g = &root_;
    context.push_back(g);
    for (size_t i = end - 1; i > begin; --i) {
      auto& slot = g->callers[stack[i]];
      if (!slot) slot = std::make_unique<Group>();
      g = slot.get();
      context.push_back(g);
    }
    const bool leaf = begin == 0;  // else stack[begin] calls out of the binary
    if (leaf && !prolog) {
      const auto [first, last] = block_of(stack[0]);
      if (first < binary_.instruction_count()) context[end - 1]->block_samples[first] += count;
    }
    for (size_t i = begin + (leaf && prolog ? 2 : 1); i < end; ++i) {
      const uint64_t callee = function_entry(binary_, stack[i - 1]);
      if (callee != 0) context[end - 1 - i]->site_callees[stack[i]][callee] += count;
    }
    begin = end + 1;
  }
}

std::map<size_t, IpEstimator::BlockCount> IpEstimator::block_counts(const Group& g) const {
  const size_t n = binary_.instruction_count();
  std::map<size_t, BlockCount> counts;
  for (const auto& [first, samples] : g.block_samples) {
    size_t last = first;
    while (last + 1 < n && !leader_[last + 1]) ++last;
    const uint64_t length = block_length(first, last);
    if (length == 0) continue;
    counts[first] = BlockCount{
        last, std::max<uint64_t>(1, (samples * kIpCountScale + length / 2) / length)};
  }
  return counts;
}

namespace {

// The calls from a site to each callee: the count in `counts` of its block `site_block` (1
// when it drew no sample of its own: a call on a stack ran) times the callee's share of the
// site's samples.
template <class Counts, class Fn>
void for_each_call(const std::map<uint64_t, uint64_t>& callees, const Counts& counts,
                   size_t site_block, Fn fn) {
  const auto counted = counts.find(site_block);
  const uint64_t calls = counted == counts.end() ? 1 : counted->second.estimate;
  uint64_t total = 0;
  for (const auto& [callee, samples] : callees) total += samples;
  for (const auto& [callee, samples] : callees)
    fn(callee, std::max<uint64_t>(1, (calls * samples + total / 2) / total));
}

}  // namespace

SampleCounter IpEstimator::finish() const {
  SampleCounter c;
  const auto counts = block_counts(root_);
  for (const auto& [first, block] : counts)
    c.ranges[{binary_.instruction_address(first), binary_.instruction_address(block.last)}] =
        block.estimate;
  for (const auto& [site, callees] : root_.site_callees)
    for_each_call(callees, counts, block_of(site).first,
                  [&](uint64_t callee, uint64_t n) { c.branches[{site, callee}] = n; });
  return c;
}

std::vector<CsCounter> IpEstimator::finish_contexts(const ContextOptions& options) {
  ContextCounters contexts;
  std::vector<uint64_t> stack;
  collect(root_, stack, options, contexts);
  return contexts.take();
}

CsCounter& IpEstimator::counter_for(const std::vector<uint64_t>& stack,
                                    const ContextOptions& options, ContextCounters& contexts) {
  make_context_key(binary_, options, stack, key_);
  return contexts.counters()[contexts.find_or_add(key_)];
}

// The counters of group `g` (callers `stack`, root first) and of the groups below it. Probe
// binaries key a context by its callers; the others by the source frames of its callers
// and of the code running, so a block is cut where its inline frames change, as the
// unwinder cuts ranges.
void IpEstimator::collect(const Group& g, std::vector<uint64_t>& stack,
                          const ContextOptions& options, ContextCounters& contexts) {
  const bool probes = binary_.uses_probes();
  const auto address = [&](size_t i) { return binary_.instruction_address(i); };
  const auto counts = block_counts(g);
  for (const auto& [first, block] : counts) {
    const auto [last, estimate] = block;
    if (probes) {
      counter_for(stack, options, contexts).counter.ranges[{address(first), address(last)}] += estimate;
      continue;
    }
    size_t piece = first;
    for (size_t i = first + 1; i <= last + 1; ++i) {
      if (i <= last && same_inline_context(binary_, address(piece), address(i))) continue;
      stack.push_back(address(piece));
      counter_for(stack, options, contexts).counter.ranges[{address(piece), address(i - 1)}] += estimate;
      stack.pop_back();
      piece = i;
    }
  }
  for (const auto& [site, callees] : g.site_callees) {
    if (!probes) stack.push_back(site);
    SampleCounter& c = counter_for(stack, options, contexts).counter;
    for_each_call(callees, counts, block_of(site).first,
                  [&](uint64_t callee, uint64_t n) { c.branches[{site, callee}] += n; });
    if (!probes) stack.pop_back();
  }
  for (const auto& [call, caller] : g.callers) {
    stack.push_back(call);
    collect(*caller, stack, options, contexts);
    stack.pop_back();
  }
}

}  // namespace profkit::profgen
