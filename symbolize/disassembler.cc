// Capstone-backed disassembler. One cs_insn buffer is reused for every instruction
// (cs_disasm_iter), so decoding a large text section does not allocate per instruction.
#include "symbolize/disassembler.h"

#include <capstone/capstone.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace profkit::symbolize {

namespace {

// Instruction text by instruction bytes. x86 encodings are prefix-free (the decoder stops
// after the bytes it has read), so when the first L bytes at an address equal the bytes of an
// instruction decoded earlier, the instruction there is that one, with that length; and its
// text is the same unless it names an address relative to its own (jumps, calls, loops,
// xbegin), which are never cached. RIP-relative operands print as displacements, so they do
// not depend on the address. Capstone's printer (sprintf per operand) dominated large
// listings; most instructions of a binary repeat.
class TextCache {
 public:
  static constexpr size_t kMaxLength = 15;

  // The cached instruction at the start of `code`: its length and text, or length 0.
  size_t find(const uint8_t* code, size_t size, std::string_view& text) const {
    if (size < 2 || !slots_ || !lengths_) return 0;
    uint32_t mask = lengths_[code[0] << 8 | code[1]];
    while (mask != 0) {
      const size_t length = static_cast<size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      if (length > size) break;
      const Key key = make_key(code, length);
      for (size_t i = key.hash & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
        const Slot& slot = slots_[i];
        if (slot.length == 0) break;
        if (slot.length == length && slot.lo == key.lo && slot.hi == key.hi) {
          text = std::string_view(arena_.data() + slot.text, slot.text_length);
          return length;
        }
      }
    }
    return 0;
  }

  void insert(const uint8_t* code, size_t length, std::string_view text) {
    if (length < 2 || length > kMaxLength || text.size() > 0xffff || !slots_ || !lengths_) return;
    if (count_ >= kMaxEntries || arena_.size() + text.size() > kMaxArena) return;
    if (is_relative_branch(code, length)) return;
    const Key key = make_key(code, length);
    size_t i = key.hash & (kSlots - 1);
    while (slots_[i].length != 0) {
      if (slots_[i].length == length && slots_[i].lo == key.lo && slots_[i].hi == key.hi) return;
      i = (i + 1) & (kSlots - 1);
    }
    slots_[i] = Slot{key.lo, key.hi, static_cast<uint32_t>(arena_.size()),
                     static_cast<uint16_t>(text.size()), static_cast<uint8_t>(length)};
    arena_.append(text);
    lengths_[code[0] << 8 | code[1]] |= 1u << length;
    ++count_;
  }

 private:
  static constexpr size_t kMaxEntries = 1u << 18;
  static constexpr size_t kSlots = kMaxEntries * 2;  // at most half full
  static constexpr size_t kMaxArena = 24u << 20;

  struct Key {
    uint64_t lo, hi, hash;
  };
  struct Slot {
    uint64_t lo = 0, hi = 0;
    uint32_t text = 0;
    uint16_t text_length = 0;
    uint8_t length = 0;  // 0: empty slot
  };

  static Key make_key(const uint8_t* code, size_t length) {
    uint8_t buf[16] = {};
    std::memcpy(buf, code, length);
    Key k;
    std::memcpy(&k.lo, buf, 8);
    std::memcpy(&k.hi, buf + 8, 8);
    uint64_t h = (k.lo ^ (k.hi * 0x9e3779b97f4a7c15ull) ^ length) * 0xff51afd7ed558ccdull;
    k.hash = h ^ (h >> 29);
    return k;
  }

