// YAML and text for `profkit show --debug-info`.
#include "report/correlation_show.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

#include "format/bytes/number_text.h"

namespace profkit::report {

namespace {

enum class Quoting { none, single, double_quotes };

// Numbers as YAML 1.2 core schema reads them (and LLVM's writer quotes).
bool looks_numeric(std::string_view s) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  std::string_view t = s;
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) t.remove_prefix(1);
  if (t == ".inf" || t == ".Inf" || t == ".INF") return true;
  auto all_of = [](std::string_view v, auto pred) {
    return !v.empty() && std::all_of(v.begin(), v.end(), pred);
  };
  if (s.starts_with("0x"))
    return all_of(s.substr(2), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  if (s.starts_with("0o"))
    return all_of(s.substr(2), [](char c) { return c >= '0' && c <= '7'; });
  // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
  size_t i = 0, digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    size_t exp = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == t.size();
}

Quoting quoting_needed(std::string_view s) {
  if (s.empty()) return Quoting::single;
  if (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t')
    return Quoting::single;
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s == "true" || s == "True" ||
      s == "TRUE" || s == "false" || s == "False" || s == "FALSE" || looks_numeric(s))
    return Quoting::single;
  if (std::string_view(R"(-?:\,[]{}#&*!|>'"%@`)").find(s.front()) != std::string_view::npos)
    return Quoting::single;
  Quoting q = Quoting::none;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0) continue;
    switch (c) {
      case '_': case '-': case '^': case '.': case ',': case ' ': case '\t':
        continue;
      case '\n': case '\r':
        q = Quoting::double_quotes;
        continue;
      case 0x7F:
        return Quoting::double_quotes;
      default:
        if (c <= 0x1F || (c & 0x80) != 0) return Quoting::double_quotes;
        if (q == Quoting::none) q = Quoting::single;  // '/' included, as LLVM quotes paths
    }
  }
  return q;
}

std::string scalar(std::string_view s) {
  switch (quoting_needed(s)) {
    case Quoting::none:
      return std::string(s);
    case Quoting::single: {
      std::string out = "'";
      for (char c : s) {
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case Quoting::double_quotes: break;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c <= 0x1F || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string hex_upper(uint64_t v) {
  std::string digits;
  append_hex(digits, v);
  for (char& c : digits) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "0x" + digits;
}

// A mapping key followed by padding to column 16 (at least one space), as LLVM writes it.
void key(std::string& out, bool first, std::string_view name) {
  out += first ? "  - " : "    ";
  out += name;
  out += ':';
  out.append(name.size() < 16 ? 16 - name.size() : 1, ' ');
}

}  // namespace

std::string debug_info_probes_yaml(const std::vector<symbolize::DebugInfoProbe>& probes) {
  std::string out = "---\nProbes:\n";
  for (const symbolize::DebugInfoProbe& p : probes) {
    key(out, true, "Function Name");
    out += scalar(p.function_name) + "\n";
    if (!p.linkage_name.empty()) {
      key(out, false, "Linkage Name");
      out += scalar(p.linkage_name) + "\n";
    }
    key(out, false, "CFG Hash");
    out += hex_upper(p.cfg_hash) + "\n";
    key(out, false, "Counter Offset");
    out += hex_upper(p.counter_offset) + "\n";
    key(out, false, "Num Counters");
    out += std::to_string(p.num_counters) + "\n";
    if (!p.decl_file.empty()) {
      key(out, false, "File");
      out += scalar(p.decl_file) + "\n";
    }
    if (p.decl_line != 0) {
      key(out, false, "Line");
      out += std::to_string(p.decl_line) + "\n";
    }
  }
  out += "...\n";
  return out;
}

std::string debug_info_summary(const std::vector<std::string>& names, size_t num_functions,
                               bool list_names) {
  std::string out;
  if (list_names) {
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const std::string& n : sorted) out += n + "\n";
  }
  out += "Found " + std::to_string(num_functions) + " functions\n";
  return out;
}

}  // namespace profkit::report
