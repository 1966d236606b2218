#include "profgen/preinliner.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <list>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "symbolize/source_map.h"

namespace profkit::profgen {

namespace {

using sampleprof::Frame;
using sampleprof::FunctionId;
using sampleprof::FunctionSamples;
using sampleprof::LineLocation;

// What happened to a context's profile (bits, accumulated).
enum State : uint32_t {
  kRaw = 1,        // as generated
  kSynthetic = 2,  // created or moved by a promotion
  kInlined = 4,    // the pre-inliner inlines this context
  kMerged = 8,     // merged into its base profile
};

// ---- machine-code size of inline contexts ----------------------------------------------
// A reversed trie: function -> caller at call site -> ...; a node's size is the bytes of
// the instructions whose inline stack ends with that chain.
struct SizeNode {
  std::map<uint64_t, std::unique_ptr<SizeNode>> children;
  std::optional<uint32_t> size;

  SizeNode* find(LineLocation site, FunctionId name) {
    auto it = children.find(context_node_hash(name, site));
    return it == children.end() ? nullptr : it->second.get();
  }
  SizeNode* child(LineLocation site, uint64_t name_hash) {
    auto& slot = children[context_node_hash(name_hash, site)];
    if (!slot) slot = std::make_unique<SizeNode>();
    return slot.get();
  }
};

class ContextSizes {
 public:
  // `context`: outermost frame first; the innermost frame's location is ignored.
  // Returns the node, so that a run of instructions with one inline stack can add to it.
  SizeNode* add(const std::vector<Frame>& context, uint32_t bytes) {
    SizeNode* n = &root_;
    bool leaf = true;
    for (size_t i = context.size(); i-- > 0;) {
      n = n->child(leaf ? LineLocation{} : context[i].location, hashes_(context[i].name));
      leaf = false;
    }
    n->size = n->size.value_or(0) + bytes;
    return n;
  }

  // The size of a profile context (a node of the context trie): the longest matching
  // chain of callers that has a size; else the first size found below the deepest match.
  uint32_t size_for(const TrieNode* node) {
    SizeNode* cur = &root_;
    SizeNode* prev = nullptr;
    std::optional<uint32_t> size;
    LineLocation site;
    while (cur != nullptr && node->parent != nullptr) {
      prev = cur;
      cur = cur->find(site, node->name);
      if (cur != nullptr && cur->size) size = *cur->size;
      site = node->call_site;
      node = node->parent;
    }
    if (!size) {
      if (cur == nullptr) cur = prev;
      while (!size && cur != nullptr && !cur->children.empty()) {
        cur = cur->children.begin()->second.get();
        if (cur->size) size = *cur->size;
      }
    }
    return size.value_or(0);
  }

 private:
  SizeNode root_;
  NameHashes hashes_;
};

bool same_stack(const std::vector<InlineFrame>& a, const std::vector<InlineFrame>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].function.data() != b[i].function.data() || a[i].function.size() != b[i].function.size() ||
        a[i].line_offset != b[i].line_offset || a[i].discriminator != b[i].discriminator)
      return false;
  return true;
}

// ---- the profiled call graph -----------------------------------------------------------
struct GraphNode;
struct Edge {
  GraphNode* source;
  GraphNode* target;
  uint64_t weight;
};
struct EdgeByTargetName {
  bool operator()(const Edge& a, const Edge& b) const;
};
struct GraphNode {
  FunctionId name;
  std::set<Edge, EdgeByTargetName> edges;
};
bool EdgeByTargetName::operator()(const Edge& a, const Edge& b) const {
  return sampleprof::compare(a.target->name, b.target->name) < 0;
}

class CallGraph {
 public:
  GraphNode* root() { return &root_; }

  void add_function(FunctionId name) {
    auto [it, added] = nodes_.try_emplace(name.hash(), nullptr);
    if (!added) return;
    GraphNode& n = list_.emplace_back();
    n.name = name;
    it->second = &n;
    root_.edges.insert(Edge{&root_, &n, 0});
  }

  void add_call(FunctionId caller, FunctionId callee, uint64_t weight) {
    auto c = nodes_.find(callee.hash());
    if (c == nodes_.end()) return;
    GraphNode* from = nodes_.at(caller.hash());
    Edge e{from, c->second, weight};
    auto [it, added] = from->edges.insert(e);
    if (!added) {
      e.weight += it->weight;
      from->edges.erase(it);
      from->edges.insert(e);
    }
  }

