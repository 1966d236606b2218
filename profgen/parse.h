// Lines and numbers of perf scripts and unsymbolized profiles, read as llvm-profgen reads
// them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace profkit::profgen {

// A number as LLVM's StringRef::getAsInteger reads it: the whole text in the given radix,
// no sign, prefix or blanks, no overflow.
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


// Lines as std::getline gives them: split at '\n' only (a '\r' stays part of the line), no
// line after a final '\n'. Line numbers start at 1.
class TraceLines {
 public:
  explicit TraceLines(std::string_view text) : text_(text) { advance(); }
  bool at_eof() const { return eof_; }
  std::string_view line() const { return line_; }
  uint64_t line_number() const { return number_; }
  uint64_t offset() const { return start_; }  // of the current line
  void advance() {
    if (pos_ >= text_.size()) {
      eof_ = true;
      line_ = {};
      start_ = text_.size();
      return;
    }
    const size_t end = text_.find('\n', pos_);
    const size_t stop = end == std::string_view::npos ? text_.size() : end;
    start_ = pos_;
    line_ = text_.substr(pos_, stop - pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++number_;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t start_ = 0;
  std::string_view line_;
  uint64_t number_ = 0;
  bool eof_ = false;
};

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
inline std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}
inline std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace profkit::profgen
