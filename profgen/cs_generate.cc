#include "profgen/cs_generate.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "format/bytes/hash.h"
#include "format/sampleprof/convert.h"
#include "profgen/context_trie.h"
#include "profgen/memory.h"

namespace profkit::profgen {

namespace {

using sampleprof::Frame;
using sampleprof::FunctionId;
using sampleprof::FunctionSamples;
using sampleprof::LineLocation;
using sampleprof::Profile;


// An open-addressing hash table from Key to V: no allocation per entry, so filling and
// freeing it cost a few large blocks instead of one node per entry. Key::empty() marks a
// free slot and is never a key.
template <class Key, class V>
class FlatTable {
 public:
  V* find(const Key& k) {
    if (slots_.empty()) return nullptr;
    for (size_t i = k.hash() & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.key == k) return &s.value;
      if (s.key == Key::empty()) return nullptr;
    }
  }
  V& operator[](const Key& k) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    for (size_t i = k.hash() & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.key == k) return s.value;
      if (s.key == Key::empty()) {
        s.key = k;
        ++size_;
        return s.value;
      }
    }
  }

 private:
  struct Slot {
    Key key = Key::empty();
    V value{};
  };
  size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.key == Key::empty()) continue;
      size_t i = s.key.hash() & mask();
      while (!(slots_[i].key == Key::empty())) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