  void trim_cold(uint64_t threshold) {
    if (threshold == 0) return;
    for (auto& n : list_)
      for (auto it = n.edges.begin(); it != n.edges.end();)
        it = it->weight <= threshold ? n.edges.erase(it) : std::next(it);
  }

 private:
  GraphNode root_;
  std::list<GraphNode> list_;
  std::unordered_map<uint64_t, GraphNode*> nodes_;
};

// Strongly connected components from the root in completion order (Tarjan, iterative, as
// LLVM's scc_iterator visits them: children in edge order).
std::vector<std::vector<GraphNode*>> sccs(GraphNode* root) {
  std::vector<std::vector<GraphNode*>> out;
  std::unordered_map<GraphNode*, uint32_t> number;
  std::vector<GraphNode*> scc_stack;
  struct Visit {
    GraphNode* node;
    std::set<Edge, EdgeByTargetName>::const_iterator next;
    uint32_t min_visited;
  };
  std::vector<Visit> visits;
  uint32_t counter = 0;
  auto visit_one = [&](GraphNode* n) {
    ++counter;
    number[n] = counter;
    scc_stack.push_back(n);
    visits.push_back(Visit{n, n->edges.begin(), counter});
  };
  visit_one(root);
  while (!visits.empty()) {
    // Visit children.
    while (visits.back().next != visits.back().node->edges.end()) {
      GraphNode* c = visits.back().next->target;
      ++visits.back().next;
      auto seen = number.find(c);
      if (seen == number.end()) {
        visit_one(c);
        continue;
      }
      visits.back().min_visited = std::min(visits.back().min_visited, seen->second);
    }
    GraphNode* n = visits.back().node;
    const uint32_t min_visited = visits.back().min_visited;
    visits.pop_back();
    if (!visits.empty())
      visits.back().min_visited = std::min(visits.back().min_visited, min_visited);
    if (min_visited != number[n]) continue;
    std::vector<GraphNode*> scc;
    do {
      scc.push_back(scc_stack.back());
      scc_stack.pop_back();
      number[scc.back()] = ~0u;
    } while (scc.back() != n);
    out.push_back(std::move(scc));
  }
  return out;
}

