// Recursive bisection with greedy swaps (docs/irpgo-order.md). What decides the output, each
// checked against llvm-profdata-22 order by tests/irpgo_order_differential_test.py:
// - every bisection starts from the input order, its first ceil(n/2) items on the left;
// - its random numbers come from std::mt19937 seeded with the bucket being split;
// - costs and gains are single-precision floats, summed in the order of an item's utilities;
// - items with equal gains keep the order a libstdc++ std::partition left them in.
// This file is compiled with -ffp-contract=off (format/CMakeLists.txt): a fused multiply-add
// would round differently from LLVM's separate multiply and add.
#include "format/instrprof/balanced_partitioning.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <unordered_map>
#include <utility>

namespace profkit::instrprof {

namespace detail {
// libstdc++ (GCC 12) generate_canonical<float, 24>: one 32-bit draw, converted to float
// (rounding to nearest), divided by 2^32 in float; a result of 1 becomes the float below 1.
// The distribution then computes x * (1 - 0) + 0, which is x.
float unit_float_from_draw(uint32_t draw) {
  const float x = static_cast<float>(draw) / 4294967296.0f;
  return x >= 1.0f ? std::nextafter(1.0f, 0.0f) : x;
}
}  // namespace detail

namespace {

struct Item {
  uint64_t id = 0;
  std::vector<uint32_t> utilities;  // renumbered in place by each bisection, as LLVM does
  uint32_t input_index = 0;         // position in the caller's order
  uint32_t bucket = 0;              // bisection side, then the final position
};

// Per utility, within one bisection: how many items of each side touch it, and the cached
// change of cost when one of them moves to the other side.
struct Signature {
  uint32_t left = 0;
  uint32_t right = 0;
  float gain_left_to_right = 0.f;
  float gain_right_to_left = 0.f;
  bool gains_valid = false;
};

// The partition libstdc++'s std::partition performs on bidirectional (and random-access)
// iterators: skip matching items from the front, non-matching from the back, swap the two
// found, repeat. Not stable; the order it leaves decides which of two equal gains goes first.
template <class It, class Pred>
It libstdcxx_partition(It first, It last, Pred pred) {
  while (true) {
    while (true) {
      if (first == last) return first;
      if (!pred(*first)) break;
      ++first;
    }
    --last;
    while (true) {
      if (first == last) return first;
      if (pred(*last)) break;
      --last;
    }
    std::iter_swap(first, last);
    ++first;
  }
}

class Partitioner {
 public:
  explicit Partitioner(const PartitionConfig& config) : config_(config), log2_(kLog2CacheSize) {
    log2_[0] = 0.f;
    for (unsigned i = 1; i < kLog2CacheSize; ++i)
      log2_[i] = static_cast<float>(std::log2(static_cast<double>(i)));
  }

  // Orders [first, last) and gives its items the final positions offset, offset + 1, ...
  void bisect(Item* first, Item* last, unsigned depth, unsigned root_bucket,
              unsigned offset) const {
    const size_t n = static_cast<size_t>(last - first);
    if (n <= 1 || depth >= config_.split_depth) {
      sort_by_input(first, last);
      for (Item* it = first; it != last; ++it) it->bucket = offset++;
      return;
    }
    std::mt19937 rng(root_bucket);
    const unsigned left = 2 * root_bucket;
    const unsigned right = left + 1;
    sort_by_input(first, last);
    Item* half = first + (n + 1) / 2;
    for (Item* it = first; it != last; ++it) it->bucket = it < half ? left : right;
    run_iterations(first, last, left, right, rng);
    // Only which items end on each side matters here: both halves are sorted again.
    Item* mid = std::partition(first, last, [&](const Item& it) { return it.bucket == left; });
    const unsigned mid_offset = offset + static_cast<unsigned>(mid - first);
    bisect(first, mid, depth + 1, left, offset);
    bisect(mid, last, depth + 1, right, mid_offset);
  }

 private:
  static constexpr unsigned kLog2CacheSize = 16384;

  static void sort_by_input(Item* first, Item* last) {
    std::sort(first, last,
              [](const Item& a, const Item& b) { return a.input_index < b.input_index; });
  }

  float log2_cached(unsigned i) const {
    return i < kLog2CacheSize ? log2_[i] : static_cast<float>(std::log2(static_cast<double>(i)));
  }

  // The cost of a utility touched by x items on the left and y on the right.
  float log_cost(unsigned x, unsigned y) const {
    const float a = static_cast<float>(x) * log2_cached(x + 1);
    const float b = static_cast<float>(y) * log2_cached(y + 1);
    return -(a + b);
  }

