// Balanced partitioning: orders items so that items sharing many "utilities" sit close
// together, by recursive bisection with greedy swaps. The algorithm and every detail that
// decides its output (seeds, float arithmetic, tie-breaking) follow LLVM 22's
// BalancedPartitioning, so `profkit order` prints what `llvm-profdata-22 order` prints.
// docs/irpgo-order.md describes it.
#pragma once

#include <cstdint>
#include <vector>

namespace profkit::instrprof {

// One item to order and the utilities it touches. Two items that share utilities gain from
// being placed close together.
struct PartitionNode {
  uint64_t id = 0;                  // the caller's name for the item (a NameRef)
  std::vector<uint32_t> utilities;  // each utility at most once
};

// LLVM's BalancedPartitioningConfig defaults (tuned by LLVM on real binaries).
struct PartitionConfig {
  unsigned split_depth = 18;           // bisection levels; below, the input order is kept
  unsigned iterations_per_split = 40;  // at most this many swap rounds per bisection
  float skip_probability = 0.1f;       // a move is skipped when a draw in [0,1) is <= this
};

// The ids of `nodes` in their new order. The result depends only on the input order and
// the utility lists: ties are broken exactly as LLVM breaks them (see the .cc). LLVM runs
// the two halves of a bisection on threads, which cannot change the result (they are
// independent), so this runs on one thread.
std::vector<uint64_t> balanced_partition(std::vector<PartitionNode> nodes,
                                         const PartitionConfig& config = {});

namespace detail {
// libstdc++'s std::uniform_real_distribution<float>(0, 1) over one std::mt19937 draw, as
// LLVM 22's Debian build computes it (the GCC 12 generate_canonical). Exposed for its test.
float unit_float_from_draw(uint32_t draw);
}  // namespace detail

}  // namespace profkit::instrprof
