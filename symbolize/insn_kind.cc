#include "symbolize/insn_kind.h"

#include <capstone/capstone.h>

#include <algorithm>

namespace profkit::symbolize {

namespace {

// One capstone handle with details on (groups and operand types), opened on first use.
class Decoder {
 public:
  Decoder() {
    ok_ = cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) == CS_ERR_OK;
    if (ok_) cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
    if (ok_) insn_ = cs_malloc(handle_);
    ok_ = ok_ && insn_ != nullptr;
  }
  ~Decoder() {
    if (insn_ != nullptr) cs_free(insn_, 1);
    if (handle_ != 0) cs_close(&handle_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  Insn decode(std::span<const uint8_t> bytes, uint64_t address) const {
    if (!ok_ || bytes.empty()) return {};
    // cs_disasm_iter into one reusable buffer: no allocation per instruction, which matters
    // when a whole binary is decoded.
    const uint8_t* code = bytes.data();
    size_t size = std::min<size_t>(bytes.size(), 15);
    uint64_t at = address;
    if (!cs_disasm_iter(handle_, &code, &size, &at, insn_)) return {};
    const cs_insn* insn = insn_;
    Insn result;
    result.length = static_cast<uint8_t>(insn->size);
    result.kind = classify(*insn);
    describe_emulation(*insn, result);
    result.enters_kernel = in_group(*insn, CS_GRP_INT) || in_group(*insn, CS_GRP_IRET) ||
                           insn->id == X86_INS_SYSCALL || insn->id == X86_INS_SYSENTER;
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
  static int condition_code(unsigned id) {
    switch (id) {
      case X86_INS_JO: return 0;
      case X86_INS_JNO: return 1;
      case X86_INS_JB: return 2;
      case X86_INS_JAE: return 3;
      case X86_INS_JE: return 4;
      case X86_INS_JNE: return 5;
      case X86_INS_JBE: return 6;
      case X86_INS_JA: return 7;
      case X86_INS_JS: return 8;
      case X86_INS_JNS: return 9;
      case X86_INS_JP: return 10;
      case X86_INS_JNP: return 11;
      case X86_INS_JL: return 12;
      case X86_INS_JGE: return 13;
      case X86_INS_JLE: return 14;
      case X86_INS_JG: return 15;
      default: return -1;
    }
  }
  static void describe_emulation(const cs_insn& insn, Insn& out) {
    const cs_x86& x86 = insn.detail->x86;
    if (x86.prefix[2] == 0x66) return;  // 16-bit operand size: not worth emulating
    switch (out.kind) {
      case InsnKind::jump:
      case InsnKind::call:
        out.target = static_cast<uint64_t>(x86.operands[0].imm);
        out.emulable = true;
        break;
      case InsnKind::cond_jump:
        out.condition = static_cast<int8_t>(condition_code(insn.id));
        if (out.condition >= 0 && has_immediate_target(insn)) {
          out.target = static_cast<uint64_t>(x86.operands[0].imm);
          out.emulable = true;
        }
        break;
      case InsnKind::ret:
        if (insn.id != X86_INS_RET) break;  // far returns change CS
        if (x86.op_count == 1 && x86.operands[0].type == X86_OP_IMM)
          out.pop_bytes = static_cast<uint16_t>(x86.operands[0].imm);
        out.emulable = true;
        break;
      default: break;
    }
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
  cs_insn* insn_ = nullptr;
  bool ok_ = false;
};

}  // namespace

Insn decode_insn(std::span<const uint8_t> bytes, uint64_t address) {
  static thread_local const Decoder decoder;
  return decoder.decode(bytes, address);
}

bool condition_holds(int cc, uint64_t eflags) {
  const bool cf = eflags & (1u << 0), pf = eflags & (1u << 2), zf = eflags & (1u << 6),
             sf = eflags & (1u << 7), of = eflags & (1u << 11);
  bool holds = false;
  switch (cc >> 1) {  // even codes test a condition, odd ones its negation
    case 0: holds = of; break;
    case 1: holds = cf; break;
    case 2: holds = zf; break;
    case 3: holds = cf || zf; break;
    case 4: holds = sf; break;
    case 5: holds = pf; break;
    case 6: holds = sf != of; break;
    case 7: holds = zf || sf != of; break;
    default: break;
  }
  return (cc & 1) ? !holds : holds;
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

}  // namespace profkit::symbolize