  // Opcodes whose text names a target relative to the instruction's address.
  static bool is_relative_branch(const uint8_t* code, size_t length) {
    size_t i = 0;
    while (i < length) {
      const uint8_t b = code[i];
      const bool prefix = b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
                          b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 || b == 0x36 ||
                          b == 0xf0 || (b >= 0x40 && b <= 0x4f);
      if (!prefix) break;
      ++i;
    }
    if (i >= length) return true;  // only prefixes: do not cache
    const uint8_t op = code[i];
    if (op == 0xe8 || op == 0xe9 || op == 0xeb || (op >= 0x70 && op <= 0x7f) ||
        (op >= 0xe0 && op <= 0xe3))
      return true;
    if (op == 0x0f && i + 1 < length && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f) return true;
    if (op == 0xc7 && i + 1 < length && code[i + 1] == 0xf8) return true;  // xbegin
    return false;
  }

  // calloc: fresh zero pages stay untouched (and cost nothing) until an entry lands there.
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<Slot[], Free> slots_{static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)))};
  // Bit L of lengths_[first two bytes]: some entry of length L starts with those bytes.
  std::unique_ptr<uint16_t[], Free> lengths_{
      static_cast<uint16_t*>(std::calloc(1u << 16, sizeof(uint16_t)))};
  std::string arena_;
  size_t count_ = 0;
};

}  // namespace

struct Disassembler::Impl {
  csh handle = 0;
  cs_insn* insn = nullptr;
  TextCache cache;
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
                                size_t size, int operand_bits) {
  // Registers and branch targets only (most operands): nothing to rewrite.
  if (std::strpbrk(ops, "$(:") == nullptr) {
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
    // A displacement: hex right before '(', or a segment-relative absolute address ("%fs:0x28").
    const bool displacement = !imm && (*end == '(' || (p > ops && p[-1] == ':'));
    // An imm64 (movabsq: the last 8 bytes of the encoding) prints as a signed decimal.
    const bool imm64 = imm && size >= 8 && load_le<uint64_t>(bytes + size - 8) == value;
    const bool negative64 = imm && ((count == 16 && (value >> 63) != 0) || imm64);
    // 8-bit operations print their immediate signed ("cmpb $-11"); 16-bit ones print a
    // sign-extended imm8 negative and a full imm16 unsigned, like the 32-bit rule below.
    if (imm && operand_bits == 8 && value >= 0x80 && value <= 0xff) {
      out += "$-";
      out += std::to_string(0x100 - value);
      p = end;
      continue;
    }
    if (imm && operand_bits == 16 && value >= 0xff80 && value <= 0xffff && size >= 2 &&
        load_le<uint16_t>(bytes + size - 2) != value &&
        bytes[size - 1] == static_cast<uint8_t>(value & 0xff)) {
      out += "$-";
      out += std::to_string(0x10000 - value);
      p = end;
      continue;
    }
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
        (imm && value >= (uint64_t{1} << 31) && !negative64 && !unsigned32 && !imm64) ||
        (!imm && !displacement)) {
      out.append(p, static_cast<size_t>(end - p));
      p = end;
      continue;
    }
    if (imm) out += '$';
    out += negative64 || imm64 ? std::to_string(static_cast<int64_t>(value))
                               : std::to_string(value);
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

// Width of the operation for immediates that LLVM prints signed: the ALU and move
// mnemonics with a b (8-bit) or w (16-bit) suffix; 0 for everything else.
int narrow_operand_bits(std::string_view mnemonic) {
  static constexpr std::string_view kAlu[] = {"add", "or",  "adc", "sbb", "and", "sub",
                                              "xor", "cmp", "mov", "test", "imul", "push"};
  if (mnemonic.size() < 3) return 0;
  const char suffix = mnemonic.back();
  if (suffix != 'b' && suffix != 'w') return 0;
  const std::string_view stem = mnemonic.substr(0, mnemonic.size() - 1);
  for (std::string_view alu : kAlu)
    if (stem == alu) return suffix == 'b' ? 8 : 16;
  return 0;
}

// A REX prefix with W=1 among the prefixes (legacy encodings only).
bool has_rex_w(const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    const uint8_t b = bytes[i];
    if (b >= 0x40 && b <= 0x4f) return (b & 0x08) != 0;
    if (!(b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e ||
          b == 0x26 || b == 0x64 || b == 0x65 || b == 0x36))
      return false;
  }
  return false;
}