inline uint64_t mix(uint64_t h) {
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

// Tail-call frames a frame-pointer stack cannot show (a jmp leaves no frame): between a
// call site and the next frame, the unique chain of sampled tail calls that leads there.
class MissingFrames {
 public:
  MissingFrames(const ProfiledBinary& binary, const std::vector<CsCounter>& counters,
                uint32_t max_depth)
      : binary_(binary), max_depth_(max_depth) {
    // Sampled edges replace the static ones: calls from call sites, and jumps from
    // tail-call sites (a direct jmp into another function, or an indirect jmp) that leave
    // their function range.
    std::unordered_map<uint64_t, std::set<uint64_t>> calls, tail_calls;
    for (const auto& c : counters) {
      for (const auto& [branch, n] : c.counter.branches) {
        const auto [from, to] = branch;
        const FuncRange* from_range = binary.find_func_range(from);
        if (from_range == nullptr) continue;  // static edges exist only inside functions
        const size_t i = binary.lower_bound(from);
        if (i >= binary.instruction_count() || binary.instruction_address(i) != from) continue;
        const uint8_t cls = binary.instruction_class(i);
        if (cls & kInsnCall) calls[from].insert(to);
        bool tail = false;
        if ((cls & kInsnBranch) && (cls & kInsnUncond) && binary.jump_target(i) != 0) {
          const FuncRange* t = binary.find_func_range(binary.jump_target(i));
          tail = t != nullptr && t->function != from_range->function;
        } else if (cls & kInsnIndirectJump) {
          tail = true;
        }
        if (tail && binary.find_func_range(to) != from_range) tail_calls[from].insert(to);
      }
    }
    for (const auto& [site, targets] : calls) {
      std::set<uint32_t> funcs;
      for (uint64_t t : targets)
        if (const FuncRange* r = binary.find_func_range(t)) funcs.insert(r->function);
      call_funcs_.emplace(site, std::vector<uint32_t>(funcs.begin(), funcs.end()));
    }
    // Per function, its tail-call sites in address order, each with its target functions
    // in ascending order (one array, indexed by function).
    const size_t nfunctions = binary.functions().size();
    tail_target_.assign(nfunctions, false);
    std::vector<std::vector<std::pair<uint64_t, std::vector<uint32_t>>>> by_function(nfunctions);
    for (const auto& [site, targets] : tail_calls) {
      std::set<uint32_t> funcs;
      for (uint64_t t : targets) {
        if (const FuncRange* r = binary.find_func_range(t)) {
          funcs.insert(r->function);
          tail_target_[r->function] = true;
        }
      }
      if (const FuncRange* r = binary.find_func_range(site))
        by_function[r->function].emplace_back(site, std::vector<uint32_t>(funcs.begin(), funcs.end()));
    }
    site_begin_.assign(nfunctions + 1, 0);
    for (size_t f = 0; f < nfunctions; ++f) {
      auto& sites = by_function[f];
      std::sort(sites.begin(), sites.end());
      site_begin_[f] = static_cast<uint32_t>(sites_.size());
      for (const auto& [site, funcs] : sites) {
        sites_.push_back(TailSite{site, static_cast<uint32_t>(site_funcs_.size()),
                                  static_cast<uint32_t>(funcs.size())});
        site_funcs_.insert(site_funcs_.end(), funcs.begin(), funcs.end());
      }
    }
    site_begin_[nfunctions] = static_cast<uint32_t>(sites_.size());
    visit_.assign(nfunctions, 0);
  }

  // Context (call addresses, then the leaf address) with inferred frames inserted.
  void infer(std::vector<uint64_t>& context) {
    if (context.size() <= 1) return;
    out_.clear();
    for (size_t i = 1; i < context.size(); ++i) infer_pair(context[i - 1], context[i], out_);
    out_.push_back(context.back());
    context.swap(out_);
  }

 private:
  // A piece of pool_.
  struct Span {
    uint32_t offset = 0;
    uint32_t size = 0;
  };
  // (call site, function reached)
  struct SiteKey {
    uint64_t site;
    uint32_t function;
    static SiteKey empty() { return {0, UINT32_MAX}; }
    bool operator==(const SiteKey&) const = default;
    uint64_t hash() const { return mix(site ^ (uint64_t{function} << 40) ^ function); }
  };
  // (function, function): never equal (a function reaches itself without a search)
  struct FunctionPair {
    uint32_t from, to;
    static FunctionPair empty() { return {0, 0}; }
    bool operator==(const FunctionPair&) const = default;
    uint64_t hash() const { return mix((uint64_t{from} << 32) | to); }
  };
  struct TailSite {
    uint64_t address;
    uint32_t first, count;  // its target functions: site_funcs_[first, first + count)
  };
  // The tail-call paths between two functions: none, several, or one, kept in pool_ as its
  // length then its addresses (12-byte table slots: there are millions).
  enum : uint32_t { kNoPath = 0, kSeveralPaths = 1, kPathAt = 2 };  // kPathAt + pool_ offset

  void infer_pair(uint64_t from, uint64_t to, std::vector<uint64_t>& path) {
    path.push_back(from);
    const FuncRange* to_range = binary_.find_func_range(to);
    if (to_range == nullptr) return;
    // The answer depends on the call site and the function reached only: remember it.
    if (const Span* memo = memo_.find(SiteKey{from, to_range->function})) {
      path.insert(path.end(), pool_.begin() + static_cast<int64_t>(memo->offset),
                  pool_.begin() + static_cast<int64_t>(memo->offset + memo->size));
      return;
    }
    const size_t pos = path.size();
    infer_pair_uncached(from, to_range->function, path);
    memo_[SiteKey{from, to_range->function}] = remember(path, pos);
  }

  void infer_pair_uncached(uint64_t from, uint32_t target, std::vector<uint64_t>& path) {
    const size_t pos = path.size();
    auto calls = call_funcs_.find(from);
    if (calls == call_funcs_.end()) return;
    // A direct target of the call site: nothing is missing (even when the same function is
    // also reached through a tail call from that site).
    const std::vector<uint32_t>& funcs = calls->second;
    if (std::binary_search(funcs.begin(), funcs.end(), target)) return;
    if (target >= tail_target_.size() || !tail_target_[target]) return;
    ++visit_epoch_;
    depth_ = 0;
    uint64_t paths = 0;
    for (uint32_t f : funcs) {
      paths += paths_from_function(f, target, path);
      if (paths > 1) break;
    }
    if (paths != 1) path.resize(pos);
  }

  uint64_t paths_from_function(uint32_t from, uint32_t to, std::vector<uint64_t>& path) {
    if (from == to) return 1;
    if (visit_[from] == visit_epoch_) return 0;  // on the current search path
    const FunctionPair pair{from, to};
    if (const uint32_t* known = paths_.find(pair)) {
      if (*known == kNoPath) return 0;
      if (*known == kSeveralPaths) return 2;  // callers only test != 1 and > 1
      const auto at = pool_.begin() + (*known - kPathAt);
      path.insert(path.end(), at + 1, at + 1 + static_cast<int64_t>(*at));
      return 1;
    }
    const size_t pos = path.size();
    if (depth_ == max_depth_) return 0;
    const uint32_t first = site_begin_[from], last = site_begin_[from + 1];
    if (first == last) return 0;
    ++depth_;
    visit_[from] = visit_epoch_;
    uint64_t paths = 0;
    for (uint32_t s = first; s < last; ++s) {
      paths += paths_from_site(sites_[s], to, path);
      if (paths > 1) break;
    }
    --depth_;
    visit_[from] = 0;
    if (paths != 1) path.resize(pos);
    uint32_t& known = paths_[pair];
    known = paths == 0 ? kNoPath : paths > 1 ? kSeveralPaths : kPathAt + static_cast<uint32_t>(pool_.size());
    if (paths == 1) {
      pool_.push_back(path.size() - pos);
      pool_.insert(pool_.end(), path.begin() + static_cast<int64_t>(pos), path.end());
    }
    return paths;
  }

  uint64_t paths_from_site(const TailSite& site, uint32_t to, std::vector<uint64_t>& path) {
    path.push_back(site.address);
    uint64_t paths = 0;
    for (uint32_t k = 0; k < site.count; ++k) {
      paths += paths_from_function(site_funcs_[site.first + k], to, path);
      if (paths > 1) break;
    }
    if (paths != 1) path.pop_back();
    return paths;
  }

  Span remember(const std::vector<uint64_t>& path, size_t pos) {
    const Span span{static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(path.size() - pos)};
    pool_.insert(pool_.end(), path.begin() + static_cast<int64_t>(pos), path.end());
    return span;
  }

  const ProfiledBinary& binary_;
  uint32_t max_depth_;
  uint32_t depth_ = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> call_funcs_;  // ascending
  std::vector<bool> tail_target_;       // per function
  std::vector<uint32_t> site_begin_;    // per function: its sites are sites_[begin[f], begin[f+1])
  std::vector<TailSite> sites_;
  std::vector<uint32_t> site_funcs_;
  // The functions on the current search path: marked with the search's epoch.
  std::vector<uint64_t> visit_;
  uint64_t visit_epoch_ = 0;
  std::vector<uint64_t> pool_;    // the remembered paths, end to end
  FlatTable<FunctionPair, uint32_t> paths_;  // tail-call paths between two functions
  FlatTable<SiteKey, Span> memo_;         // the frames inferred between a call site and a function
  std::vector<uint64_t> out_;
};

class Generator {
 public:
  Generator(ProfiledBinary& binary, std::vector<CsCounter>& counters, const CsOptions& options,
            const PostProcessOptions& post, const std::function<void(std::string_view)>& warn,
            std::optional<PreInlinerSizes> sizes)
      : binary_(binary), counters_(counters), options_(options), post_(post), warn_(warn),
        sizes_(std::move(sizes)) {
    // The functions with samples: a range start, a branch end or a context address in them.
    for (const auto& c : counters_) {
      for (uint64_t a : c.addresses) note_profiled_address(binary_, a, profiled_functions_);
      note_profiled_functions(binary_, c.counter, profiled_functions_);
    }
    for (uint32_t f : profiled_functions_)
      profiled_.insert(md5_name_ref(binary_.functions()[f].name));
  }

  Profile run() {
    // The pre-inliner's sizes are all a probe binary needs its line tables for: made first,
    // the tables leave memory before the profiles grow (when memory use peaks).
    std::optional<PreInlinerSizes>& sizes = sizes_;
    if (options_.preinliner && !sizes)
      sizes.emplace(binary_, profiled_functions_, options_.preinliner_options, warn_);
    if (binary_.uses_probes()) {
      binary_.drop_line_info();
      release_free_memory();
      if (options_.infer_missing_frames)
        missing_ = std::make_unique<MissingFrames>(binary_, counters_, options_.max_search_depth);
      for (auto& c : counters_) {
        probe_bodies(c);
        probe_branches(c);
        c = CsCounter{};  // done with it: free its counts
      }
      missing_.reset();  // its memos (tens of MB) are not needed by what follows
      node_cache_ = {};
      release_free_memory();
    } else {
      for (auto& c : counters_) {
        TrieNode* node = trie_.root();
        if (!c.frames.empty()) {
          node = trie_.path(c.frames);
          FunctionSamples& f = trie_.samples(node, c.leaf_was_inlined);
          line_bodies(f, c.counter.ranges);
        }
        line_branches(node, c.counter.branches);
        c.counter = SampleCounter{};  // done with it: free its counts
      }
      infer_callee_samples(trie_.root());
      Trie::for_each(trie_.root(), [&](TrieNode* n) {
        if (!n->samples) return;
        if (options_.update_total_samples) update_total_samples(*n->samples);
        update_callsite_samples(*n->samples);
      });
    }
    if (options_.preinliner) {
      const sampleprof::Summary summary = context_less_summary();
      const uint64_t cold = post_.cold_count ? *post_.cold_count
                                             : summary_threshold(summary, post_.cutoff_cold);
      preinline(trie_, *sizes, cold, summary_threshold(summary, 100000),
                options_.preinliner_options);
    }
    Profile profile = to_profile();
    profile.is_preinlined = options_.preinliner;
    return profile;
  }

 private:
  // The summary of every context merged into its function (merged in trie order, as the
  // summary of a CS profile merges its contexts).
  sampleprof::Summary context_less_summary() {
    std::vector<const FunctionSamples*> profiles;
    Trie::for_each(trie_.root(), [&](TrieNode* n) {
      if (n->samples != nullptr) profiles.push_back(n->samples);
    });
    return sampleprof::flat_summary(profiles);
  }

  // Line-based: per instruction of each disjoint piece, the innermost line takes the
  // largest count (x duplication factor); the total grows by the count.
  void line_bodies(FunctionSamples& f, const RangeCounts& ranges) {
    const bool fs = binary_.uses_fs_discriminators();
    for (const auto& [range, count] : make_disjoint(ranges)) {
      if (count == 0) continue;
      for (size_t i = binary_.lower_bound(range.first);
           i < binary_.instruction_count() && binary_.instruction_address(i) <= range.second;
           ++i) {
        const auto& stack = binary_.inline_stack(binary_.instruction_address(i));
        if (stack.empty()) continue;
        const uint32_t disc = stack.back().discriminator;
        const LineLocation loc{stack.back().line_offset, base_discriminator(disc, fs)};
        const uint64_t scaled = count * duplication_factor(disc, fs);
        auto found = f.body.find(loc);
        const uint64_t previous = found == f.body.end() ? 0 : found->second.samples;
        if (previous <= scaled) f.add_body(loc, scaled - previous);
        add_saturating(f.total, count);
      }
    }
  }

  // Calls: a target at the calling line, and head samples in the callee's context under
  // this one, keyed by the call's raw discriminator (as llvm-profgen does).
  void line_branches(TrieNode* node, const RangeCounts& branches) {
    const bool fs = binary_.uses_fs_discriminators();
    for (const auto& [branch, count] : branches) {
      const std::string_view callee = binary_.callee_name(branch.second);
      if (callee.empty()) continue;
      LineLocation site;
      if (node != trie_.root()) {
        const auto& stack = binary_.inline_stack(branch.first);
        if (!stack.empty()) {
          const auto& leaf = stack.back();
          node->samples->add_target(
              LineLocation{leaf.line_offset, base_discriminator(leaf.discriminator, fs)},
              FunctionId(callee), count);
          site = LineLocation{leaf.line_offset, leaf.discriminator};
        }
      }
      add_saturating(trie_.samples(node->child(site, FunctionId(callee))).head, count);
    }
  }

  // Contexts without head samples get a call count estimated from their body, at their
  // call site in the caller (inlined calls have no call branch). Post-order.
  void infer_callee_samples(TrieNode* node) {
    for (auto& [key, c] : node->children) infer_callee_samples(c.get());
    if (!node->samples || node->samples->head != 0) return;
    TrieNode* caller = node->parent;
    if (caller == nullptr || caller == trie_.root()) return;
    FunctionSamples& callee = *node->samples;
    uint64_t calls = callee.head_estimate(true);
    if (calls == 0 && callee.body.empty()) calls = 1;
    FunctionSamples& f = trie_.samples(caller);
    f.add_target(node->call_site, node->name, calls);
    f.add_body(node->call_site, calls);
    add_saturating(f.total, calls);
  }


  // The trie node of a probe in an address context: the call sites' probes (innermost
  // outwards, stopping at the first call without a probe), their inline frames, then the
  // probe's own inline frames; recursion compressed and the depth trimmed except for the
  // leaf.
  TrieNode* probe_node(const std::vector<uint64_t>& addresses, const probe::Probe& leaf) {
    const probe::ProbeMap& map = binary_.probes();
    std::vector<uint64_t>& context = context_;
    context.assign(addresses.begin(), addresses.end());
    if (missing_) {
      context.push_back(leaf.address);
      missing_->infer(context);
      context.pop_back();
    }
    std::vector<const probe::Probe*> calls;
    for (size_t i = context.size(); i-- > 0;) {
      const probe::Probe* call = map.call_probe_at(context[i]);
      if (call == nullptr || !decoded(*call)) break;
      calls.push_back(call);
    }
    std::vector<Frame> frames;
    for (size_t i = calls.size(); i-- > 0;) append_probe_frames(map, *calls[i], frames);
    append_probe_frames(map, leaf, frames);
    Frame last = frames.back();
    last.location = {};
    frames.pop_back();
    compress_recursion(frames, options_.context.compress_recursion);
    trim_context(frames, options_.context.max_context_depth);
    frames.push_back(last);
    const bool inlined = map.nodes()[leaf.node].parent != 0;
    TrieNode* node = trie_.path(frames);
    FunctionSamples& f = trie_.samples(node, inlined);
    f.checksum = binary_.probe_function_hash(map.nodes()[leaf.node].guid);
    return node;
  }

  // The trie node of a probe of inline node `n` in the current context (the leaf's probe
  // index does not matter: the leaf frame's location is dropped).
  TrieNode* cached_probe_node(const std::vector<uint64_t>& addresses, const probe::Probe& p) {
    auto [it, added] = node_cache_.try_emplace(p.node, nullptr);
    if (added) it->second = probe_node(addresses, p);
    return it->second;
  }

  void probe_bodies(const CsCounter& c) {
    const probe::ProbeMap& map = binary_.probes();
    node_cache_.clear();
    std::map<uint32_t, uint64_t> counts;  // probe position -> count
    // The probes at the instructions of each piece: the probes in its address range that
    // are at an instruction start (one search per piece, not two per instruction).
    for (const auto& [range, count] : make_disjoint(c.counter.ranges)) {
      if (range.second < range.first) continue;
      const uint64_t end = range.second == UINT64_MAX ? UINT64_MAX : range.second + 1;
      for (uint32_t at : map.find(range.first, end))
        if (binary_.is_code(map.probes()[at].address) && decoded(map.probes()[at]))
          counts[at] += count;
    }
    std::map<uint32_t, std::set<FunctionSamples*>> frame_profiles;  // inline node -> profiles
    for (const auto& [at, count] : counts) {
      const probe::Probe& p = map.probes()[at];
      if (p.type != static_cast<uint8_t>(probe::ProbeType::Block) || count == 0) continue;
      TrieNode* node = cached_probe_node(c.addresses, p);
      FunctionSamples& f = *node->samples;
      frame_profiles[p.node].insert(&f);
      f.add_body(LineLocation{p.index, p.discriminator}, count);
      add_saturating(f.total, count);
      if (p.index != 1) continue;
      add_saturating(f.head, count);
      // An inlined function's entry counts the call in its inliner's profile.
      const probe::Descriptor* inliner = map.inliner_descriptor(p);
      TrieNode* caller = node->parent;
      if (inliner == nullptr || caller == trie_.root()) continue;
      FunctionSamples& cf = trie_.samples(caller);
      cf.checksum = inliner->hash;
      cf.add_body(node->call_site, count);
      add_saturating(cf.total, count);
      cf.add_target(node->call_site, node->name, count);
    }
    // Unsampled probes of the sampled frames count 0 (unlike probes optimized away).
    for (const auto& [inline_node, profiles] : frame_profiles) {
      const auto& n = map.nodes()[inline_node];
      for (FunctionSamples* f : profiles) {
        for (uint32_t k = 0; k < n.probe_count; ++k) {
          const probe::Probe& p = map.probes()[n.first_probe + k];
          f->add_body(LineLocation{p.index, p.discriminator}, 0);
        }
        // Mostly complete now: the slack of the vector's growth would stay for good.
        f->body.shrink_to_fit();
      }
    }
  }

  void probe_branches(const CsCounter& c) {
    const probe::ProbeMap& map = binary_.probes();
    for (const auto& [branch, count] : c.counter.branches) {
      const probe::Probe* call = map.call_probe_at(branch.first);
      if (call == nullptr || !decoded(*call)) continue;
      FunctionSamples& f = *cached_probe_node(c.addresses, *call)->samples;
      f.add_body(LineLocation{call->index, 0}, count);
      add_saturating(f.total, count);
      const std::string_view callee = binary_.callee_name(branch.second);
      if (callee.empty()) continue;
      f.add_target(LineLocation{call->index, call->discriminator}, FunctionId(callee), count);
    }
  }

  // llvm-profgen decodes the probes of profiled functions only: those with a range start,
  // a branch end or a context address in them.
  bool decoded(const probe::Probe& p) {
    const probe::ProbeMap& map = binary_.probes();
    if (decoded_.empty()) decoded_.assign(map.nodes().size(), -1);
    int8_t& d = decoded_[p.node];
    if (d < 0) d = profiled_.count(map.nodes()[map.nodes()[p.node].top_level].guid) != 0;
    return d != 0;
  }

  // The trie as a CS profile: a depth-first walk, each node's profile before its children.
  Profile to_profile() {
    Profile profile;
    profile.is_cs = true;
    profile.is_probe_based = binary_.uses_probes();
    profile.is_fs = binary_.uses_fs_discriminators();
    std::vector<Frame> context;
    for (auto& [key, c] : trie_.root()->children) add(c.get(), context, profile);
    return profile;
  }
  void add(TrieNode* node, std::vector<Frame>& context, Profile& profile) {
    if (node->samples) {
      context.push_back(Frame{node->name, LineLocation{}});
      FunctionSamples f = std::move(*node->samples);
      node->samples = nullptr;
      f.context = context;
      const uint64_t key = sampleprof::context_key(f.context);
      profile.functions.emplace(key, std::move(f));
      context.pop_back();
    }
    for (auto& [key, c] : node->children) {
      context.push_back(Frame{node->name, c->call_site});
      add(c.get(), context, profile);
      context.pop_back();
    }
  }

  ProfiledBinary& binary_;
  std::vector<CsCounter>& counters_;
  const CsOptions& options_;
  const PostProcessOptions& post_;
  const std::function<void(std::string_view)>& warn_;
  Trie trie_;
  std::unique_ptr<MissingFrames> missing_;
  std::set<uint32_t> profiled_functions_;  // indices into binary_.functions()
  std::unordered_set<uint64_t> profiled_;  // their GUIDs (MD5 of the DWARF name)
  std::vector<int8_t> decoded_;  // per inline node: -1 unknown, 0/1
  std::unordered_map<uint32_t, TrieNode*> node_cache_;  // inline node -> context node
  std::vector<uint64_t> context_;  // probe_node's buffer
  std::optional<PreInlinerSizes> sizes_;
};

}  // namespace

