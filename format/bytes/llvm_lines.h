// Lines as LLVM's line_iterator (SkipBlanks, comment marker '#') yields them, which every
// LLVM text profile reader uses: "\n" or "\r\n" ends a line (a lone '\r' stays in it), empty
// lines and lines starting with '#' are skipped. Offsets and line numbers are those of the
// text given (callers that stop at a NUL byte, as the sample reader does, pass the text up
// to it).
#pragma once

#include <cstdint>
#include <string_view>

namespace profkit {

class LlvmLines {
 public:
  explicit LlvmLines(std::string_view text) : text_(text) { next(); }

  bool has_line() const { return has_line_; }
  std::string_view line() const { return line_; }
  uint64_t offset() const { return line_start_; }       // of the current line
  uint64_t line_number() const { return line_number_; }  // 1-based, skipped lines counted
  uint64_t remaining_bytes() const { return text_.size() - pos_; }

  void next() {
    while (pos_ < text_.size()) {
      const size_t start = pos_;
      const size_t end = text_.find('\n', pos_);
      size_t content_end = end == std::string_view::npos ? text_.size() : end;
      if (end != std::string_view::npos && content_end > start && text_[content_end - 1] == '\r')
        --content_end;
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
      ++line_number_;
      if (content_end == start || text_[start] == '#') continue;
      line_ = text_.substr(start, content_end - start);
      line_start_ = start;
      has_line_ = true;
      return;
    }
    line_ = {};  // past the last line
    line_start_ = text_.size();
    has_line_ = false;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string_view line_;
  uint64_t line_start_ = 0;
  uint64_t line_number_ = 0;
  bool has_line_ = false;
};

}  // namespace profkit
