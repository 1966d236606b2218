#include "profgen/unwinder.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>

#include "format/bytes/number_text.h"

namespace profkit::profgen {

template <class T>
void compress_recursion(std::vector<T>& c, int32_t max_size) {
  // For each run length from 1 up, a left-to-right pass over a window of two adjacent
  // runs: equal runs drop the second copy, otherwise the part of the right run that is not
  // a common suffix is kept and the window slides past it. Done in place, as llvm-profgen
  // does it (the in-place moves are part of what the later comparisons see).
  const uint64_t half = c.size() / 2;
  uint64_t max_dedup = max_size < 0 ? half : std::min<uint64_t>(static_cast<uint64_t>(max_size), half);
  for (uint64_t run = 1; run <= max_dedup; ++run) {
    int64_t right = static_cast<int64_t>(run) - 1;
    uint64_t end = run;
    int64_t left_boundary = 0;
    const int64_t r = static_cast<int64_t>(run);
    while (static_cast<uint64_t>(right + r) < c.size()) {
      int64_t left = right;
      while (left >= left_boundary && c[static_cast<size_t>(left)] == c[static_cast<size_t>(left + r)])
        --left;
      const bool duplicate = left < left_boundary;
      left_boundary = right + 1;
      if (duplicate) {
        right += r;
      } else {
        std::copy(c.begin() + right + 1, c.begin() + left + r + 1,
                  c.begin() + static_cast<int64_t>(end));
        end += static_cast<uint64_t>(left + r - right);
        right = left + r;
      }
    }
    std::copy(c.begin() + right + 1, c.end(), c.begin() + static_cast<int64_t>(end));
    end += c.size() - static_cast<uint64_t>(right) - 1;
    c.resize(end);
    max_dedup = std::min<uint64_t>(end / 2, max_dedup);
  }
}

template void compress_recursion(std::vector<uint64_t>&, int32_t);
template void compress_recursion(std::vector<sampleprof::Frame>&, int32_t);

bool same_inline_context(ProfiledBinary& binary, uint64_t a, uint64_t b) {
  const auto& x = binary.inline_stack(a);
  const auto& y = binary.inline_stack(b);
  if (x.size() != y.size() || x.empty()) return false;
  for (size_t i = 0; i + 1 < x.size(); ++i)
    if (x[i].function != y[i].function || x[i].line_offset != y[i].line_offset ||
        x[i].discriminator != y[i].discriminator)
      return false;
  return true;
}

namespace {

// Source frames of a stack of addresses (root first): each address's inline stack with
// base discriminators; the leaf frame's location is 0. Empty when any address has no
// line information.
void expand(ProfiledBinary& binary, const ContextOptions& options,
            const std::vector<uint64_t>& stack, CsCounter& key) {
  const bool fs = binary.uses_fs_discriminators();
  for (uint64_t a : stack) {
    const auto& frames = binary.inline_stack(a);
    if (frames.empty()) {
      key.frames.clear();
      key.leaf_was_inlined = false;
      return;
    }
    key.leaf_was_inlined = frames.size() > 1;
    for (const auto& f : frames)
      key.frames.push_back(sampleprof::Frame{
          sampleprof::FunctionId(f.function),
          sampleprof::LineLocation{f.line_offset, base_discriminator(f.discriminator, fs)}});
  }
  if (key.frames.empty()) return;
  sampleprof::Frame leaf = key.frames.back();
  leaf.location = {};
  key.frames.pop_back();
  compress_recursion(key.frames, options.compress_recursion);
  trim_context(key.frames, options.max_context_depth);
  key.frames.push_back(leaf);
}

}  // namespace

void make_context_key(ProfiledBinary& binary, const ContextOptions& options,
                      const std::vector<uint64_t>& stack, CsCounter& key) {
  key.addresses.clear();
  key.frames.clear();
  key.leaf_was_inlined = false;
  if (binary.uses_probes()) {
    key.addresses = stack;
    compress_recursion(key.addresses, options.compress_recursion);
    trim_context(key.addresses, options.max_context_depth);
  } else {
    expand(binary, options, stack, key);
  }
}

size_t ContextCounters::find_or_add(const CsCounter& key, bool* added) {
  id_.clear();
  auto put = [&](uint64_t v) { id_.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (uint64_t a : key.addresses) put(a);
  for (const auto& f : key.frames) {
    put(f.name.name.size());
    id_.append(f.name.name);
    put(f.location.line);
    put(f.location.discriminator);
  }
  auto [it, is_new] = index_.try_emplace(id_, counters_.size());
  if (added != nullptr) *added = is_new;
  if (is_new) counters_.push_back(CsCounter{key.addresses, key.frames, key.leaf_was_inlined, {}});
  else counters_[it->second].leaf_was_inlined |= key.leaf_was_inlined;
  return it->second;
}

std::vector<CsCounter> ContextCounters::take() {
  index_ = {};
  return std::move(counters_);
}

namespace {

// A frame of the call stack being unwound. Nodes, and the ranges and branches counted in
// them, live in buffers the unwinder reuses from sample to sample: a sample allocates
// nothing once they have grown.
struct FrameNode {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint64_t address = 0;
  FrameNode* parent = nullptr;
  FrameNode* first_child = nullptr;   // children in ascending address order
  FrameNode* next_sibling = nullptr;
  uint32_t first_record = kNone, last_record = kNone;  // into Unwinder::records_
};

// A range or branch counted in a frame; `next` links the records of one frame.
struct FrameRecord {
  uint64_t a = 0, b = 0, count = 0;
  uint32_t next = FrameNode::kNone;
  bool branch = false;
};

// Counts of (first, second) pairs while samples are unwound: added to an unsorted tail,
// sorted and summed into the sorted head when the tail has grown as long as the head. A
// std::map per context costs a cache miss per tree level on every add; this costs a
// sequential sort, and 24 bytes per pair instead of a 64-byte node.
class PairCounts {
 public:
  struct Item {
    uint64_t first, second, n;
    bool operator<(const Item& o) const {
      return first != o.first ? first < o.first : second < o.second;
    }
  };
  // `scratch`: a buffer for merging, shared by all counts.
  void add(uint64_t first, uint64_t second, uint64_t n, std::vector<Item>& scratch) {
    items_.push_back(Item{first, second, n});
    if (items_.size() - sorted_ >= std::max<size_t>(sorted_, 16)) compact(scratch);
  }
  template <class Fn>
  void for_each_pair(Fn fn) const {
    for (const Item& i : items_) fn(i.first, i.second);
  }
  // Moves the counts into `out` (summed with what it holds) and empties this.
  void move_to(RangeCounts& out, std::vector<Item>& scratch) {
    compact(scratch);
    for (const Item& i : items_) out[{i.first, i.second}] += i.n;
    items_ = {};
    sorted_ = 0;
  }

 private:
  void compact(std::vector<Item>& scratch) {
    const auto mid = items_.begin() + static_cast<int64_t>(sorted_);
    std::sort(mid, items_.end());
    scratch.clear();
    auto put = [&](const Item& i) {
      if (!scratch.empty() && scratch.back().first == i.first && scratch.back().second == i.second)
        scratch.back().n += i.n;
      else
        scratch.push_back(i);
    };
    auto a = items_.begin(), b = mid;
    while (a != mid && b != items_.end()) put(*b < *a ? *b++ : *a++);
    for (; a != mid; ++a) put(*a);
    for (; b != items_.end(); ++b) put(*b);
    items_.assign(scratch.begin(), scratch.end());
    sorted_ = items_.size();
  }
  std::vector<Item> items_;  // [0, sorted_) sorted and unique, then the unsorted tail
  size_t sorted_ = 0;
};

class Unwinder {
 public:
  Unwinder(ProfiledBinary& binary, const ContextOptions& options, UnwindStats& stats)
      : binary_(binary), options_(options), stats_total_(stats), stats_(&stats) {}

  // `count_stats`: false for a sample unwound before (its statistics are counted).
  void unwind(const PerfSample& sample, uint64_t repeat, bool count_stats) {
    used_ = 0;
    records_.clear();
    root_ = FrameNode{};
    cur_ = &root_;
    for (size_t i = sample.stack.size(); i-- > 0;) cur_ = child(cur_, sample.stack[i]);
    set_ip(sample.stack.front());
    invalid_ = false;
    stats_ = count_stats ? &stats_total_ : &stats_discarded_;
    const auto& lbr = sample.lbr;
    stats_->total_branches += lbr.size();
    for (size_t i = 0; i < lbr.size(); ++i) {
      const LbrEntry& e = lbr[i];
      if (i > 0) unwind_linear(e.target, repeat);
      if (is_call(e)) {
        FrameNode* parent = cur_->parent;
        if (parent == &root_ || parent->address != e.source) {
          switch_to(e.source);
          if (parent != &root_) {
            if (e.source == kExternalAddress) ++stats_->mismatched_external_call;
            else ++stats_->mismatched_prolog_epilog;
          }
        } else {
          cur_ = parent;
        }
        set_ip(e.source);
      } else if (is_return(e)) {
        switch_to(binary_.call_from_return_address(e.target));
        cur_ = child(cur_, e.source);
        set_ip(e.source);
      } else if (!invalid_) {
        switch_to(e.source);
        set_ip(e.source);
      } else {
        // The rest of this branch stack is unwound without the call stack.
        cur_ = &root_;
        set_ip(e.source);
        cur_ = child(cur_, ip_);
      }
      record_branch(e, repeat);
    }
    std::vector<uint64_t> stack;
    collect(&root_, stack);
  }

  void profiled_functions(std::set<uint32_t>& out) const {
    auto note = [&](uint64_t a) { note_profiled_address(binary_, a, out); };
    const std::vector<CsCounter>& counters = contexts_.counters();
    for (size_t i = 0; i < counters.size(); ++i) {
      for (uint64_t a : counters[i].addresses) note(a);
      pending_[i].ranges.for_each_pair([&](uint64_t start, uint64_t) { note(start); });
      pending_[i].branches.for_each_pair([&](uint64_t from, uint64_t to) {
        note(from);
        note(to);
      });
    }
  }

  std::vector<CsCounter> take() {
    std::vector<CsCounter>& counters = contexts_.counters();
    for (size_t i = 0; i < counters.size(); ++i) {
      pending_[i].ranges.move_to(counters[i].counter.ranges, scratch_);
      pending_[i].branches.move_to(counters[i].counter.branches, scratch_);
    }
    pending_.clear();
    scratch_ = {};
    return contexts_.take();
  }

 private:
  FrameNode* child(FrameNode* parent, uint64_t address) {
    FrameNode** link = &parent->first_child;
    while (*link != nullptr && (*link)->address < address) link = &(*link)->next_sibling;
    if (*link != nullptr && (*link)->address == address) return *link;
    if (used_ == nodes_.size()) nodes_.emplace_back();
    FrameNode& n = nodes_[used_++];
    n = FrameNode{};
    n.address = address;
    n.parent = parent;
    n.next_sibling = *link;
    *link = &n;
    return &n;
  }
  void record(FrameNode* node, uint64_t a, uint64_t b, uint64_t count, bool branch) {
    const auto at = static_cast<uint32_t>(records_.size());
    records_.push_back(FrameRecord{a, b, count, FrameNode::kNone, branch});
    if (node->last_record == FrameNode::kNone) node->first_record = at;
    else records_[node->last_record].next = at;
    node->last_record = at;
  }
  void record_range(FrameNode* node, uint64_t start, uint64_t end, uint64_t count) {
    if (start <= end) record(node, start, end, count, false);
  }
  void switch_to(uint64_t address) {
    if (cur_->address == address) return;
    cur_ = child(cur_->parent, address);
  }
  void set_ip(uint64_t address) { ip_ = address; }
  bool is_call(const LbrEntry& e) const {
    if (invalid_) return false;
    if (binary_.is_call(e.source)) return true;
    return e.source == kExternalAddress && binary_.call_from_return_address(e.target) == 0;
  }
  bool is_return(const LbrEntry& e) const {
    if (invalid_) return false;
    if (binary_.is_return(e.source)) return true;
    return e.source == kExternalAddress && binary_.call_from_return_address(e.target) != 0;
  }

  void unwind_linear(uint64_t target, uint64_t repeat) {
    uint64_t end = ip_;
    if (end == kExternalAddress && target == kExternalAddress) {
      ++stats_->paired_external;
      return;
    }
    if (end == kExternalAddress || target == kExternalAddress) {
      ++stats_->unpaired_external;
      invalid_ = true;
      return;
    }
    if (!binary_.valid_range(target, end)) {
      invalid_ = true;
      return;
    }
    if (binary_.uses_probes()) {
      record_range(cur_->parent, target, end, repeat);
      return;
    }
    // Split the range where the inline context changes: each piece belongs to the frame of
    // its own addresses.
    size_t index = binary_.lower_bound(ip_);
    while (ip_ > target) {
      const uint64_t prev = ip_;
      if (index == 0) {
        ip_ = 0;
        break;
      }
      --index;
      ip_ = binary_.instruction_address(index);
      if (!same_inline_context(binary_, prev, ip_)) {
        switch_to(prev);
        record_range(cur_, prev, end, repeat);
        end = ip_;
      }
    }
    switch_to(ip_);
    record_range(cur_, ip_, end, repeat);
  }

  void record_branch(const LbrEntry& e, uint64_t repeat) {
    if (e.target == kExternalAddress) return;
    if (e.source == kExternalAddress) {
      record(&root_, e.source, e.target, repeat, true);
      return;
    }
    FrameNode* at = binary_.uses_probes() ? cur_->parent : cur_;
    record(at, e.source, e.target, repeat, true);
  }

  void collect(FrameNode* node, std::vector<uint64_t>& stack) {
    if (node != &root_ && node->address == kExternalAddress) {
      // The context is cut at code outside the binary.
      std::vector<uint64_t> empty;
      collect_frame(node, empty);
      for (FrameNode* c = node->first_child; c != nullptr; c = c->next_sibling) collect(c, empty);
      if (node->first_child != nullptr) stats_->untracked_call_sites.insert(node->address);
      return;
    }
    if (node != &root_) stack.push_back(node->address);
    collect_frame(node, stack);
    for (FrameNode* c = node->first_child; c != nullptr; c = c->next_sibling) collect(c, stack);
    if (!stack.empty()) stack.pop_back();
  }

  void collect_frame(FrameNode* node, const std::vector<uint64_t>& stack) {
    if (node->first_record == FrameNode::kNone) return;
    make_context_key(binary_, options_, stack, key_);
    bool added = false;
    const size_t at = contexts_.find_or_add(key_, &added);
    if (added) pending_.emplace_back();
    Pending& c = pending_[at];
    for (uint32_t r = node->first_record; r != FrameNode::kNone; r = records_[r].next) {
      const FrameRecord& e = records_[r];
      (e.branch ? c.branches : c.ranges).add(e.a, e.b, e.count, scratch_);
    }
  }

  ProfiledBinary& binary_;
  const ContextOptions& options_;
  UnwindStats& stats_total_;
  UnwindStats stats_discarded_;
  UnwindStats* stats_;
  std::deque<FrameNode> nodes_;  // [0, used_) are this sample's frames (pointers stay valid)
  size_t used_ = 0;
  std::vector<FrameRecord> records_;
  FrameNode root_;
  FrameNode* cur_ = nullptr;
  uint64_t ip_ = 0;
  bool invalid_ = false;
  ContextCounters contexts_;
  struct Pending {
    PairCounts ranges, branches;
  };
  std::vector<Pending> pending_;  // the counts of contexts_.counters()[i], until take()
  std::vector<PairCounts::Item> scratch_;
  CsCounter key_;  // scratch: the context being collected
};

}  // namespace

struct ContextUnwinder::Impl {
  Impl(ProfiledBinary& binary, const ContextOptions& options, UnwindStats& stats)
      : unwinder(binary, options, stats) {}
  Unwinder unwinder;
};

ContextUnwinder::ContextUnwinder(ProfiledBinary& binary, const ContextOptions& options,
                                 UnwindStats& stats)
    : impl_(std::make_unique<Impl>(binary, options, stats)) {}
ContextUnwinder::~ContextUnwinder() = default;

void ContextUnwinder::add(const std::vector<AggregatedSample>& samples,
                          const std::vector<bool>& first) {
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto& [sample, count] = samples[i];
    if (!sample.stack.empty() && !sample.lbr.empty())
      impl_->unwinder.unwind(sample, count, first[i]);
  }
}

std::vector<CsCounter> ContextUnwinder::take() { return impl_->unwinder.take(); }

void ContextUnwinder::profiled_functions(std::set<uint32_t>& functions) const {
  impl_->unwinder.profiled_functions(functions);
}

void warn_unwind(const UnwindStats& s, size_t contexts, const LineSink& warn) {
  warn_summary(warn, s.untracked_call_sites.size(), contexts,
               "of profiled contexts are truncated due to missing probe for call instruction.");
  warn_summary(warn, s.mismatched_external_call, s.total_branches,
               "of branches'source is a call instruction but doesn't match call frame stack, "
               "likely due to unwinding error of external frame.");
  warn_summary(warn, s.paired_external * 2, s.total_branches,
               "of branches containing paired external address.");
  warn_summary(warn, s.unpaired_external, s.total_branches,
               "of branches containing external address but doesn't have another external "
               "address to pair, likely due to interrupt jmp or broken perf script.");
  warn_summary(warn, s.mismatched_prolog_epilog, s.total_branches,
               "of branches'source is a call instruction but doesn't match call frame stack, "
               "likely due to frame in prolog/epilog.");
}

std::string context_text(const CsCounter& c, const ProfiledBinary& binary, OffsetBase base) {
  std::string s;
  if (binary.uses_probes()) {
    const uint64_t origin = offset_origin(binary, base);
    for (uint64_t a : c.addresses) {
      if (!s.empty()) s += " @ ";
      s += "0x";
      append_hex(s, a - origin);
    }
    return s;
  }
  for (size_t i = 0; i < c.frames.size(); ++i) {
    if (i > 0) s += " @ ";
    c.frames[i].name.append_to(s);
    if (i + 1 < c.frames.size()) {
      s += ':';
      c.frames[i].location.append_to(s);
    }
  }
  return s;
}

}  // namespace profkit::profgen
