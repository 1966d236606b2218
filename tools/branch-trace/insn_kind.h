// What one x86-64 instruction does to control flow, decoded from its bytes with capstone.
// The tracer decodes each executed address once and keeps the answer (InsnCache).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>

namespace profkit::branch_trace {

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
};

inline bool is_call(InsnKind k) { return k == InsnKind::call || k == InsnKind::indirect_call; }

// Decodes the instruction at the start of `bytes` (at most 15 are looked at). `address` only
// matters for capstone's relative operands.
Insn decode_insn(std::span<const uint8_t> bytes, uint64_t address);

// The branch type name newer perf prints in a brstack entry when types are recorded
// (`-j any,save_type`): COND, UNCOND, IND, CALL, IND_CALL, RET.
std::string_view branch_type_name(InsnKind kind);

}  // namespace profkit::branch_trace
