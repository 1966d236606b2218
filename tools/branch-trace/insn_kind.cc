#include "tools/branch-trace/insn_kind.h"

#include <capstone/capstone.h>

#include <algorithm>

namespace profkit::branch_trace {

namespace {

// One capstone handle with details on (groups and operand types), opened on first use.
class Decoder {
 public:
  Decoder() {
    ok_ = cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) == CS_ERR_OK;
    if (ok_) cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~Decoder() {
    if (ok_) cs_close(&handle_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  Insn decode(std::span<const uint8_t> bytes, uint64_t address) const {
    if (!ok_ || bytes.empty()) return {};
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(handle_, bytes.data(), std::min<size_t>(bytes.size(), 15),
                               address, 1, &insn);
    if (n == 0) return {};
    Insn result;
    result.length = static_cast<uint8_t>(insn->size);
    result.kind = classify(*insn);
    result.enters_kernel = in_group(*insn, CS_GRP_INT) || in_group(*insn, CS_GRP_IRET) ||
                           insn->id == X86_INS_SYSCALL || insn->id == X86_INS_SYSENTER;
    cs_free(insn, n);
    return result;
  }

 private:
  static bool in_group(const cs_insn& insn, uint8_t group) {
    const cs_detail* d = insn.detail;
    return std::find(d->groups, d->groups + d->groups_count, group) !=
           d->groups + d->groups_count;
  }
  static bool has_immediate_target(const cs_insn& insn) {
    const cs_x86& x86 = insn.detail->x86;
    return x86.op_count == 1 && x86.operands[0].type == X86_OP_IMM;
  }
  static InsnKind classify(const cs_insn& insn) {
    // Software interrupts and syscalls enter the kernel; a user-only LBR does not see them.
    if (in_group(insn, CS_GRP_INT) || in_group(insn, CS_GRP_IRET)) return InsnKind::other;
    switch (insn.id) {  // capstone 4 puts these in no group
      case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
      case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
        return InsnKind::cond_jump;
      default: break;
    }
    if (in_group(insn, CS_GRP_RET)) return InsnKind::ret;
    if (in_group(insn, CS_GRP_CALL))
      return has_immediate_target(insn) ? InsnKind::call : InsnKind::indirect_call;
    if (in_group(insn, CS_GRP_JUMP)) {
      if (insn.id == X86_INS_JMP || insn.id == X86_INS_LJMP)
        return has_immediate_target(insn) ? InsnKind::jump : InsnKind::indirect_jump;
      return InsnKind::cond_jump;
    }
    return InsnKind::other;
  }

  csh handle_ = 0;
  bool ok_ = false;
};

}  // namespace

Insn decode_insn(std::span<const uint8_t> bytes, uint64_t address) {
  static const Decoder decoder;
  return decoder.decode(bytes, address);
}

std::string_view branch_type_name(InsnKind kind) {
  switch (kind) {
    case InsnKind::cond_jump: return "COND";
    case InsnKind::jump: return "UNCOND";
    case InsnKind::indirect_jump: return "IND";
    case InsnKind::call: return "CALL";
    case InsnKind::indirect_call: return "IND_CALL";
    case InsnKind::ret: return "RET";
    case InsnKind::other: break;
  }
  return "";
}

}  // namespace profkit::branch_trace