// String instructions whose destination LLVM prints with the %es: segment.
bool writes_es_rdi(std::string_view op) {
  return op.rfind("stos", 0) == 0 || op.rfind("movs", 0) == 0 || op.rfind("scas", 0) == 0 ||
         op.rfind("cmps", 0) == 0 || op.rfind("ins", 0) == 0;
}

}  // namespace

size_t Disassembler::decode(Bytes code, uint64_t address, std::string& out) {
  std::string_view cached;
  if (size_t length = impl_->cache.find(code.data(), code.size(), cached); length != 0) {
    out += cached;
    return length;
  }
  // LLVM decodes a lock prefix as an instruction of its own ("lock", then "xaddl ...").
  if (code.size() >= 2 && code[0] == 0xf0) {
    out += "\tlock";
    return 1;
  }
  const uint8_t* p = code.data();
  size_t size = code.size();
  uint64_t at = address;
  if (!cs_disasm_iter(impl_->handle, &p, &size, &at, impl_->insn)) return 0;
  const size_t start = out.size();
  const uint8_t* bytes = impl_->insn->bytes;
  const size_t length = impl_->insn->size;
  std::string_view mnemonic = impl_->insn->mnemonic;
  std::string_view ops = impl_->insn->op_str;
  out += '\t';
  // "rep stosq" -> "rep\t\tstosq" (LLVM prints the prefix, two tabs, the instruction).
  bool es_destination = false;
  if (const size_t space = mnemonic.find(' '); space != std::string_view::npos &&
                                               mnemonic.rfind("rep", 0) == 0) {
    out += mnemonic.substr(0, space);
    out += "\t\t";
    mnemonic = mnemonic.substr(space + 1);
    es_destination = writes_es_rdi(mnemonic);
  }
  // Register forms of cvtsi2s{s,d}: LLVM drops the l/q suffix (the register names the size).
  if ((mnemonic == "cvtsi2ssl" || mnemonic == "cvtsi2ssq" || mnemonic == "cvtsi2sdl" ||
       mnemonic == "cvtsi2sdq" || mnemonic == "vcvtsi2ssl" || mnemonic == "vcvtsi2ssq" ||
       mnemonic == "vcvtsi2sdl" || mnemonic == "vcvtsi2sdq") &&
      !ops.empty() && ops[0] == '%') {
    mnemonic.remove_suffix(1);
  }
  if (mnemonic == "movd" && has_rex_w(bytes, length)) {
    out += "movq";  // 66 REX.W 0F 6E/7E moves 64 bits: LLVM spells it movq
  } else if (mnemonic == "pushq" && bytes[0] == 0x66) {
    out += "pushw";  // capstone 4 ignores the operand-size prefix of push imm
  } else {
    out += mnemonic;
  }
  if (!ops.empty()) {
    out += '\t';
    if (is_shift_by_one(bytes, length) && ops.rfind("$1, ", 0) == 0)
      ops.remove_prefix(4);  // LLVM prints the implicit count of D0/D1 shifts as nothing
    std::string es_ops;
    if (es_destination) {  // the (%rdi) destination gets its %es: segment
      const size_t rdi = ops.rfind("(%rdi)");
      if (rdi != std::string_view::npos && (rdi < 4 || ops.substr(rdi - 4, 4) != "%es:")) {
        es_ops.assign(ops.substr(0, rdi));
        es_ops += "%es:";
        es_ops += ops.substr(rdi);
        ops = es_ops;
      }
    }
    const std::string ops_z(ops);  // NUL-terminated for the rewriter
    append_operands_llvm_style(out, ops_z.c_str(), bytes, length, narrow_operand_bits(mnemonic));
  }
  impl_->cache.insert(code.data(), impl_->insn->size,
                      std::string_view(out).substr(start));
  return impl_->insn->size;
}

}  // namespace profkit::symbolize
