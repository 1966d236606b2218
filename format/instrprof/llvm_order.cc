// Container-order emulation; algorithms as written in docs/formats/irpgo.md Appendix A.
#include "format/instrprof/llvm_order.h"

#include <algorithm>

#include "format/bytes/hash.h"

namespace profkit::instrprof {

namespace {

// Chains are vectors whose back() is the chain head (push at head = push_back).
using Chains = std::vector<std::vector<uint32_t>>;

Chains rehash(const Chains& old, size_t size, std::span<const uint64_t> hashes) {
  Chains fresh(size);
  for (const auto& chain : old) {
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)  // head to tail
      fresh[hashes[*it] & (size - 1)].push_back(*it);
  }
  return fresh;
}

}  // namespace

std::vector<std::vector<uint32_t>> on_disk_hash_buckets(std::span<const uint64_t> hashes) {
  size_t buckets = 64;
  Chains chains(buckets);
  uint64_t n = 0;
  for (uint32_t i = 0; i < hashes.size(); ++i) {
    ++n;
    if (4 * n >= 3 * buckets) {
      buckets *= 2;
      chains = rehash(chains, buckets, hashes);
    }
    chains[hashes[i] & (buckets - 1)].push_back(i);
  }
  size_t target = 1;
  if (n > 2) {
    const uint64_t floor = n * 4 / 3;
    target = 1;
    while (target <= floor) target *= 2;
  }
  if (target != buckets) chains = rehash(chains, target, hashes);
  for (auto& chain : chains) std::reverse(chain.begin(), chain.end());  // head first
  return chains;
}

uint32_t djb_hash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = h * 33 + c;
  return h;
}

std::vector<uint32_t> string_map_order(std::span<const std::string_view> keys,
                                       StringMapHash hash_kind) {
  constexpr uint32_t kEmpty = ~uint32_t{0};
  std::vector<uint32_t> table(16, kEmpty);
  std::vector<uint32_t> hashes(keys.size());
  size_t items = 0;
  auto place = [&](std::vector<uint32_t>& t, uint32_t key) {
    const size_t mask = t.size() - 1;
    size_t b = hashes[key] & mask;
    size_t probe = 1;
    while (t[b] != kEmpty) b = (b + probe++) & mask;
    t[b] = key;
  };
  for (uint32_t i = 0; i < keys.size(); ++i) {
    hashes[i] = hash_kind == StringMapHash::djb ? djb_hash(keys[i])
                                                : static_cast<uint32_t>(xxh3_64(keys[i]));
    // Lookup first: a key already present is not inserted again.
    const size_t mask = table.size() - 1;
    size_t b = hashes[i] & mask;
    size_t probe = 1;
    bool present = false;
    while (table[b] != kEmpty) {
      if (hashes[table[b]] == hashes[i] && keys[table[b]] == keys[i]) {
        present = true;
        break;
      }
      b = (b + probe++) & mask;
    }
    if (present) continue;
    table[b] = i;
    ++items;
    if (items * 4 > table.size() * 3) {
      std::vector<uint32_t> grown(table.size() * 2, kEmpty);
      for (uint32_t k : table)
        if (k != kEmpty) place(grown, k);
      table.swap(grown);
    }
  }
  std::vector<uint32_t> order;
  order.reserve(items);
  for (uint32_t k : table)
    if (k != kEmpty) order.push_back(k);
  return order;
}

std::vector<uint64_t> dense_map_order(std::span<const uint64_t> keys, DenseMapHash hash_kind,
                                      size_t inline_buckets) {
  auto hash = [&](uint64_t v) -> uint32_t {
    if (hash_kind == DenseMapHash::llvm14) return static_cast<uint32_t>(v * 37u);
    uint64_t x = v * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    return static_cast<uint32_t>(x);
  };
  std::vector<uint64_t> slots(inline_buckets);
  std::vector<bool> used(inline_buckets, false);
  size_t n = 0;
  // The bucket holding `v`, or the empty bucket where its probe sequence ends (quadratic
  // probing as LLVM's LookupBucketFor; no tombstones, nothing is erased).
  auto lookup = [&](const std::vector<uint64_t>& s, const std::vector<bool>& u, uint64_t v) {
    const size_t mask = s.size() - 1;
    size_t b = hash(v) & mask;
    size_t probe = 1;
    while (u[b] && s[b] != v) b = (b + probe++) & mask;
    return b;
  };
  for (uint64_t v : keys) {
    if (!slots.empty() && used[lookup(slots, used, v)]) continue;
    if ((n + 1) * 4 >= slots.size() * 3) {
      // grow(NumBuckets * 2): a DenseMap's (and a SmallDenseMap's first heap) table has at
      // least 64 buckets.
      const size_t size = std::max<size_t>(64, slots.size() * 2);
      std::vector<uint64_t> s(size);
      std::vector<bool> u(size, false);
      for (size_t i = 0; i < slots.size(); ++i)
        if (used[i]) {
          const size_t b = lookup(s, u, slots[i]);
          s[b] = slots[i];
          u[b] = true;
        }
      slots.swap(s);
      used.swap(u);
    }
    const size_t b = lookup(slots, used, v);
    slots[b] = v;
    used[b] = true;
    ++n;
  }
  std::vector<uint64_t> order;
  order.reserve(n);
  for (size_t i = 0; i < slots.size(); ++i)
    if (used[i]) order.push_back(slots[i]);
  return order;
}

}  // namespace profkit::instrprof