  void run_iterations(Item* first, Item* last, unsigned left, unsigned right,
                      std::mt19937& rng) const {
    const size_t n = static_cast<size_t>(last - first);
    // Utilities touched by one item, or by all, cannot change the cost: drop them.
    std::unordered_map<uint32_t, uint32_t> uses;
    for (Item* it = first; it != last; ++it)
      for (uint32_t u : it->utilities) ++uses[u];
    for (Item* it = first; it != last; ++it)
      std::erase_if(it->utilities, [&](uint32_t u) { return uses[u] == 1 || uses[u] == n; });
    // Renumber the rest densely so that they index `signatures`.
    std::unordered_map<uint32_t, uint32_t> dense;
    for (Item* it = first; it != last; ++it)
      for (uint32_t& u : it->utilities)
        u = dense.emplace(u, static_cast<uint32_t>(dense.size())).first->second;
    std::vector<Signature> signatures(dense.size());
    for (Item* it = first; it != last; ++it)
      for (uint32_t u : it->utilities) {
        if (it->bucket == left)
          ++signatures[u].left;
        else
          ++signatures[u].right;
      }
    for (unsigned i = 0; i < config_.iterations_per_split; ++i)
      if (run_iteration(first, last, left, right, signatures, rng) == 0) break;
  }

  // One round: pairs the left items with the right ones, each side by decreasing gain, and
  // swaps pairs while the pair's total gain is positive. Returns the number of items moved.
  unsigned run_iteration(Item* first, Item* last, unsigned left, unsigned right,
                         std::vector<Signature>& signatures, std::mt19937& rng) const {
    for (Signature& s : signatures) {
      if (s.gains_valid) continue;
      const float cost = log_cost(s.left, s.right);
      s.gain_left_to_right = 0.f;
      s.gain_right_to_left = 0.f;
      if (s.left > 0) s.gain_left_to_right = cost - log_cost(s.left - 1, s.right + 1);
      if (s.right > 0) s.gain_right_to_left = cost - log_cost(s.left + 1, s.right - 1);
      s.gains_valid = true;
    }
    std::vector<std::pair<float, Item*>> gains;
    gains.reserve(static_cast<size_t>(last - first));
    for (Item* it = first; it != last; ++it) {
      const bool from_left = it->bucket == left;
      float gain = 0.f;
      for (uint32_t u : it->utilities)
        gain += from_left ? signatures[u].gain_left_to_right : signatures[u].gain_right_to_left;
      gains.emplace_back(gain, it);
    }
    const auto left_end = libstdcxx_partition(
        gains.begin(), gains.end(), [&](const auto& g) { return g.second->bucket == left; });
    const auto larger = [](const auto& a, const auto& b) { return a.first > b.first; };
    std::stable_sort(gains.begin(), left_end, larger);
    std::stable_sort(left_end, gains.end(), larger);

    unsigned moved = 0;
    auto l = gains.begin();
    auto r = left_end;
    for (; l != left_end && r != gains.end(); ++l, ++r) {
      if (l->first + r->first <= 0.f) break;
      if (move(*l->second, left, right, signatures, rng)) ++moved;
      if (move(*r->second, left, right, signatures, rng)) ++moved;
    }
    return moved;
  }

  // Moves `item` to the other side unless the random draw skips it (escapes local optima).
  bool move(Item& item, unsigned left, unsigned right, std::vector<Signature>& signatures,
            std::mt19937& rng) const {
    if (detail::unit_float_from_draw(static_cast<uint32_t>(rng())) <= config_.skip_probability)
      return false;
    const bool from_left = item.bucket == left;
    item.bucket = from_left ? right : left;
    for (uint32_t u : item.utilities) {
      Signature& s = signatures[u];
      if (from_left) {
        --s.left;
        ++s.right;
      } else {
        ++s.left;
        --s.right;
      }
      s.gains_valid = false;
    }
    return true;
  }

  PartitionConfig config_;
  std::vector<float> log2_;  // log2(i) rounded to float, LLVM's table of 16384 entries
};

}  // namespace

std::vector<uint64_t> balanced_partition(std::vector<PartitionNode> nodes,
                                         const PartitionConfig& config) {
  std::vector<Item> items(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    items[i].id = nodes[i].id;
    items[i].utilities = std::move(nodes[i].utilities);
    items[i].input_index = static_cast<uint32_t>(i);
  }
  Partitioner(config).bisect(items.data(), items.data() + items.size(), 0, 1, 0);
  // Every item now holds its final position in `bucket` (distinct values 0..n-1).
  std::vector<uint64_t> order(items.size());
  for (const Item& it : items) order[it.bucket] = it.id;
  return order;
}

}  // namespace profkit::instrprof
