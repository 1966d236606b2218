// Text profile writer (docs/formats/irpgo.md 4.2).
#include "format/instrprof/text_writer.h"

#include "format/bytes/number_text.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

namespace profkit::instrprof {
namespace {

constexpr std::string_view kExternalSymbol = "** External Symbol **";

void append_line(std::string& out, uint64_t v) {
  append_decimal(out, v);
  out.push_back('\n');
}

constexpr std::string_view kKindComment[kNumValueKinds] = {
    "# ValueKind = IPVK_IndirectCallTarget:\n",
    "# ValueKind = IPVK_MemOPSize:\n",
    "# ValueKind = IPVK_VTableTarget:\n",
};

size_t printable_kinds(TextFlavor flavor) {
  return flavor == TextFlavor::llvm14 ? 2 : kNumValueKinds;
}

}  // namespace

void append_text_record(std::string& out, const Record& record, const NameResolver& names,
                        TextFlavor flavor) {
  out += record.name;
  out += "\n# Func Hash:\n";
  append_line(out, record.hash);
  out += "# Num Counters:\n";
  append_line(out, record.counts.size());
  out += "# Counter Values:\n";
  for (uint64_t c : record.counts) append_line(out, c);

  if (flavor == TextFlavor::llvm22 && !record.bitmap.empty()) {
    out += "# Num Bitmap Bytes:\n$";
    append_line(out, record.bitmap.size());
    out += "# Bitmap Byte Values:\n";
    static const char* digits = "0123456789abcdef";
    for (uint8_t b : record.bitmap) {
      out += "0x";
      if (b >= 16) out.push_back(digits[b >> 4]);
      out.push_back(digits[b & 15]);
      out.push_back('\n');
    }
    out.push_back('\n');
  }

  const size_t kinds = printable_kinds(flavor);
  size_t num_kinds = 0;
  for (size_t k = 0; k < kinds; ++k) num_kinds += record.value_sites[k].empty() ? 0 : 1;
  if (num_kinds == 0) {
    out.push_back('\n');
    return;
  }
  out += "# Num Value Kinds:\n";
  append_line(out, num_kinds);
  for (size_t k = 0; k < kinds; ++k) {
    const auto& sites = record.value_sites[k];
    if (sites.empty()) continue;
    out += kKindComment[k];
    append_line(out, k);
    out += "# NumValueSites:\n";
    append_line(out, sites.size());
    const bool named = k != static_cast<size_t>(ValueKind::mem_op_size);
    for (const ValueSite& site : sites) {
      append_line(out, site.size());
      for (const ValueData& vd : site) {
        if (named) {
          const std::string* name = names.find(vd.value);
          out += name ? std::string_view(*name) : kExternalSymbol;
        } else {
          append_decimal(out, vd.value);
        }
        out.push_back(':');
        append_line(out, vd.count);
      }
    }
  }
  out.push_back('\n');
}

std::string write_text_profile(const Profile& profile, TextFlavor flavor) {
  const bool is22 = flavor == TextFlavor::llvm22;
  const uint64_t f = profile.flags;
  std::string out;
  if (f & kFlagCSIR) {
    out += "# CSIR level Instrumentation Flag\n:csir\n";
  } else if (f & kFlagIR) {
    out += "# IR level Instrumentation Flag\n:ir\n";
  }
  if (f & kFlagEntryFirst) out += "# Always instrument the function entry block\n:entry_first\n";
  if (is22 && (f & kFlagInstrLoopEntries))
    out += "# Always instrument the loop entry blocks\n:instrument_loop_entries\n";
  if (is22 && (f & kFlagByteCoverage)) out += "# Instrument block coverage\n:single_byte_coverage\n";

  const NameResolver names = NameResolver::for_writer(profile);
  if (is22 && (f & kFlagTemporal)) {
    out += ":temporal_prof_traces\n# Num Temporal Profile Traces:\n";
    append_line(out, profile.traces.size());
    out += "# Temporal Profile Trace Stream Size:\n";
    append_line(out, profile.trace_stream_size);
    for (const TemporalTrace& t : profile.traces) {
      out += "# Weight:\n";
      append_line(out, t.weight);
      for (uint64_t ref : t.function_refs) {
        if (const std::string* name = names.find(ref)) out += *name;
        out.push_back(',');
      }
      out.push_back('\n');
    }
    out.push_back('\n');
  }

  std::vector<const Record*> order;
  order.reserve(profile.records.size());
  for (const Record& r : profile.records) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const Record* a, const Record* b) {
    if (a->name != b->name) return a->name < b->name;
    return a->hash < b->hash;
  });
  for (const Record* r : order) append_text_record(out, *r, names, flavor);
  return out;
}

}  // namespace profkit::instrprof
