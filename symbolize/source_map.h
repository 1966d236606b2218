// Address -> source frames from DWARF (.debug_info 2 to 5, .debug_line, range lists): the
// inline chain of subprogram / inlined-subroutine DIEs covering an address, innermost first,
// with file, line, column and discriminator per frame, as llvm-symbolizer reports them
// (LLVM's DWARFContext::getInliningInfoForAddress):
//
//   * the compile unit is the one whose DW_AT_low_pc/high_pc or DW_AT_ranges (or
//     .debug_aranges set) covers the address; overlaps go to the unit with the lowest offset;
//   * inside it, the innermost subroutine DIE covering the address is found through a map
//     built from every subroutine's ranges in DIE order (a child's range splits its parent's);
//   * the chain walks up through inlined subroutines to the enclosing subprogram;
//   * the innermost frame takes file/line/column/discriminator from the line table row of the
//     address; each outer frame takes DW_AT_call_file/_line/_column and
//     DW_AT_GNU_discriminator of the frame inside it;
//   * names: DW_AT_linkage_name (or DW_AT_MIPS_linkage_name), else DW_AT_name, searched
//     through DW_AT_abstract_origin and DW_AT_specification.
//
// Units are indexed up front (headers and unit DIEs only); a unit's DIE tree and line table
// are read the first time an address inside it is asked for. Split DWARF (.dwo) is not read:
// a skeleton unit yields no frames.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbolize/dwarf_line_table.h"
#include "format/elf/elf_file.h"

namespace profkit::dwarf {

struct DwarfSections {
  Section info, abbrev, line, line_str, str, str_offsets, addr, ranges, rnglists, aranges;
  bool swap = false;  // file byte order differs from the host's
  // The inflated contents of compressed sections (shared: copies point into them too).
  std::vector<std::shared_ptr<const std::string>> inflated;

  // The .debug_* sections of an ELF file (absent ones stay empty). Compressed sections
  // (SHF_COMPRESSED with ELFCOMPRESS_ZLIB, as `-gz` and distributions' debug files write
  // them) are inflated; their Section::file_offset is then the compressed section's.
  static Expected<DwarfSections> from_elf(const elf::ElfFile& file);
};

struct SourceFrame {
  std::string_view function;   // linkage name, else name; empty when the DIE has neither
  uint32_t file = 0;           // file index in the unit's line table (see file_path)
  uint32_t line = 0;           // 0 when unknown
  uint32_t column = 0;
  uint32_t discriminator = 0;
  uint32_t start_line = 0;     // DW_AT_decl_line of the function (0 when absent)
  bool has_row = false;        // innermost frame: a line-table row covers the address
  uint32_t unit = 0;           // internal: which unit's line table `file` indexes
};

class SourceMap {
 public:
  // Indexes the units of `sections` (which must outlive the map). Fails on a malformed unit
  // header or unit DIE; DIE trees and line tables are checked when first used.
  static Expected<SourceMap> build(const DwarfSections& sections);

  SourceMap();
  SourceMap(SourceMap&&) noexcept;
  SourceMap& operator=(SourceMap&&) noexcept;
  ~SourceMap();

  // Reads every unit's DIE tree and line table now (so that a malformed one fails here,
  // before a caller has printed anything). Afterwards frames() only reads, so threads may
  // call it concurrently.
  Expected<void> load_all();

  // Replaces `out` with the frames of `address`, innermost first; empty when no unit covers
  // it or the unit has no subroutine there. Fails when the covering unit's DIEs, range lists
  // or line table are malformed.
  Expected<void> frames(uint64_t address, std::vector<SourceFrame>& out);

  // Calls fn(name, low, high) for every address range of every DW_TAG_subprogram DIE, units
  // and DIEs in file order (name: linkage name, else name, through abstract_origin and
  // specification; empty when there is neither). Loads every unit first.
  Expected<void> for_each_subprogram_range(
      const std::function<void(std::string_view, uint64_t, uint64_t)>& fn);

  // Calls fn(name, decl_line, decl_file) for every DW_TAG_subprogram DIE (declarations and
  // abstract instances too), units and DIEs in file order: name as above, DW_AT_decl_line
  // (0 when absent) and the path of DW_AT_decl_file (empty when absent or when decl_line is
  // 0), each through abstract_origin and specification. Loads every unit first.
  Expected<void> for_each_subprogram(
      const std::function<void(std::string_view, uint32_t, const std::string&)>& fn);

  // The path of a frame's file ("dir/name", absolute with DW_AT_comp_dir), or empty.
  std::string file_path(const SourceFrame& frame) const;

  bool empty() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The DWARF of one ELF file: its sections and their map, which point into the file's bytes
// (they must outlive it).
struct ElfDwarf {
  DwarfSections sections;
  SourceMap map;
};

// Null when `file` is an ELF file without .debug_info; an error when it is not ELF or its
// units cannot be indexed.
Expected<std::unique_ptr<ElfDwarf>> read_elf_dwarf(Bytes file);

// The probe index packed into a call instruction's DWARF discriminator (docs/formats/pseudo-probes.md 1.7), as
// llvm-profgen 22 extracts it: 13 bits when bit 28 says a base discriminator is encoded,
// else 16 bits; applied to any value (non-probe discriminators give arbitrary numbers).
inline uint32_t probe_index_from_discriminator(uint32_t d) {
  return (d & 0x10000000u) != 0 ? (d >> 3) & 0x1fffu : (d >> 3) & 0xffffu;
}

// Whether a DWARF discriminator packs a call's probe rather than LLVM's prefix or FS
// encoding: low bits 0b111 and some probe field set (clang 14 writes these on calls).
inline bool is_probe_discriminator(uint32_t d) { return (d & 7u) == 7u && (d & ~7u) != 0; }

// The DWARF base discriminator that a probe discriminator may carry in bits 16-18 (when
// bit 28 is set), else the probe index: what LLVM takes as such a discriminator's base.
inline uint32_t probe_base_discriminator(uint32_t d) {
  return (d & 0x10000000u) != 0 ? (d >> 16) & 7u : probe_index_from_discriminator(d);
}

}  // namespace profkit::dwarf