// Members of an SCC ordered along a maximum spanning tree of its edges (heaviest first),
// roots first, then reversed (LLVM's scc_member_iterator).
std::vector<GraphNode*> order_members(const std::vector<GraphNode*>& members) {
  if (members.size() <= 1) return members;
  struct Info {
    Info* group = this;
    uint32_t rank = 0;
    bool visited = false;
    std::unordered_set<const Edge*> incoming;
  };
  std::unordered_map<GraphNode*, Info> info;
  for (GraphNode* n : members) info.try_emplace(n);
  auto find = [&](Info* i) {
    Info* root = i;
    while (root->group != root) root = root->group;
    while (i->group != root) {
      Info* next = i->group;
      i->group = root;
      i = next;
    }
    return root;
  };
  // Heaviest first; equal weights in insertion order.
  std::vector<const Edge*> sorted;
  for (GraphNode* n : members)
    for (const Edge& e : n->edges)
      if (info.count(e.target)) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Edge* a, const Edge* b) { return a->weight > b->weight; });
  std::unordered_set<const Edge*> tree;
  for (const Edge* e : sorted) {
    Info* a = find(&info[e->source]);
    Info* b = find(&info[e->target]);
    if (a == b) continue;
    if (a->rank < b->rank) {
      a->group = b;
    } else {
      b->group = a;
      if (a->rank == b->rank) ++a->rank;
    }
    tree.insert(e);
  }
  for (const Edge* e : tree) info[e->target].incoming.insert(e);
  std::queue<GraphNode*> queue;
  for (const Edge* e : sorted) {
    Info& i = info[e->source];
    if (!i.visited && i.incoming.empty()) {
      queue.push(e->source);
      i.visited = true;
    }
  }
  std::vector<GraphNode*> out;
  while (!queue.empty()) {
    GraphNode* n = queue.front();
    queue.pop();
    out.push_back(n);
    for (const Edge& e : n->edges) {
      Info& i = info[e.target];
      i.incoming.erase(&e);
      if (tree.count(&e) && i.incoming.empty()) queue.push(e.target);
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

struct Candidate {
  FunctionSamples* samples;
  uint64_t count;
  uint64_t size;
};
// Heap order: zero-size first, then hotter, then smaller, then the larger name MD5.
struct CandidateLess {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if ((a.size == 0 || b.size == 0) && a.size != b.size) return b.size == 0;
    if (a.count != b.count) return a.count < b.count;
    if (a.size != b.size) return a.size > b.size;
    return a.samples->name.hash() < b.samples->name.hash();
  }
};

// Fills the sizes of the inline contexts of the profiled functions from the binary.
class SizesBuilder {
 public:
  SizesBuilder(ProfiledBinary& binary, const PreInlinerOptions& options, ContextSizes& sizes)
      : binary_(binary), options_(options), sizes_(sizes) {}

  void run(const std::set<uint32_t>& profiled,
                     const std::function<void(std::string_view)>& warn) {
    if (!options_.use_context_cost) return;
    const bool probes = binary_.uses_probes();
    std::vector<Frame> frames;
    for (uint32_t f : profiled) {
      for (const auto& [start, end] : binary_.functions()[f].ranges) {
        size_t i = binary_.lower_bound(start);
        const uint64_t first = i < binary_.instruction_count() ? binary_.instruction_address(i)
                                                               : UINT64_MAX;
        if (first != start) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "Invalid start instruction at %8" PRIx64, start);
          warn(buf);
        }
        if (first >= end) continue;
        std::vector<InlineFrame> stack, previous;
        SizeNode* node = nullptr;
        for (; i < binary_.instruction_count() && binary_.instruction_address(i) < end; ++i) {
          binary_.inline_stack_uncached(binary_.instruction_address(i), stack);
          if (node != nullptr && same_stack(previous, stack)) {  // the same context
            node->size = *node->size + binary_.instruction_size(i);
            continue;
          }
          frames.clear();
          for (const InlineFrame& fr : stack) {
            LineLocation loc{fr.line_offset, fr.discriminator};
            if (probes) loc = LineLocation{dwarf::probe_index_from_discriminator(fr.discriminator), 0};
            frames.push_back(Frame{FunctionId(fr.function), loc});
          }
          node = sizes_.add(frames, binary_.instruction_size(i));
          previous.swap(stack);
        }
      }
      if (probes) mark_probe_contexts(binary_.functions()[f].name);
    }
  }


 private:
  // Probe binaries: inline contexts whose code was optimized away still have probes; they
  // count as known, with size 0.
  void mark_probe_contexts(std::string_view function) {
    const probe::ProbeMap& map = binary_.probes();
    // The last top-level record named so (as llvm-profgen's name -> record map keeps it).
    if (top_level_by_name_.empty())
      for (uint32_t i = 1; i < map.nodes().size(); ++i)
        if (map.nodes()[i].parent == 0) top_level_by_name_[map.name(map.nodes()[i].guid)] = i;
    auto found = top_level_by_name_.find(function);
    if (found == top_level_by_name_.end()) return;
    const uint32_t top = found->second;
    std::vector<std::pair<FunctionId, uint32_t>> context;
    mark(map, top, context);
  }
  void mark(const probe::ProbeMap& map, uint32_t node, std::vector<std::pair<FunctionId, uint32_t>>& context) {
    const auto& n = map.nodes()[node];
    context.emplace_back(FunctionId(map.name(n.guid)), 0);
    if (n.probe_count > 0) {
      std::vector<Frame> frames;
      for (const auto& [name, site] : context) frames.push_back(Frame{name, LineLocation{site, 0}});
      sizes_.add(frames, 0);
    }
    for (uint32_t c = n.first_child; c != probe::kNoIndex; c = map.nodes()[c].next_sibling) {
      context.back().second = map.nodes()[c].site;
      mark(map, c, context);
    }
    context.pop_back();
  }

  ProfiledBinary& binary_;
  const PreInlinerOptions& options_;
  ContextSizes& sizes_;
  std::unordered_map<std::string_view, uint32_t> top_level_by_name_;
};

class PreInliner {
 public:
  PreInliner(Trie& trie, ContextSizes& sizes, uint64_t cold, uint64_t ten_percent,
             const PreInlinerOptions& options)
      : trie_(trie), cold_(cold), ten_percent_(ten_percent), options_(options), sizes_(sizes) {}

  void run() {
    // Every profile is a raw context of its function.
    trie_.breadth_first([&](TrieNode* n) {
      if (n->samples == nullptr) return;
      state_[n->samples] |= kRaw;
      node_of_[n->samples] = n;
      by_function_[n->name.hash()].push_back(n->samples);
    });
    for (const FunctionId& name : top_down_order()) process(name);
    // Contexts not inlined were merged into their bases: only those stay.
    trie_.breadth_first([&](TrieNode* n) {
      if (n->samples != nullptr && n->parent != trie_.root() && n->parent != nullptr &&
          (state_[n->samples] & kInlined) == 0)
        n->samples = nullptr;
    });
  }

