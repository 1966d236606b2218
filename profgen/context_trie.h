// The trie of calling contexts behind context-sensitive profiles: root -> top-level
// function -> callee at a call site -> ...; a node may hold the profile of its context.
// Children are ordered by LLVM's node hash of (callee name, call site), which decides the
// order contexts are visited (by the pre-inliner) and reach the profile map.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/sampleprof/profile.h"

namespace profkit::profgen {

inline uint64_t context_node_hash(uint64_t callee_hash, sampleprof::LineLocation site) {
  const uint64_t loc = site.hash();
  return callee_hash + (loc << 5) + loc;
}
inline uint64_t context_node_hash(sampleprof::FunctionId callee, sampleprof::LineLocation site) {
  return context_node_hash(callee.hash(), site);
}

// MD5 of function names, remembered by the address of the name's bytes (names are views
// into the binary or into storage that lives as long as the cache's user).
class NameHashes {
 public:
  uint64_t operator()(sampleprof::FunctionId id) {
    if (id.is_md5()) return id.md5;
    auto [it, added] = cache_.try_emplace(id.name.data(), id.name.size(), 0);
    if (added || it->second.first != id.name.size()) it->second = {id.name.size(), id.hash()};
    return it->second.second;
  }

 private:
  std::unordered_map<const char*, std::pair<size_t, uint64_t>> cache_;
};

struct TrieNode {
  sampleprof::FunctionId name;
  sampleprof::LineLocation call_site;
  TrieNode* parent = nullptr;
  std::map<uint64_t, std::unique_ptr<TrieNode>> children;
  sampleprof::FunctionSamples* samples = nullptr;  // owned by the Trie (outlives moves)

  TrieNode* find(sampleprof::LineLocation site, sampleprof::FunctionId callee) {
    auto it = children.find(context_node_hash(callee, site));
    return it == children.end() ? nullptr : it->second.get();
  }
  TrieNode* child(sampleprof::LineLocation site, sampleprof::FunctionId callee) {
    return child(site, callee, callee.hash());
  }
  TrieNode* child(sampleprof::LineLocation site, sampleprof::FunctionId callee,
                  uint64_t callee_hash) {
    auto& slot = children[context_node_hash(callee_hash, site)];
    if (!slot) {
      slot = std::make_unique<TrieNode>();
      slot->name = callee;
      slot->call_site = site;
      slot->parent = this;
    }
    return slot.get();
  }
};

class Trie {
 public:
  TrieNode* root() { return &root_; }

  TrieNode* path(const std::vector<sampleprof::Frame>& context) {
    TrieNode* n = &root_;
    sampleprof::LineLocation site;
    for (const sampleprof::Frame& f : context) {
      n = n->child(site, f.name, hashes_(f.name));
      site = f.location;
    }
    return n;
  }

  sampleprof::FunctionSamples& samples(TrieNode* n, bool leaf_was_inlined = false) {
    if (!n->samples) {
      n->samples = &arena_.emplace_back();
      n->samples->name = n->name;
    }
    if (leaf_was_inlined) n->samples->attributes |= sampleprof::kContextWasInlined;
    return *n->samples;
  }

  // Depth-first, each node before its children.
  template <class Fn>
  static void for_each(TrieNode* n, Fn fn) {
    fn(n);
    for (auto& [key, c] : n->children) for_each(c.get(), fn);
  }

  // Breadth-first from the root (LLVM's context tracker iterates so).
  template <class Fn>
  void breadth_first(Fn fn) {
    std::queue<TrieNode*> queue;
    queue.push(&root_);
    while (!queue.empty()) {
      TrieNode* n = queue.front();
      queue.pop();
      fn(n);
      for (auto& [key, c] : n->children) queue.push(c.get());
    }
  }

 private:
  TrieNode root_;
  std::deque<sampleprof::FunctionSamples> arena_;
  NameHashes hashes_;
};

}  // namespace profkit::profgen
