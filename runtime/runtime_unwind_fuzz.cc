// Property: the unwind-table reader (rule_from_tables) never reads outside the object image
// it is given, terminates, and any rule it returns is one the walker can follow safely (the
// CFA above the frame's stack pointer, the caller's rbp saved below the CFA).
// Input: u64 pc offset, u32 .eh_frame_hdr offset, then the image bytes. The seeds are the
// .eh_frame_hdr and .eh_frame of real binaries (scripts/unwind-fuzz-seed.py).
// The reader lives in the runtime (not in profkit_format), so its source is compiled in.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "runtime/unwind.cc"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 12) return 0;
  uint64_t pc_offset;
  uint32_t hdr_offset;
  __builtin_memcpy(&pc_offset, data, 8);
  __builtin_memcpy(&hdr_offset, data + 8, 4);
  // An exact-size copy, so that AddressSanitizer sees any read past the image.
  const std::vector<uint8_t> image(data + 12, data + size);
  if (image.empty()) return 0;
  const uint8_t* lo = image.data();
  const uintptr_t pc = reinterpret_cast<uintptr_t>(lo) + pc_offset;
  const profkit::rt::FrameRule rule =
      profkit::rt::rule_from_tables(lo, lo + image.size(), lo + hdr_offset % image.size(), pc);
  using profkit::rt::FrameRule;
  if (rule.kind == FrameRule::from_rsp || rule.kind == FrameRule::from_rbp) {
    if (rule.cfa_offset < 8) __builtin_trap();
    // A saved rbp must lie wholly below the CFA, where the walker has checked the stack.
    if (rule.rbp == FrameRule::rbp_saved && rule.rbp_offset > -8) __builtin_trap();
  }
  return 0;
}
