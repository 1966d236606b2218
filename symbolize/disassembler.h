// x86-64 instruction decoding and AT&T-syntax text through capstone, for listings that sit
// beside LLVM's (llvm-profgen --show-disassembly-only). Lengths match LLVM's decoder on valid
// code; the text differs in details (capstone prints immediates in hex, e.g. `$0x8`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "format/bytes/cursor.h"

namespace profkit::symbolize {

class Disassembler {
 public:
  // An x86-64 disassembler printing AT&T syntax.
  static Expected<Disassembler> create_x86_64();

  Disassembler(Disassembler&&) noexcept;
  Disassembler& operator=(Disassembler&&) noexcept;
  ~Disassembler();

  // Decodes the instruction at the start of `code`, located at `address`, and appends
  // "\tMNEMONIC[\tOPERANDS]" to `out`. Returns its length in bytes, or 0 (and appends
  // nothing) when the bytes do not decode.
  size_t decode(Bytes code, uint64_t address, std::string& out);

 private:
  struct Impl;
  explicit Disassembler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace profkit::symbolize
