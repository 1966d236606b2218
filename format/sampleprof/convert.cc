#include "format/sampleprof/convert.h"

#include <map>

namespace profkit::sampleprof {
namespace {

using ProfileMap = std::unordered_map<uint64_t, FunctionSamples>;

// `body[loc]` loses `callee` as a call target and as many samples (what it had); an empty
// record goes away. Returns the samples removed.
uint64_t remove_target_and_samples(FunctionSamples& f, LineLocation loc, const FunctionId& callee) {
  auto it = f.body.find(loc);
  if (it == f.body.end()) return 0;
  uint64_t count = 0;
  auto& targets = it->second.targets;
  for (auto t = targets.begin(); t != targets.end(); ++t) {
    if (t->first == callee) {
      count = t->second;
      targets.erase(t);
      break;
    }
  }
  count = std::min(count, it->second.samples);
  it->second.samples -= count;
  if (it->second.samples == 0) f.body.erase(it);
  return count;
}

// A function's profile with its inlinees turned into body samples and call targets at their
// locations (each the inlinee's head estimate), and the inlinees flattened in turn.
void flatten_nested(ProfileMap& out, const FunctionSamples& f) {
  const uint64_t key = f.key();
  auto [it, inserted] = out.try_emplace(key);
  FunctionSamples& p = it->second;
  if (inserted) {
    p = f;
    p.callsites.clear();
    p.total = 0;
  } else {
    for (const auto& [loc, rec] : f.body) {
      SampleRecord& mine = p.body[loc];
      MergeResult ignored = MergeResult::ok;
      mine.samples = saturating_add_mul(mine.samples, rec.samples, 1, ignored);
      for (const auto& [target, n] : rec.targets) (void)p.add_target(loc, target, n);
    }
  }
  uint64_t total = f.total;
  for (const auto& [loc, callees] : f.callsites) {
    for (const auto& [name, callee] : callees) {
      const uint64_t estimate = callee.head_estimate(false);
      (void)p.add_body(loc, estimate);
      (void)p.add_target(loc, callee.name, estimate);
      total = total >= callee.total ? total - callee.total : 0;
      total += estimate;
      flatten_nested(out, callee);
    }
  }
  MergeResult ignored = MergeResult::ok;
  p.total = saturating_add_mul(p.total, total, 1, ignored);
  p.head = p.head_estimate(false);
}

// A node of the context trie: children keyed by LLVM's callsite hash (ordered, as LLVM's
// std::map is), the profile of the context ending here, if any.
struct Node {
  std::map<uint64_t, Node> children;
  FunctionId name;
  FunctionSamples* samples = nullptr;
  LineLocation call_site;
};

uint64_t callsite_hash(const FunctionId& callee, LineLocation loc) {
  const uint64_t l = loc.hash();
  return callee.hash() + (l << 5) + l;
}

void nest(Node& node, ProfileMap& map, bool merged_base) {
  FunctionSamples* parent = node.samples;
  for (auto& [hash, child] : node.children) {
    nest(child, map, merged_base);
    FunctionSamples* c = child.samples;
    if (c == nullptr) continue;
    const uint64_t old_key = c->key();
    const FunctionId name = c->name;
    c->context.clear();  // context-less from now on; the attributes stay
    uint64_t new_key = 0;
    if (parent != nullptr) {
      parent->callsites[child.call_site].try_emplace(name, *c);
      MergeResult ignored = MergeResult::ok;
      parent->total = saturating_add_mul(parent->total, c->total, 1, ignored);
      const uint64_t removed = remove_target_and_samples(*parent, child.call_site, name);
      parent->total = parent->total >= removed ? parent->total - removed : 0;
    }
    if (parent == nullptr || merged_base) {
      (void)map[c->key()].merge(*c);
      new_key = c->key();
      if (parent != nullptr)
        parent->callsites[child.call_site][c->name].attributes |= kContextDuplicatedIntoBase;
    }
    if (new_key != old_key) map.erase(old_key);
  }
}

}  // namespace

void flatten_profile(Profile& profile) {
  ProfileMap out;
  if (profile.is_cs) {
    for (const auto& [key, f] : profile.functions) {
      auto [it, inserted] = out.try_emplace(f.name.hash());
      if (inserted) it->second.name = f.name;
      (void)it->second.merge(f);
    }
  } else {
    for (const auto& [key, f] : profile.functions) flatten_nested(out, f);
  }
  profile.functions = std::move(out);
  profile.is_cs = false;
}

void nest_profile(Profile& profile, bool merged_base_profiles) {
  if (!profile.is_cs) return;
  Node root;
  for (auto& [key, f] : profile.functions) {
    Node* node = &root;
    LineLocation call_site;
    for (const Frame& frame : f.context) {
      auto [it, inserted] = node->children.try_emplace(callsite_hash(frame.name, call_site));
      if (inserted) {
        it->second.name = frame.name;
        it->second.call_site = call_site;
      }
      node = &it->second;
      call_site = frame.location;
    }
    node->samples = &f;
  }
  nest(root, profile.functions, merged_base_profiles);
  profile.is_cs = false;
}

}  // namespace profkit::sampleprof
