// Numbers as text for writers and printers, as printf would print them but without its
// locale and format-string parsing: decimal and hexadecimal, optionally right-aligned in a
// field of spaces (printf's "%*" width). One home for what every text writer needs.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <span>
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

// Each byte as two lowercase hex digits, in order (build ids, digests).
inline void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
}
inline std::string hex_bytes(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  append_hex_bytes(out, bytes);
  return out;
}

// printf-style text, for the few outputs whose float rendering must match a C printf
// exactly (LLVM's `format("%.2f%%")`, `%0.6g` of a float). At most 511 characters.
template <class... Args>
void append_printf(std::string& out, const char* format, Args... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, format, args...);
  if (n > 0) out.append(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
}

// Pads the line that starts at out[line_start] with spaces to `column`, always at least one
// (llvm::formatted_raw_ostream::PadToColumn, which LLVM's tables are laid out with).
inline void pad_to_column(std::string& out, size_t line_start, size_t column) {
  const size_t at = out.size() - line_start;
  out.append(at < column ? column - at : 1, ' ');
}

// One line of LLVM's ProfileSummary::printDetailedSummary: both percentages computed in
// single precision, then printed as doubles ("%.2f", "%0.6g"), as LLVM does.
inline void append_detailed_summary_line(std::string& out, uint64_t entry_counts,
                                         uint64_t total_counts, uint64_t min_count,
                                         uint64_t cutoff) {
  const float blocks = total_counts != 0 ? 100.f * static_cast<float>(entry_counts) /
                                               static_cast<float>(total_counts)
                                         : 0.f;
  const float cut = 100.f * static_cast<float>(cutoff) / 1000000.f;
  append_decimal(out, entry_counts);
  append_printf(out, " blocks (%.2f%%) with count >= ", static_cast<double>(blocks));
  append_decimal(out, min_count);
  append_printf(out, " account for %0.6g%% of the total counts.\n", static_cast<double>(cut));
}

}  // namespace profkit
