// What one x86-64 instruction does to control flow, decoded from its bytes with capstone.
// The branch tracer decodes each executed address once and keeps the answer; profgen decodes
// every instruction of a binary's text sections with it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>

namespace profkit::symbolize {

enum class InsnKind : uint8_t {
  other,          // falls through (or leaves user space: syscall, int): never an LBR entry
  cond_jump,      // jcc, loop*, jrcxz: an entry only when the next pc is not pc + length
  jump,           // direct jmp: always an entry
  indirect_jump,  // jmp through a register or memory
  call,           // direct call
  indirect_call,  // call through a register or memory
  ret,            // near or far return
};

struct Insn {
  uint8_t length = 0;         // 0: the bytes did not decode (treated as `other`)
  InsnKind kind = InsnKind::other;
  bool enters_kernel = false;  // syscall, int, iret...: control may come back anywhere
  // What a tracer needs to perform the branch itself instead of stepping it: set for direct
  // jmp/call, jcc and near ret (not loop*/jrcxz, indirect or far branches, or branches with an
  // operand-size prefix).
  bool emulable = false;
  int8_t condition = -1;   // jcc: the condition code (x86 encoding order, jo = 0 ... jg = 15)
  uint16_t pop_bytes = 0;  // ret imm16: bytes popped after the return address
  uint64_t target = 0;     // direct jmp/call/jcc: the target address
};

// Whether condition code `cc` (0-15, as encoded in jcc) holds for the flags in `eflags`.
bool condition_holds(int cc, uint64_t eflags);

inline bool is_call(InsnKind k) { return k == InsnKind::call || k == InsnKind::indirect_call; }

// Decodes the instruction at the start of `bytes` (at most 15 are looked at). `address` only
// matters for capstone's relative operands.
Insn decode_insn(std::span<const uint8_t> bytes, uint64_t address);

// The branch type name newer perf prints in a brstack entry when types are recorded
// (`-j any,save_type`): COND, UNCOND, IND, CALL, IND_CALL, RET.
std::string_view branch_type_name(InsnKind kind);

}  // namespace profkit::symbolize
