// `merge --function=RE` / `--no-function=RE` as llvm-profdata reads them, for IR-PGO and
// sample profiles alike: POSIX extended regular expressions searched anywhere in a name
// (llvm::Regex::match); a pattern that starts with '?' is an MSVC-mangled name and is
// matched as plain text. The negative pattern wins over the positive one.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace profkit::cli {

class NamePattern {
 public:
  explicit NamePattern(const std::string& text)
      : text_(text), literal_(!text.empty() && text[0] == '?') {
    if (!literal_) re_ = std::regex(text, std::regex::extended);  // throws std::regex_error
  }
  bool matches(std::string_view name) const {
    return literal_ ? name.find(text_) != std::string_view::npos
                    : std::regex_search(name.begin(), name.end(), re_);
  }

 private:
  std::string text_;
  bool literal_;
  std::regex re_;
};

struct NameFilter {
  std::optional<NamePattern> keep;  // --function
  std::optional<NamePattern> drop;  // --no-function
  bool active() const { return keep || drop; }
  bool keeps(std::string_view name) const {
    if (drop && drop->matches(name)) return false;
    return !keep || keep->matches(name);
  }
};

// The filter of `function` / `no_function` (empty: none). Prints one error line and returns
// nothing when a pattern is not a valid regular expression.
std::optional<NameFilter> make_name_filter(const std::string& function,
                                           const std::string& no_function);

}  // namespace profkit::cli
