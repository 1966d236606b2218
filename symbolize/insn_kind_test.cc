#include "symbolize/insn_kind.h"

#include <gtest/gtest.h>

#include <vector>

namespace profkit::symbolize {
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

TEST(InsnKind, DirectBranchesCarryTheirTargets) {
  const Insn jle = decode({0x7e, 0x2e});  // at 0x401000: target 0x401030
  EXPECT_TRUE(jle.emulable);
  EXPECT_EQ(jle.condition, 14);
  EXPECT_EQ(jle.target, 0x401030u);
  const Insn call = decode({0xe8, 0x00, 0x01, 0x00, 0x00});
  EXPECT_TRUE(call.emulable);
  EXPECT_EQ(call.target, 0x401105u);
  const Insn ret = decode({0xc2, 0x08, 0x00});
  EXPECT_TRUE(ret.emulable);
  EXPECT_EQ(ret.pop_bytes, 8);
}

TEST(InsnKind, IndirectFarAndLoopBranchesAreNotEmulated) {
  EXPECT_FALSE(decode({0xff, 0xe0}).emulable);        // jmp *%rax
  EXPECT_FALSE(decode({0x41, 0xff, 0xd3}).emulable);  // call *%r11
  EXPECT_FALSE(decode({0xcb}).emulable);              // far ret
  EXPECT_FALSE(decode({0xe2, 0xfe}).emulable);        // loop
  EXPECT_FALSE(decode({0xe3, 0x05}).emulable);        // jrcxz
}

TEST(InsnKind, ConditionCodes) {
  const uint64_t cf = 1u << 0, pf = 1u << 2, zf = 1u << 6, sf = 1u << 7, of = 1u << 11;
  EXPECT_TRUE(condition_holds(0, of));        // jo
  EXPECT_FALSE(condition_holds(1, of));       // jno
  EXPECT_TRUE(condition_holds(2, cf));        // jb
  EXPECT_TRUE(condition_holds(3, 0));         // jae
  EXPECT_TRUE(condition_holds(4, zf));        // je
  EXPECT_TRUE(condition_holds(5, 0));         // jne
  EXPECT_TRUE(condition_holds(6, zf));        // jbe
  EXPECT_FALSE(condition_holds(7, cf));       // ja
  EXPECT_TRUE(condition_holds(8, sf));        // js
  EXPECT_TRUE(condition_holds(9, 0));         // jns
  EXPECT_TRUE(condition_holds(10, pf));       // jp
  EXPECT_FALSE(condition_holds(11, pf));      // jnp
  EXPECT_TRUE(condition_holds(12, sf));       // jl: sf != of
  EXPECT_TRUE(condition_holds(13, sf | of));  // jge: sf == of
  EXPECT_TRUE(condition_holds(14, zf | sf | of));
  EXPECT_FALSE(condition_holds(14, sf | of));  // jle: zf or sf != of
  EXPECT_TRUE(condition_holds(15, 0));         // jg: !zf and sf == of
  EXPECT_FALSE(condition_holds(15, of));
}

TEST(InsnKind, UndecodableBytesHaveNoLength) {
  EXPECT_EQ(decode({}).length, 0);
  EXPECT_EQ(decode({0x0f}).length, 0);
}

}  // namespace
}  // namespace profkit::symbolize
