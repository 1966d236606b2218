#include "format/instrprof/function_order.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace profkit::instrprof {
namespace {

TemporalTrace trace(std::vector<uint64_t> refs) { return TemporalTrace{1, std::move(refs)}; }

TEST(FunctionOrder, UtilitiesAreWindowsOfDoublingLength) {
  // Trace [0 1 2 3 4]: positions 0 | 1 | 2 3 | 4 fall into windows 0..3; a function touches
  // every window from its first call's to the last. Trace [4 2] continues with windows 4, 5.
  // Before pruning: 0:{0,1,2,3} 1:{1,2,3} 2:{2,3,5} 3:{2,3} 4:{3,4,5}. Windows used by one
  // function (0, 4) or by more than half of the five (2, 3) are dropped.
  const std::vector<TemporalTrace> traces = {trace({0, 1, 2, 3, 4}), trace({4, 2})};
  const auto nodes = trace_partition_nodes(traces);
  ASSERT_EQ(nodes.size(), 5u);
  // Sorted by earliest position (4 was first in the second trace), then by NameRef.
  const std::vector<uint64_t> ids = {0, 4, 1, 2, 3};
  const std::vector<std::vector<uint32_t>> utilities = {{1}, {5}, {1}, {5}, {}};
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i].id, ids[i]) << i;
    EXPECT_EQ(nodes[i].utilities, utilities[i]) << i;
  }
}

TEST(FunctionOrder, RepeatedCallsCountFromTheFirst) {
  const std::vector<TemporalTrace> traces = {trace({7, 8, 7, 9, 7, 8}), trace({})};
  const auto nodes = trace_partition_nodes(traces);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].id, 7u);
  EXPECT_EQ(nodes[1].id, 8u);
  EXPECT_EQ(nodes[2].id, 9u);
}

TEST(FunctionOrder, NoTracesNoFunctions) {
  EXPECT_TRUE(order_functions({}).empty());
  const std::vector<TemporalTrace> empty = {trace({}), trace({})};
  EXPECT_TRUE(order_functions(empty).empty());
}

TEST(FunctionOrder, OrdersEveryTracedFunctionOnce) {
  const std::vector<TemporalTrace> traces = {trace({1, 2, 3, 1}), trace({3, 4}), trace({5})};
  auto order = order_functions(traces);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

TEST(FunctionOrder, PageFaultAreaCountsDistinctPagesSoFar) {
  std::vector<uint64_t> order;
  for (uint64_t i = 0; i < 40; ++i) order.push_back(100 + i);
  // Pages 0, 0, 1, 0 and an unknown function: 1 + 1 + 2 + 2.
  const std::vector<TemporalTrace> test = {trace({100, 101, 135, 100, 999}), trace({139})};
  EXPECT_EQ(page_fault_area(order, test), 6u + 1u);
  EXPECT_EQ(page_fault_area(order, {}), 0u);
}

}  // namespace
}  // namespace profkit::instrprof
