// Capstone-backed disassembler. One cs_insn buffer is reused for every instruction
// (cs_disasm_iter), so decoding a large text section does not allocate per instruction.
#include "symbolize/disassembler.h"

#include <capstone/capstone.h>

#include <cstring>

namespace profkit::symbolize {

struct Disassembler::Impl {
  csh handle = 0;
  cs_insn* insn = nullptr;
  ~Impl() {
    if (insn != nullptr) cs_free(insn, 1);
    if (handle != 0) cs_close(&handle);
  }
};

Disassembler::Disassembler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Disassembler::Disassembler(Disassembler&&) noexcept = default;
Disassembler& Disassembler::operator=(Disassembler&&) noexcept = default;
Disassembler::~Disassembler() = default;

Expected<Disassembler> Disassembler::create_x86_64() {
  auto impl = std::make_unique<Impl>();
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &impl->handle) != CS_ERR_OK)
    return make_error(ErrorCode::invalid_argument, kNoOffset,
                      "capstone cannot open an x86-64 disassembler");
  cs_option(impl->handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  impl->insn = cs_malloc(impl->handle);
  if (impl->insn == nullptr)
    return make_error(ErrorCode::invalid_argument, kNoOffset, "capstone cs_malloc failed");
  return Disassembler(std::move(impl));
}

namespace {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Capstone prints displacements and immediates in hex; LLVM's AT&T printer in decimal.
// Rewrite the unambiguous cases: a displacement (hex right before '('), an immediate below
// 2^31, and a 64-bit immediate with the top bit set (always a sign-extended encoding, which
// LLVM prints negative); 32-bit values from 2^31 stay hex (LLVM's sign depends on the
// encoding). Capstone's "(%rax, %rax)" loses the space after the comma, as LLVM prints it.
void append_operands_llvm_style(std::string& out, const char* ops, const uint8_t* bytes,
                                size_t size) {
  // Registers and branch targets only (most operands): nothing to rewrite.
  if (std::strpbrk(ops, "$(") == nullptr) {
    out += ops;
    return;
  }
  int depth = 0;
  for (const char* p = ops; *p != '\0';) {
    if (*p == '(') ++depth;
    if (*p == ')' && depth > 0) --depth;
    if (depth > 0 && p[0] == ',' && p[1] == ' ') {
      out += ',';
      p += 2;
      continue;
    }
    if (p[0] == '$' && p[1] == '-' && p[2] == '0' && p[3] == 'x') {  // "$-0x6d" -> "$-109"
      out += "$-";
      ++p;
      const char* digits = p + 3;
      uint64_t value = 0;
      int count = 0;
      while (is_hex_digit(digits[count]) && count < 17) {
        const char c = digits[count];
        value = value * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        ++count;
      }
      if (count == 0 || count > 16) {
        out.append(p + 1, static_cast<size_t>(count + 2));
      } else {
        out += std::to_string(value);
      }
      p = digits + count;
      continue;
    }
    const bool imm = p[0] == '$' && p[1] == '0' && p[2] == 'x';
    const bool hex = p[0] == '0' && p[1] == 'x';
    if (!imm && !hex) {
      out += *p++;
      continue;
    }
    const char* digits = p + (imm ? 3 : 2);
    const char* end = digits;
    uint64_t value = 0;
    int count = 0;
    while (is_hex_digit(*end) && count < 17) {
      const char c = *end;
      value = value * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      ++end;
      ++count;
    }
    const bool displacement = !imm && *end == '(';
    const bool negative64 = imm && count == 16 && (value >> 63) != 0;
    // A 32-bit value from 2^31: LLVM prints an imm32 unsigned, a sign-extended imm8 negative.
    // The immediate is the last field of the encoding, so compare it with the last bytes.
    bool unsigned32 = false, negative32 = false;
    if (imm && value >= (uint64_t{1} << 31) && value <= 0xffffffffu && size >= 1) {
      unsigned32 = size >= 4 && load_le<uint32_t>(bytes + size - 4) == value;
      negative32 = !unsigned32 && value >= 0xffffff80u &&
                   bytes[size - 1] == static_cast<uint8_t>(value & 0xff);
    }
    if (negative32) {
      out += "$-";
      out += std::to_string((uint64_t{1} << 32) - value);
      p = end;
      continue;
    }
    if (count == 0 || count > 16 ||
        (imm && value >= (uint64_t{1} << 31) && !negative64 && !unsigned32) ||
        (!imm && !displacement)) {
      out.append(p, static_cast<size_t>(end - p));
      p = end;
      continue;
    }
    if (imm) out += '$';
    out += negative64 ? std::to_string(static_cast<int64_t>(value)) : std::to_string(value);
    p = end;
  }
}

// Opcode D0/D1 (shift or rotate by an implicit 1) after legacy and REX prefixes.
bool is_shift_by_one(const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    const uint8_t b = bytes[i];
    const bool prefix = b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
                        b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 || b == 0x36 ||
                        (b >= 0x40 && b <= 0x4f);
    if (!prefix) return b == 0xd0 || b == 0xd1;
  }
  return false;
}

}  // namespace

size_t Disassembler::decode(Bytes code, uint64_t address, std::string& out) {
  const uint8_t* p = code.data();
  size_t size = code.size();
  uint64_t at = address;
  if (!cs_disasm_iter(impl_->handle, &p, &size, &at, impl_->insn)) return 0;
  out += '\t';
  out += impl_->insn->mnemonic;
  if (impl_->insn->op_str[0] != '\0') {
    out += '\t';
    const char* ops = impl_->insn->op_str;
    if (is_shift_by_one(impl_->insn->bytes, impl_->insn->size) && std::strncmp(ops, "$1, ", 4) == 0)
      ops += 4;  // LLVM prints the implicit count of D0/D1 shifts as nothing ("shrl %ecx")
    append_operands_llvm_style(out, ops, impl_->insn->bytes, impl_->insn->size);
  }
  return impl_->insn->size;
}

}  // namespace profkit::symbolize
