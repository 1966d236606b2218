// Numbers as text for writers and printers, as printf would print them but without its
// locale and format-string parsing: decimal and hexadecimal, optionally right-aligned in a
// field of spaces (printf's "%*" width). One home for what every text writer needs.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace profkit {

// Appends `digits` right-aligned in a field of `width` characters (space padded).
inline void append_padded(std::string& out, std::string_view digits, size_t width) {
  if (digits.size() < width) out.append(width - digits.size(), ' ');
  out.append(digits);
}

// printf("%llu") / printf("%lld"); with a width, printf("%*llu").
template <class Int>
void append_decimal(std::string& out, Int v, size_t width = 0) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  append_padded(out, std::string_view(buf, static_cast<size_t>(r.ptr - buf)), width);
}

// printf("%llx"); with a width, printf("%*llx").
inline void append_hex(std::string& out, uint64_t v, size_t width = 0) {
  char buf[16];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  append_padded(out, std::string_view(buf, static_cast<size_t>(r.ptr - buf)), width);
}

}  // namespace profkit
