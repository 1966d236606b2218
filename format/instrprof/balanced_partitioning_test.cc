#include "format/instrprof/balanced_partitioning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace profkit::instrprof {
namespace {

TEST(BalancedPartitioning, UnitFloatEndsOfTheRange) {
  EXPECT_EQ(detail::unit_float_from_draw(0), 0.f);
  // 2^32 - 1 rounds up to 2^32 in float: the quotient 1 becomes the float just below 1.
  EXPECT_EQ(detail::unit_float_from_draw(0xFFFFFFFFu), std::nextafter(1.f, 0.f));
  EXPECT_EQ(detail::unit_float_from_draw(1u << 31), 0.5f);
}

#if defined(__GLIBCXX__) && _GLIBCXX_RELEASE <= 15
// The libstdc++ LLVM 22's Debian packages were built against computes the distribution the
// way unit_float_from_draw does; newer libstdc++ may implement generate_canonical anew.
TEST(BalancedPartitioning, UnitFloatIsLibstdcxxUniformRealDistribution) {
  std::mt19937 a(7), b(7);
  for (int i = 0; i < 100000; ++i) {
    const float expected = std::uniform_real_distribution<float>(0.f, 1.f)(a);
    ASSERT_EQ(detail::unit_float_from_draw(static_cast<uint32_t>(b())), expected) << i;
  }
}
#endif

TEST(BalancedPartitioning, EmptyAndSingleInputs) {
  EXPECT_TRUE(balanced_partition({}).empty());
  EXPECT_EQ(balanced_partition({PartitionNode{42, {1, 2}}}), std::vector<uint64_t>{42});
}

TEST(BalancedPartitioning, NoSharedUtilitiesKeepsTheInputOrder) {
  std::vector<PartitionNode> nodes;
  for (uint64_t i = 0; i < 9; ++i) nodes.push_back({100 - i, {}});
  const auto order = balanced_partition(nodes);
  ASSERT_EQ(order.size(), 9u);
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], 100 - i);
}

TEST(BalancedPartitioning, ItemsSharingUtilitiesEndUpTogether) {
  // Input order interleaves two groups; each group shares its own utilities.
  std::vector<PartitionNode> nodes;
  for (uint64_t i = 0; i < 16; ++i)
    nodes.push_back({i, i % 2 == 0 ? std::vector<uint32_t>{1, 2, 3} : std::vector<uint32_t>{7, 8}});
  const auto order = balanced_partition(nodes);
  ASSERT_EQ(order.size(), 16u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(order[i] % 2, order[0] % 2) << i;
  for (size_t i = 8; i < 16; ++i) EXPECT_NE(order[i] % 2, order[0] % 2) << i;
  std::vector<uint64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (uint64_t i = 0; i < 16; ++i) EXPECT_EQ(sorted[i], i);
}

TEST(BalancedPartitioning, DepthZeroKeepsTheInputOrder) {
  PartitionConfig config;
  config.split_depth = 0;
  std::vector<PartitionNode> nodes = {{5, {1}}, {3, {2}}, {4, {1}}, {9, {2}}};
  EXPECT_EQ(balanced_partition(nodes, config), (std::vector<uint64_t>{5, 3, 4, 9}));
}

}  // namespace
}  // namespace profkit::instrprof
