// DWARF line-number programs (.debug_line, versions 2 to 5; clang 14 writes 4 or 5, clang 22
// writes 5): decodes one unit's header and runs its program into a row matrix, then maps an
// address to the row that covers it, as LLVM's DWARFDebugLine does.
//
// We read .debug_line ourselves because Debian 12's libdw (0.188) rejects the line tables of
// pseudo-probe builds ("invalid .debug_line section"), whose call discriminators are large.
//
// Unit layout (offsets relative to the unit; OFF = 4 bytes, or 8 in 64-bit DWARF):
//
//   u32          unit_length        0xffffffff then u64 = 64-bit DWARF
//   u16          version            2..5
//   [v5] u8      address_size, u8 segment_selector_size
//   OFF          header_length      bytes from after this field to the first opcode
//   u8           minimum_instruction_length
//   [v4+] u8     maximum_operations_per_instruction
//   u8           default_is_stmt
//   s8           line_base
//   u8           line_range         must not be 0 (special opcodes divide by it)
//   u8           opcode_base
//   u8[opcode_base - 1]  standard_opcode_lengths (ULEB128 operands of each standard opcode)
//   v2-v4:       include_directories: strings until an empty one;
//                file_names: (string, ULEB dir, ULEB mtime, ULEB length) until an empty name
//   v5:          u8 format count, (ULEB content type, ULEB form) pairs, ULEB count, entries;
//                once for directories and once for file names (DW_LNCT_path, _directory_index,
//                _timestamp, _size, _MD5; strings as DW_FORM_string/_line_strp/_strp)
//   opcodes until the end of the unit
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/cursor.h"

namespace profkit::dwarf {

// Contents of one ELF section and the file offset of its first byte (for errors).
struct Section {
  Bytes data;
  uint64_t file_offset = 0;
};

// One row of the line-number matrix.
struct LineRow {
  uint64_t address = 0;
  uint32_t file = 1;
  uint32_t line = 1;
  uint32_t column = 0;
  uint32_t discriminator = 0;
  bool is_stmt = false;
  bool end_sequence = false;
};

// A run of rows with ascending addresses ending in an end_sequence row: covers [low, high).
struct LineSequence {
  uint64_t low = 0;
  uint64_t high = 0;
  uint32_t first_row = 0;  // index into rows()
  uint32_t end_row = 0;    // one past the end_sequence row
};

struct FileEntry {
  std::string_view name;
  uint64_t directory = 0;  // index into directories()
};

class LineTable {
 public:
  // Decodes the unit at `offset` in `debug_line`. `line_str` and `str` serve DWARF 5's
  // DW_FORM_line_strp and DW_FORM_strp paths (either may be empty). `address_size` is the
  // compile unit's (v5 headers carry their own, which must agree with DW_LNE_set_address).
  static Expected<LineTable> parse(const Section& debug_line, uint64_t offset,
                                   const Section& line_str, const Section& str,
                                   uint8_t address_size = 8);

  uint16_t version() const { return version_; }
  // Offset in .debug_line just past this unit (where the next unit starts).
  uint64_t end_offset() const { return end_offset_; }
  const std::vector<std::string_view>& directories() const { return directories_; }
  const std::vector<FileEntry>& files() const { return files_; }
  const std::vector<LineRow>& rows() const { return rows_; }
  // Valid sequences (low < high) sorted by high address.
  const std::vector<LineSequence>& sequences() const { return sequences_; }

  // The row covering `address`: in the first sequence (by high address) that contains it,
  // the last row whose address is <= `address`. nullptr when no sequence contains it.
  const LineRow* lookup(uint64_t address) const;

  // "dir/name" of a file entry (index as in LineRow::file: 1-based before v5, 0-based in
  // v5), made absolute with `comp_dir` when relative; empty when the index is out of range.
  std::string file_path(uint64_t file, std::string_view comp_dir) const;

 private:
  uint16_t version_ = 0;
  uint64_t end_offset_ = 0;
  std::vector<std::string_view> directories_;
  std::vector<FileEntry> files_;
  std::vector<LineRow> rows_;
  std::vector<LineSequence> sequences_;
};

}  // namespace profkit::dwarf
