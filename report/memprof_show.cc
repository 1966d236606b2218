// Printers reproducing llvm-profdata 22's memprof text: the raw view is LLVM's hand-written
// YAML-like dump, the indexed view is its YAML writer output (16-column key padding).
#include "report/memprof_show.h"

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cstring>

#include "format/bytes/number_text.h"

namespace profkit::report {
namespace {

std::string hex_upper(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}


std::string hex_lower(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A YAML block-mapping key as LLVM's YAML writer pads it.
std::string key(std::string_view k) {
  std::string s(k);
  s += ':';
  if (k.size() < 16)
    s.append(16 - k.size(), ' ');
  else
    s += ' ';
  return s;
}

void raw_frame(std::string& out, const memprof::Frame& f, const memprof::MemProfData& data) {
  auto name = data.names.find(f.function);
  out += "        Function: " + std::to_string(f.function) + "\n";
  out += "        SymbolName: " + (name != data.names.end() ? name->second : std::string()) + "\n";
  out += "        LineOffset: " + std::to_string(f.line_offset) + "\n";
  out += "        Column: " + std::to_string(f.column) + "\n";
  out += "        Inline: " + std::string(f.is_inline ? "1" : "0") + "\n";
}

std::string yaml_frame(const memprof::Frame& f) {
  return "{ Function: " + hex_lower(f.function) + ", LineOffset: " +
         std::to_string(f.line_offset) + ", Column: " + std::to_string(f.column) +
         ", IsInlineFrame: " + (f.is_inline ? "true" : "false") + " }";
}

bool yaml_is_null(std::string_view s) {
  return s == "null" || s == "Null" || s == "NULL" || s == "~";
}
bool yaml_is_bool(std::string_view s) {
  return s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" ||
         s == "FALSE";
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// LLVM's yaml::isNumeric: integers (decimal, 0x, 0o), floats, .inf and .nan.
bool yaml_is_numeric(std::string_view s) {
  if (s.empty()) return false;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  std::string_view tail = s;
  if (tail.front() == '-' || tail.front() == '+') tail.remove_prefix(1);
  if (tail == ".inf" || tail == ".Inf" || tail == ".INF") return true;
  const auto all = [](std::string_view t, auto pred) {
    return !t.empty() && std::all_of(t.begin(), t.end(), pred);
  };
  if (s.starts_with("0o")) return all(s.substr(2), [](char c) { return c >= '0' && c <= '7'; });
  if (s.starts_with("0x"))
    return all(s.substr(2), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  // [-+]? (\.[0-9]+ | [0-9]+(\.[0-9]*)?) ([eE][-+]?[0-9]+)?
  size_t i = 0;
  const std::string_view t = tail;
  if (t.empty()) return false;
  if (t[0] == '.') {
    if (t.size() < 2 || !is_digit(t[1])) return false;
    i = 1;
    while (i < t.size() && is_digit(t[i])) ++i;
  } else {
    if (!is_digit(t[0])) return false;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i < t.size() && t[i] == '.') {
      ++i;
      while (i < t.size() && is_digit(t[i])) ++i;
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= t.size() || !is_digit(t[i])) return false;
    while (i < t.size() && is_digit(t[i])) ++i;
  }
  return i == t.size();
}

// A string scalar as LLVM's YAML writer prints it (yaml::needsQuotes, then single quotes
// with '' or double quotes with yaml::escape).
std::string yaml_string(std::string_view s) {
  enum { none, single, dbl } q = none;
  if (s.empty()) q = single;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  if (!s.empty() && (space(s.front()) || space(s.back()))) q = single;
  if (yaml_is_null(s) || yaml_is_bool(s) || yaml_is_numeric(s)) q = single;
  if (!s.empty() && std::strchr("-?:\\,[]{}#&*!|>'\"%@`", s[0]) != nullptr) q = single;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '^' || c == '.' || c == ',' ||
        c == ' ' || c == '\t')
      continue;
    if (c == '\n' || c == '\r') {
      if (q == none) q = single;
      continue;
    }
    if (c == 0x7f || c <= 0x1f || (c & 0x80) != 0) {
      q = dbl;
      break;
    }
    if (q == none) q = single;
  }
  if (q == none) return std::string(s);
  std::string out;
  if (q == single) {
    out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }
  out = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      static const char* const kShort[] = {"\\0", nullptr, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, "\\a", "\\b", "\\t", "\\n", "\\v",
                                           "\\f", "\\r"};
      if (c == '\\') {
        out += "\\\\";
      } else if (c == '"') {
        out += "\\\"";
      } else if (c < std::size(kShort) && kShort[c] != nullptr) {
        out += kShort[c];
      } else if (c == 0x1b) {
        out += "\\e";
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\x%02X", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // UTF-8: printable code points stay as they are; invalid input ends the text with
    // U+FFFD, as yaml::escape does.
    const size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    bool ok = len != 0 && i + len <= s.size();
    uint32_t cp = ok ? (c & (0x7f >> len)) : 0;
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      ok = (d & 0xc0) == 0x80;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (!ok) {
      out += "\xEF\xBF\xBD";
      break;
    }
    if (cp == 0x85) {
      out += "\\N";
    } else if (cp == 0xa0) {
      out += "\\_";
    } else if (cp == 0x2028) {
      out += "\\L";
    } else if (cp == 0x2029) {
      out += "\\P";
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out + "\"";
}

void show_data_access(std::string& out, const memprof::DataAccessProfile& d) {
  out += "DataAccessProfiles:\n";
  if (!d.records.empty()) {
    out += "  SampledRecords:\n";
    std::vector<const memprof::DataAccessRecord*> sorted;
    for (const auto& r : d.records) sorted.push_back(&r);
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
      return a->access_count > b->access_count;
    });
    for (const auto* r : sorted) {
      out += "    - " + (r->is_string_literal ? key("Hash") + std::to_string(r->hash)
                                                : key("Symbol") + yaml_string(r->symbol)) + "\n";
      out += "      " + key("AccessCount") + std::to_string(r->access_count) + "\n";
      if (!r->locations.empty()) out += "      Locations:\n";
      for (const auto& l : r->locations) {
        out += "        - " + key("FileName") + yaml_string(l.file) + "\n";
        out += "          " + key("Line") + std::to_string(l.line) + "\n";
      }
    }
  }
  if (!d.known_cold_symbols.empty()) {
    out += "  KnownColdSymbols:\n";
    std::vector<std::string> names = d.known_cold_symbols;
    std::sort(names.begin(), names.end());
    for (const auto& n : names) out += "    - " + yaml_string(n) + "\n";
  }
  if (!d.known_cold_hashes.empty()) {
    // A flow sequence: LLVM's writer breaks the line before an element once the line is
    // past column 80 here, and indents continuation lines under the '[' plus two.
    std::vector<uint64_t> hashes = d.known_cold_hashes;
    std::sort(hashes.begin(), hashes.end());
    std::string line = "  KnownColdStrHashes: [ ";
    const size_t indent = line.size();
    for (size_t i = 0; i < hashes.size(); ++i) {
      if (i > 0) line += ", ";
      if (line.size() > 80) {
        out += line + "\n";
        line.assign(indent, ' ');
      }
      line += std::to_string(hashes[i]);
    }
    out += line + " ]\n";
  }
}

}  // namespace

std::string show_memprof_summary(const memprof::MemProfSummary& s) {
  std::string out = "---\n# MemProfSummary:\n";
  out += "#   Total contexts: " + std::to_string(s.num_contexts) + "\n";
  out += "#   Total cold contexts: " + std::to_string(s.num_cold_contexts) + "\n";
  out += "#   Total hot contexts: " + std::to_string(s.num_hot_contexts) + "\n";
  out += "#   Maximum cold context total size: " + std::to_string(s.max_cold_total_size) + "\n";
  out += "#   Maximum warm context total size: " + std::to_string(s.max_warm_total_size) + "\n";
  out += "#   Maximum hot context total size: " + std::to_string(s.max_hot_total_size) + "\n";
  return out;
}

std::string show_memprof_raw(uint64_t version, const std::vector<memprof::Segment>& segments,
                             const memprof::MemProfData& data, uint64_t stacks_kept) {
  std::string out = show_memprof_summary(memprof::compute_summary(data, true));
  uint64_t num_mib = 0, num_alloc_fns = 0;
  for (const auto& r : data.records) {
    num_mib += r.alloc_sites.size();
    if (!r.alloc_sites.empty()) ++num_alloc_fns;
  }
  out += "MemprofProfile:\n  Summary:\n";
  out += "    Version: " + std::to_string(version) + "\n";
  out += "    NumSegments: " + std::to_string(segments.size()) + "\n";
  out += "    NumMibInfo: " + std::to_string(num_mib) + "\n";
  out += "    NumAllocFunctions: " + std::to_string(num_alloc_fns) + "\n";
  out += "    NumStackOffsets: " + std::to_string(stacks_kept) + "\n";
  if (!segments.empty()) out += "  Segments:\n";
  for (const auto& seg : segments) {
    out += "  -\n    BuildId: ";
    out += seg.build_id.empty() ? std::string("<None>") : hex_bytes(seg.build_id);
    out += "\n    Start: " + hex_upper(seg.start) + "\n";
    out += "    End: " + hex_upper(seg.end) + "\n";
    out += "    Offset: " + hex_upper(seg.offset) + "\n";
  }
  if (!data.records.empty()) out += "  Records:\n";
  for (const auto& r : data.records) {
    out += "  -\n    FunctionGUID: " + std::to_string(r.guid) + "\n";
    if (!r.alloc_sites.empty()) out += "    AllocSites:\n";
    for (const auto& a : r.alloc_sites) {
      out += "    -\n      Callstack:\n";
      for (const auto& f : data.stacks.stack(a.stack)) {
        out += "      -\n";
        raw_frame(out, f, data);
      }
      out += "      MemInfoBlock:\n";
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  out += "        " #Name ": " + std::to_string(a.mib.Name) + "\n";
#include "format/memprof/mib_fields.def"
      if (a.mib.AccessHistogramSize > 0) {
        out += "        AccessHistogramValues:";
        for (uint64_t v : a.histogram) out += " " + std::to_string(v);
        out += "\n";
      }
    }
    if (!r.call_sites.empty()) out += "    CallSites:\n";
    for (const auto& c : r.call_sites) {
      for (const auto& f : data.stacks.stack(c.stack)) {
        out += "    -\n      -\n";
        raw_frame(out, f, data);
      }
    }
  }
  return out;
}

std::string show_memprof_indexed(const memprof::IndexedMemProf& p) {
  const memprof::MemProfSummary summary =
      p.summary ? *p.summary : memprof::compute_summary(p.data, false);
  std::string out = show_memprof_summary(summary);
  const memprof::DataAccessProfile& dap = p.data.data_access;
  if (p.has_data_access_profile) {
    out += "#   Num hot symbols and string literals: " + std::to_string(dap.records.size()) + "\n";
    out += "#   Num known cold symbols: " + std::to_string(dap.known_cold_symbols.size()) + "\n";
    out += "#   Num known cold string literals: " + std::to_string(dap.known_cold_hashes.size()) +
           "\n";
  }
  if (p.data.records.empty() && dap.empty()) {
    out += "---\n{}\n...\n";
    return out;
  }
  out += "---\n";
  if (!p.data.records.empty()) out += "HeapProfileRecords:\n";
  for (const auto& r : p.data.records) {
    out += "  - " + key("GUID") + hex_lower(r.guid) + "\n";
    if (!r.alloc_sites.empty()) out += "    AllocSites:\n";
    for (const auto& a : r.alloc_sites) {
      out += "      - Callstack:\n";
      for (const auto& f : p.data.stacks.stack(a.stack))
        out += "          - " + yaml_frame(f) + "\n";
      out += "        MemInfoBlock:\n";
      for (uint64_t tag : p.schema) {
        switch (tag) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge)                                  \
  case Tag:                                                                        \
    out += "          " + key(#Name) + std::to_string(a.mib.Name) + "\n";          \
    break;
#include "format/memprof/mib_fields.def"
          default:
            break;
        }
      }
    }
    if (!r.call_sites.empty()) out += "    CallSites:\n";
    for (const auto& c : r.call_sites) {
      out += "      - Frames:\n";
      for (const auto& f : p.data.stacks.stack(c.stack))
        out += "          - " + yaml_frame(f) + "\n";
      if (!c.callee_guids.empty()) {
        out += "        " + key("CalleeGuids") + "[ ";
        for (size_t i = 0; i < c.callee_guids.size(); ++i)
          out += (i ? ", " : "") + hex_lower(c.callee_guids[i]);
        out += " ]\n";
      }
    }
  }
  if (!dap.empty()) show_data_access(out, dap);
  out += "...\n";
  return out;
}

}  // namespace profkit::report