 private:
  uint64_t size_of(TrieNode* node) {
    if (options_.use_context_cost) return sizes_.size_for(node);
    return node->samples->body.size();
  }

  std::vector<FunctionId> top_down_order() {
    CallGraph graph;
    std::queue<TrieNode*> queue;
    for (auto& [key, c] : trie_.root()->children) {
      graph.add_function(c->name);
      queue.push(c.get());
    }
    while (!queue.empty()) {
      TrieNode* caller = queue.front();
      queue.pop();
      for (auto& [key, c] : caller->children) {
        TrieNode* callee = c.get();
        graph.add_function(callee->name);
        queue.push(callee);
        uint64_t weight = 0;
        if (callee->samples != nullptr && caller->samples != nullptr)
          weight = std::max(call_count(*caller->samples, callee->call_site, callee->samples->name),
                            callee->samples->head_estimate(true));
        graph.add_call(caller->name, callee->name, weight);
      }
    }
    graph.trim_cold(cold_);
    std::vector<FunctionId> order;
    for (const auto& scc : sccs(graph.root()))
      for (GraphNode* n : order_members(scc))
        if (n != graph.root()) order.push_back(n->name);
    std::reverse(order.begin(), order.end());
    return order;
  }

  static uint64_t call_count(const FunctionSamples& caller, LineLocation site, FunctionId callee) {
    auto it = caller.body.find(site);
    if (it == caller.body.end()) return 0;
    for (const auto& [t, n] : it->second.targets)
      if (t == callee) return n;
    return 0;
  }

  void process(FunctionId name) {
    FunctionSamples* base = base_samples(name);
    if (base == nullptr) return;
    const uint32_t size = static_cast<uint32_t>(size_of(node_of_[base]));
    uint32_t final_size = size;
    uint32_t limit = size * options_.growth_limit;
    limit = std::min(limit, options_.limit_max);
    limit = std::max(limit, options_.limit_min);
    std::priority_queue<Candidate, std::vector<Candidate>, CandidateLess> queue;
    add_candidates(queue, base);
    while (!queue.empty() && final_size < limit) {
      const Candidate c = queue.top();
      queue.pop();
      if (!should_inline(c)) continue;
      state_[c.samples] |= kInlined;
      c.samples->attributes |= sampleprof::kContextShouldBeInlined;
      final_size = static_cast<uint32_t>(final_size + c.size);
      add_candidates(queue, c.samples);
    }
  }

  void add_candidates(std::priority_queue<Candidate, std::vector<Candidate>, CandidateLess>& queue,
                      FunctionSamples* caller) {
    TrieNode* node = node_of_[caller];
    for (auto& [key, c] : node->children) {
      FunctionSamples* callee = c->samples;
      if (callee == nullptr) continue;
      const uint64_t entry = callee->head_estimate(true);
      const uint64_t calls = call_count(*caller, c->call_site, callee->name);
      queue.push(Candidate{callee, std::max(calls, entry), size_of(c.get())});
    }
  }

  bool should_inline(const Candidate& c) const {
    const bool was_inlined = (c.samples->attributes & sampleprof::kContextWasInlined) != 0;
    if (options_.replay) return was_inlined;
    // A cold call is inlined only when smaller than the cold threshold (0 by default: never).
    if (c.count <= cold_) return c.size < options_.cold_callsite_threshold;
    // Hot: the threshold grows linearly with hotness normalized to [0, 1] between the cold
    // threshold and the count at the 10% cutoff. It is a whole number, one above the hot
    // share plus the cold threshold (so that a threshold of 0 still lets hot calls in),
    // multiplied for calls the binary inlined, and the candidate must be smaller: as
    // llvm-profgen computes it (a truncation to unsigned, then unsigned arithmetic).
    const double upper = static_cast<double>(ten_percent_);
    const double lower = static_cast<double>(cold_);
    double hotness = (static_cast<double>(c.count) - lower) / (upper - lower);
    if (hotness > 1.0) hotness = 1.0;
    const double share = static_cast<double>(options_.hot_callsite_threshold) * hotness * 100 +
                         static_cast<double>(options_.cold_callsite_threshold) + 1;
    uint32_t threshold = share <= 0 ? 0
                         : share >= 9.0e18 ? UINT32_MAX
                                           : static_cast<uint32_t>(static_cast<int64_t>(share));
    if (was_inlined) threshold *= options_.multiplier_for_inlined;
    return c.size < threshold;
  }