Profile generate_context_sensitive(ProfiledBinary& binary, std::vector<CsCounter>&& counters,
                                   const CsOptions& options, const PostProcessOptions& post,
                                   const std::function<void(std::string_view)>& warn,
                                   std::optional<PreInlinerSizes> sizes) {
  return Generator(binary, counters, options, post, warn, std::move(sizes)).run();
}

void post_process_cs(Profile& profile, const CsOptions& options, const PostProcessOptions& post,
                     const std::function<void(std::string_view)>& warn,
                     const std::function<void(std::string_view)>& out) {
  const sampleprof::Summary summary = sampleprof::compute_summary(profile);
  const uint64_t hot =
      post.hot_count ? *post.hot_count : summary_threshold(summary, post.cutoff_hot);
  // Cold contexts (below the hot threshold) are dropped or merged into the profile of
  // their last frames.
  if ((options.trim_cold_profile || options.merge_cold_context) && hot != 0) {
    const bool base_only = options.preinliner && !options.merge_cold_context;
    std::vector<uint64_t> cold;
    for (const auto& [key, f] : profile.functions)
      if (f.total < hot && (!base_only || f.context.size() <= 1)) cold.push_back(key);
    std::unordered_map<uint64_t, FunctionSamples> merged;  // iterated as LLVM's map is
    for (uint64_t key : cold) {
      auto it = profile.functions.find(key);
      if (options.merge_cold_context) {
        std::vector<Frame> context = it->second.context;
        if (options.max_cold_context_depth < context.size())
          context.erase(context.begin(),
                        context.end() - static_cast<int64_t>(options.max_cold_context_depth));
        const uint64_t mkey = sampleprof::context_key(context);
        auto [m, added] = merged.try_emplace(mkey);
        if (added) {
          m->second.name = it->second.name;
          m->second.context = context;
        }
        (void)m->second.merge(it->second);
      }
      profile.functions.erase(it);
    }
    for (const auto& [mkey, m] : merged) {
      auto existing = profile.functions.find(mkey);
      if (options.trim_cold_profile && m.total < hot && existing == profile.functions.end())
        continue;
      if (existing == profile.functions.end()) {
        FunctionSamples f;
        f.name = m.name;
        f.context = m.context;
        existing = profile.functions.emplace(mkey, std::move(f)).first;
      }
      (void)existing->second.merge(m);
    }
  }
  if (options.nested) sampleprof::nest_profile(profile);
  filter_ambiguous_profiles(profile);
  check_density(profile, post, warn, out);
}

}  // namespace profkit::profgen
