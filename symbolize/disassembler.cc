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

size_t Disassembler::decode(Bytes code, uint64_t address, std::string& out) {
  const uint8_t* p = code.data();
  size_t size = code.size();
  uint64_t at = address;
  if (!cs_disasm_iter(impl_->handle, &p, &size, &at, impl_->insn)) return 0;
  out += '\t';
  out += impl_->insn->mnemonic;
  if (impl_->insn->op_str[0] != '\0') {
    out += '\t';
    out += impl_->insn->op_str;
  }
  return impl_->insn->size;
}

}  // namespace profkit::symbolize