  // The base (context-less) profile of a function: its non-inlined contexts promoted to
  // the top level and merged there.
  FunctionSamples* base_samples(FunctionId name) {
    TrieNode* node = trie_.root()->find(LineLocation{}, name);
    auto it = by_function_.find(name.hash());
    if (it != by_function_.end()) {
      const std::vector<FunctionSamples*> profiles = it->second;
      for (FunctionSamples* s : profiles) {
        if (state_[s] & (kInlined | kMerged)) continue;
        TrieNode* from = node_of_[s];
        if (from == node) continue;
        node = promote(from, trie_.root());
      }
    }
    return node != nullptr ? node->samples : nullptr;
  }

  TrieNode* promote(TrieNode* from, TrieNode* to_parent) {
    const bool to_root = to_parent == trie_.root();
    const LineLocation site = to_root ? LineLocation{} : from->call_site;
    const LineLocation old_site = from->call_site;
    TrieNode* from_parent = from->parent;
    TrieNode* to = to_parent->find(site, from->name);
    std::unique_ptr<TrieNode> owned;
    if (to == nullptr) {
      // Move the subtree.
      auto slot = from_parent->children.find(context_node_hash(from->name, old_site));
      owned = std::move(slot->second);
      from_parent->children.erase(slot);
      owned->call_site = site;
      owned->parent = to_parent;
      to = owned.get();
      to_parent->children[context_node_hash(to->name, site)] = std::move(owned);
      std::queue<TrieNode*> queue;
      queue.push(to);
      while (!queue.empty()) {
        TrieNode* n = queue.front();
        queue.pop();
        if (n->samples != nullptr) {
          node_of_[n->samples] = n;
          state_[n->samples] |= kSynthetic;
        }
        for (auto& [key, c] : n->children) queue.push(c.get());
      }
      return to;
    }
    merge_node(from, to);
    std::vector<TrieNode*> children;
    for (auto& [key, c] : from->children) children.push_back(c.get());
    for (TrieNode* c : children) promote(c, to);
    from->children.clear();
    if (to_root) from_parent->children.erase(context_node_hash(from->name, old_site));
    return to;
  }

  void merge_node(TrieNode* from, TrieNode* to) {
    if (from->samples != nullptr && to->samples != nullptr) {
      (void)to->samples->merge(*from->samples);
      state_[to->samples] |= kSynthetic;
      state_[from->samples] |= kMerged;
      if (from->samples->attributes & sampleprof::kContextShouldBeInlined)
        to->samples->attributes |= sampleprof::kContextShouldBeInlined;
    } else if (from->samples != nullptr) {
      to->samples = from->samples;
      node_of_[to->samples] = to;
      state_[to->samples] |= kSynthetic;
    }
  }

  Trie& trie_;
  uint64_t cold_;
  uint64_t ten_percent_;
  const PreInlinerOptions& options_;
  ContextSizes& sizes_;
  std::unordered_map<const FunctionSamples*, uint32_t> state_;
  std::unordered_map<const FunctionSamples*, TrieNode*> node_of_;
  std::unordered_map<uint64_t, std::vector<FunctionSamples*>> by_function_;
};

}  // namespace

struct PreInlinerSizes::Impl {
  ContextSizes sizes;
};

PreInlinerSizes::PreInlinerSizes(ProfiledBinary& binary, const std::set<uint32_t>& profiled,
                                 const PreInlinerOptions& options,
                                 const std::function<void(std::string_view)>& warn)
    : impl_(std::make_unique<Impl>()) {
  SizesBuilder(binary, options, impl_->sizes).run(profiled, warn);
}
PreInlinerSizes::PreInlinerSizes(PreInlinerSizes&&) noexcept = default;
PreInlinerSizes& PreInlinerSizes::operator=(PreInlinerSizes&&) noexcept = default;
PreInlinerSizes::~PreInlinerSizes() = default;

void preinline(Trie& trie, PreInlinerSizes& sizes, uint64_t cold, uint64_t ten_percent,
               const PreInlinerOptions& options) {
  PreInliner(trie, sizes.impl_->sizes, cold, ten_percent, options).run();
}

}  // namespace profkit::profgen
