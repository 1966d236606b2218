// Printers reproducing llvm-profdata 22's memprof text: the raw view is LLVM's hand-written
// YAML-like dump, the indexed view is its YAML writer output (16-column key padding).
#include "report/memprof_show.h"

#include <cstdio>


namespace profkit::report {
namespace {

std::string hex_upper(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

std::string build_id_hex(const std::vector<uint8_t>& id) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
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

std::string show_memprof_raw(const memprof::MergedRaw& raw, const memprof::MemProfData& data,
                             uint64_t stacks_kept) {
  std::string out = show_memprof_summary(memprof::compute_summary(data, true));
  uint64_t num_mib = 0, num_alloc_fns = 0;
  for (const auto& r : data.records) {
    num_mib += r.alloc_sites.size();
    if (!r.alloc_sites.empty()) ++num_alloc_fns;
  }
  out += "MemprofProfile:\n  Summary:\n";
  out += "    Version: " + std::to_string(raw.version) + "\n";
  out += "    NumSegments: " + std::to_string(raw.segments.size()) + "\n";
  out += "    NumMibInfo: " + std::to_string(num_mib) + "\n";
  out += "    NumAllocFunctions: " + std::to_string(num_alloc_fns) + "\n";
  out += "    NumStackOffsets: " + std::to_string(stacks_kept) + "\n";
  if (!raw.segments.empty()) out += "  Segments:\n";
  for (const auto& seg : raw.segments) {
    out += "  -\n    BuildId: ";
    out += seg.build_id.empty() ? std::string("<None>") : build_id_hex(seg.build_id);
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
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First) \
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
  if (p.data.records.empty()) {
    out += "--- {}\n...\n";
    return out;
  }
  out += "---\nHeapProfileRecords:\n";
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
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First)                                  \
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
  out += "...\n";
  return out;
}

}  // namespace profkit::report
