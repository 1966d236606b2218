// Numbers in perf scripts and unsymbolized profiles, read as LLVM's StringRef::getAsInteger
// reads them: the whole text in the given radix, no sign, prefix or blanks, no overflow.
#pragma once

#include <cstdint>
#include <string_view>

namespace profkit::profgen {

inline bool parse_unsigned(std::string_view s, int radix, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10;
    else return false;
    if (d >= radix) return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(radix)) return false;
    v = v * static_cast<uint64_t>(radix) + static_cast<uint64_t>(d);
  }
  out = v;
  return true;
}

}  // namespace profkit::profgen
