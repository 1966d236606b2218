#include "tests/support/memprof_show.h"

#include <sstream>
#include <vector>

#include "tests/support/harness.h"

namespace profkit::test {

namespace {
// The text after "Name:" with its leading spaces removed.
std::string value_of(const std::string& s) {
  std::string v = s.substr(s.find(':') + 1);
  const size_t b = v.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : v.substr(b);
}
}  // namespace

MemProfContexts parse_llvm_memprof_show(const std::string& text) {
  MemProfContexts contexts;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> frames;
  MibFields fields;
  enum { kNone, kStack, kMib } state = kNone;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string s = line.substr(first);
    if (s.rfind("Callstack:", 0) == 0) {
      frames.clear();
      state = kStack;
    } else if (state == kStack && s.rfind("SymbolName:", 0) == 0) {
      frames.push_back(value_of(s));
    } else if (state == kStack && (s.rfind("LineOffset:", 0) == 0 || s.rfind("Column:", 0) == 0)) {
      frames.back() += ":" + value_of(s);
    } else if (s.rfind("MemInfoBlock:", 0) == 0) {
      state = kMib;
      fields.clear();
    } else if (state == kMib && s.find(':') != std::string::npos && s[0] != '-') {
      const std::string name = s.substr(0, s.find(':'));
      fields[name] = value_of(s);
      if (name == "AccessHistogram") {  // the last field of a MemInfoBlock
        std::string joined;
        for (const auto& f : frames) joined += (joined.empty() ? "" : ">") + f;
        contexts[joined] = fields;
        state = kNone;
      }
    }
  }
  return contexts;
}

MemProfContexts llvm_memprof_show(const std::string& binary, const std::string& raw) {
  const auto r = run_ok("llvm-profdata-22 show --memory --profiled-binary=" + sh_quote(binary) +
                        " " + sh_quote(raw));
  return parse_llvm_memprof_show(r.out);
}

}  // namespace profkit::test
