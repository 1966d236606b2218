#include "tools/branch-trace/lbr.h"

#include <gtest/gtest.h>

namespace profkit::branch_trace {
namespace {

TEST(BranchRing, KeepsTheLastDepthBranchesNewestFirst) {
  BranchRing ring(3);
  for (uint64_t i = 1; i <= 5; ++i) ring.push({i, i + 100, InsnKind::jump});
  ASSERT_EQ(ring.size(), 3u);
  EXPECT_EQ(ring.newest(0).from, 5u);
  EXPECT_EQ(ring.newest(1).from, 4u);
  EXPECT_EQ(ring.newest(2).from, 3u);
}

TEST(BranchRing, PartlyFilled) {
  BranchRing ring(32);
  ring.push({1, 2, InsnKind::call});
  ASSERT_EQ(ring.size(), 1u);
  EXPECT_EQ(ring.newest(0).to, 2u);
}

TEST(ShadowStack, ReturnDropsTheReturnedFrame) {
  ShadowStack s;
  s.on_call(0x1005, 0x7ff0);  // main calls f
  s.on_call(0x2005, 0x7fc0);  // f calls g
  s.drop_dead(0x7fc8);        // g returned: sp is one slot above its return address
  ASSERT_EQ(s.frames().size(), 1u);
  EXPECT_EQ(s.frames().back().return_address, 0x1005u);
}

TEST(ShadowStack, LongjmpPastFramesDropsThemAtTheNextCall) {
  ShadowStack s;
  s.on_call(0x1005, 0x7ff0);
  s.on_call(0x2005, 0x7fc0);
  s.on_call(0x3005, 0x7f90);
  s.on_call(0x4005, 0x7fe8);  // after a longjmp back into the first callee
  ASSERT_EQ(s.frames().size(), 2u);
  EXPECT_EQ(s.frames()[0].return_address, 0x1005u);
  EXPECT_EQ(s.frames()[1].return_address, 0x4005u);
}

TEST(ShadowStack, DeeperStackPointerKeepsFrames) {
  ShadowStack s;
  s.on_call(0x1005, 0x7ff0);
  s.drop_dead(0x7f00);  // a signal frame or a large local array below
  EXPECT_EQ(s.frames().size(), 1u);
}

}  // namespace
}  // namespace profkit::branch_trace
