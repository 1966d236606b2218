// Property: the .debug_line decoder never crashes, hangs or reads past its input, and what it
// accepts is consistent: sequences are sorted by end address and name rows inside the
// matrix, and a lookup inside a sequence returns nothing or a row at or below the address.
// Input: the bytes of a .debug_line section; every unit is decoded in turn (seeds: the probe
// conformance test writes the sections of its builds to seeds/dwarf_line_table_fuzz/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "symbolize/dwarf_line_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit;
  using namespace profkit::dwarf;
  const Section line{Bytes(data, size), 0};
  // A small string section for DW_FORM_line_strp / DW_FORM_strp paths.
  static const uint8_t strings[] = "/src\0inc\0a.c\0";
  const Section str{Bytes(strings, sizeof strings), 0};
  uint64_t offset = 0;
  for (int units = 0; offset < size && units < 64; ++units) {
    auto t = LineTable::parse(line, offset, str, str);
    if (!t) break;
    if (t->end_offset() <= offset || t->end_offset() > size) std::abort();
    offset = t->end_offset();
    uint64_t previous_high = 0;
    for (const auto& s : t->sequences()) {
      if (s.high < previous_high || s.low >= s.high) std::abort();
      if (s.first_row >= s.end_row || s.end_row > t->rows().size()) std::abort();
      previous_high = s.high;
      // Overlapping sequences (malformed) can hide one another, as in LLVM's lookup, so a
      // miss is allowed; a hit must be a row at or below the address.
      for (uint64_t a : {s.low, s.high - 1, s.low + (s.high - s.low) / 2}) {
        const LineRow* r = t->lookup(a);
        if (r != nullptr && r->address > a) std::abort();
      }
    }
    for (uint64_t f = 0; f < 4; ++f) (void)t->file_path(f, "/cwd");
  }
  return 0;
}
