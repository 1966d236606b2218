#include "tools/branch-trace/insn_kind.h"

#include <gtest/gtest.h>

#include <vector>

namespace profkit::branch_trace {
namespace {

Insn decode(std::vector<uint8_t> bytes) { return decode_insn(bytes, 0x401000); }

TEST(InsnKind, ShortConditionalJumpIsTwoBytes) {
  const Insn i = decode({0x7e, 0x2e});  // jle +0x2e
  EXPECT_EQ(i.kind, InsnKind::cond_jump);
  EXPECT_EQ(i.length, 2);
}

TEST(InsnKind, NearConditionalJumpIsSixBytes) {
  const Insn i = decode({0x0f, 0x85, 0x10, 0x00, 0x00, 0x00});  // jne rel32
  EXPECT_EQ(i.kind, InsnKind::cond_jump);
  EXPECT_EQ(i.length, 6);
}

TEST(InsnKind, LoopAndJrcxzAreConditional) {
  EXPECT_EQ(decode({0xe2, 0xfe}).kind, InsnKind::cond_jump);  // loop
  EXPECT_EQ(decode({0xe3, 0x05}).kind, InsnKind::cond_jump);  // jrcxz
}

TEST(InsnKind, DirectAndIndirectCalls) {
  const Insn direct = decode({0xe8, 0x00, 0x01, 0x00, 0x00});
  EXPECT_EQ(direct.kind, InsnKind::call);
  EXPECT_EQ(direct.length, 5);
  const Insn reg = decode({0x41, 0xff, 0xd3});  // call *%r11
  EXPECT_EQ(reg.kind, InsnKind::indirect_call);
  EXPECT_EQ(reg.length, 3);
  const Insn mem = decode({0xff, 0x15, 0x10, 0x00, 0x00, 0x00});  // call *0x10(%rip)
  EXPECT_EQ(mem.kind, InsnKind::indirect_call);
  EXPECT_EQ(mem.length, 6);
}

TEST(InsnKind, DirectAndIndirectJumps) {
  EXPECT_EQ(decode({0xeb, 0x05}).kind, InsnKind::jump);
  EXPECT_EQ(decode({0xe9, 0x00, 0x01, 0x00, 0x00}).kind, InsnKind::jump);
  EXPECT_EQ(decode({0xff, 0xe0}).kind, InsnKind::indirect_jump);        // jmp *%rax
  EXPECT_EQ(decode({0x3e, 0xff, 0xe0}).kind, InsnKind::indirect_jump);  // notrack jmp *%rax
}

TEST(InsnKind, ReturnsWithAndWithoutPrefixes) {
  EXPECT_EQ(decode({0xc3}).kind, InsnKind::ret);
  EXPECT_EQ(decode({0xf3, 0xc3}).kind, InsnKind::ret);  // rep ret
  EXPECT_EQ(decode({0xc2, 0x08, 0x00}).kind, InsnKind::ret);
}

TEST(InsnKind, SyscallAndOrdinaryInstructionsAreNotBranches) {
  EXPECT_EQ(decode({0x0f, 0x05}).kind, InsnKind::other);              // syscall
  EXPECT_EQ(decode({0xf3, 0x0f, 0x1e, 0xfa}).kind, InsnKind::other);  // endbr64
  const Insn mov = decode({0x48, 0x89, 0xe5});                        // mov %rsp,%rbp
  EXPECT_EQ(mov.kind, InsnKind::other);
  EXPECT_EQ(mov.length, 3);
}

TEST(InsnKind, KernelEntriesAreMarked) {
  EXPECT_TRUE(decode({0x0f, 0x05}).enters_kernel);  // syscall
  EXPECT_TRUE(decode({0xcd, 0x80}).enters_kernel);  // int 0x80
  EXPECT_TRUE(decode({0xcc}).enters_kernel);        // int3
  EXPECT_FALSE(decode({0x48, 0x89, 0xe5}).enters_kernel);
  EXPECT_FALSE(decode({0xc3}).enters_kernel);
}

TEST(InsnKind, UndecodableBytesHaveNoLength) {
  EXPECT_EQ(decode({}).length, 0);
  EXPECT_EQ(decode({0x0f}).length, 0);
}

}  // namespace
}  // namespace profkit::branch_trace
