// Property: building a SourceMap from arbitrary DWARF sections, asking for the frames of
// addresses and listing the subprograms with their declarations never crashes, hangs or
// reads past the sections; errors are values.
// Input: ten u32 little-endian sizes (.debug_info, _abbrev, _line, _line_str, _str,
// _str_offsets, _addr, _ranges, _rnglists, _aranges), four u64 addresses to look up, then
// the section bytes in that order (seeds: the probe conformance test writes real ones to
// seeds/dwarf_source_map_fuzz/).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "symbolize/source_map.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit;
  using namespace profkit::dwarf;
  constexpr size_t kHeader = 10 * 4 + 4 * 8;
  if (size < kHeader) return 0;
  DwarfSections s;
  Section* order[] = {&s.info, &s.abbrev, &s.line, &s.line_str, &s.str,
                      &s.str_offsets, &s.addr, &s.ranges, &s.rnglists, &s.aranges};
  uint64_t at = kHeader;
  for (int i = 0; i < 10; ++i) {
    const uint64_t n = load_le<uint32_t>(data + 4 * i);
    if (n > size - at) return 0;
    *order[i] = Section{Bytes(data + at, n), at};
    at += n;
  }
  auto map = SourceMap::build(s);
  if (!map) return 0;
  std::vector<SourceFrame> frames;
  for (int i = 0; i < 4; ++i) {
    const uint64_t a = load_le<uint64_t>(data + 40 + 8 * i);
    for (uint64_t x : {a, a + 1, a + 16}) {
      if (!map->frames(x, frames)) break;
      for (const auto& f : frames) (void)map->file_path(f);
    }
  }
  (void)map->for_each_subprogram([](std::string_view, uint32_t, const std::string&) {});
  return 0;
}
