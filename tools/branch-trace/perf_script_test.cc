#include "tools/branch-trace/perf_script.h"

#include <gtest/gtest.h>

#include <vector>

namespace profkit::branch_trace {
namespace {

BranchRing two_branches() {
  BranchRing ring(32);
  ring.push({0x55555555513e, 0x555555555159, InsnKind::cond_jump});
  ring.push({0x555555555147, 0x555555555130, InsnKind::call});
  return ring;
}

TEST(PerfScript, Mmap2LineAsPerfPrintsIt) {
  MmapEvent e{20279, 0x5597c5b19000, 0x1000, 0x1000, 0xfe, 0, 10952855, 1933543931, "r-xp",
              "/tmp/trx/loop"};
  std::string out;
  append_mmap2(out, e);
  EXPECT_EQ(out,
            "PERF_RECORD_MMAP2 20279/20279: [0x5597c5b19000(0x1000) @ 0x1000 fe:00 10952855 "
            "1933543931]: r-xp /tmp/trx/loop\n");
}

TEST(PerfScript, Mmap2ZeroOffsetIsPrintedBare) {
  MmapEvent e{7, 0x7f46532df000, 0x2000, 0, 0, 0, 0, 0, "r-xp", "[vdso]"};
  std::string out;
  append_mmap2(out, e);
  EXPECT_EQ(out, "PERF_RECORD_MMAP2 7/7: [0x7f46532df000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]\n");
}

TEST(PerfScript, LbrOnlySampleLine) {
  std::string out;
  append_lbr_sample(out, 0x55555555513a, two_branches(), FlagStyle::classic);
  EXPECT_EQ(out,
            "     55555555513a 0x555555555147/0x555555555130/P/-/-/0  "
            "0x55555555513e/0x555555555159/P/-/-/0 \n");
}

TEST(PerfScript, HybridSampleBlock) {
  std::string out;
  const std::vector<uint64_t> stack = {0x55555555513a, 0x555555555159, 0x7ffff7dd1d90};
  append_hybrid_sample(out, stack, two_branches(), FlagStyle::classic);
  EXPECT_EQ(out,
            "\n\t    55555555513a\n\t    555555555159\n\t    7ffff7dd1d90\n"
            " 0x555555555147/0x555555555130/P/-/-/0  0x55555555513e/0x555555555159/P/-/-/0 \n");
}

TEST(PerfScript, NewerFlagStyles) {
  std::string spec, typed;
  append_lbr_sample(spec, 0x1000, two_branches(), FlagStyle::spec);
  append_lbr_sample(typed, 0x1000, two_branches(), FlagStyle::typed);
  EXPECT_EQ(spec,
            "             1000 0x555555555147/0x555555555130/P/-/-/0//-  "
            "0x55555555513e/0x555555555159/P/-/-/0//- \n");
  EXPECT_EQ(typed,
            "             1000 0x555555555147/0x555555555130/P/-/-/0/CALL/-  "
            "0x55555555513e/0x555555555159/P/-/-/0/COND/- \n");
}

}  // namespace
}  // namespace profkit::branch_trace
