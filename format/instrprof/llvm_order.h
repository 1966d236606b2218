// Emulation of the LLVM containers whose iteration order shows up in llvm-profdata's
// output bytes (docs/formats/irpgo.md 3.5.3, 3.6, 3.8.4 and Appendix A):
//   - OnDiskChainedHashTableGenerator bucket placement,
//   - llvm::StringMap iteration order (djb hash in LLVM 14; xxh3 for StringSet in 22),
//   - DenseMap / SmallDenseMap<uint64_t, ...> iteration order (x*37 in LLVM 14, a
//     splitmix-style mix in LLVM 22).
// These are facts about LLVM's data structures, reimplemented from the spec's description.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace profkit::instrprof {

// Bucket layout of an on-disk chained hash table after inserting items with `hashes` in
// order. Returns NumBuckets lists; each lists item indices in emission order (chain head
// first). Empty lists are empty buckets.
std::vector<std::vector<uint32_t>> on_disk_hash_buckets(std::span<const uint64_t> hashes);

enum class StringMapHash { djb, xxh3_low32 };

// Iteration order (indices into `keys`) of an llvm::StringMap into which `keys` were
// inserted in order; repeated keys are ignored after their first insertion.
std::vector<uint32_t> string_map_order(std::span<const std::string_view> keys, StringMapHash hash);

enum class DenseMapHash { llvm14, llvm22 };

// Iteration order of a SmallDenseMap<uint64_t, T, inline_buckets> (0: a DenseMap) into which
// `keys` were inserted in order (duplicates ignored). Returns the keys in iteration order.
std::vector<uint64_t> dense_map_order(std::span<const uint64_t> keys, DenseMapHash hash,
                                      size_t inline_buckets = 4);

uint32_t djb_hash(std::string_view s);

}  // namespace profkit::instrprof
