// DWARF line-number program decoder. Every read goes through a bounded Cursor; errors name
// the file offset of the field that failed.
#include "symbolize/dwarf_line_table.h"

#include <algorithm>
#include <cstring>

namespace profkit::dwarf {

namespace {

// Standard opcodes (DWARF 5, 6.2.5.2) and extended opcodes (6.2.5.3).
enum : uint8_t {
  kCopy = 1,
  kAdvancePc = 2,
  kAdvanceLine = 3,
  kSetFile = 4,
  kSetColumn = 5,
  kNegateStmt = 6,
  kSetBasicBlock = 7,
  kConstAddPc = 8,
  kFixedAdvancePc = 9,
  kSetPrologueEnd = 10,
  kSetEpilogueBegin = 11,
  kSetIsa = 12,
};
enum : uint8_t { kEndSequence = 1, kSetAddress = 2, kDefineFile = 3, kSetDiscriminator = 4 };

// Content types and forms of DWARF 5 directory and file entries.
enum : uint64_t { kLnctPath = 1, kLnctDirectoryIndex = 2 };
enum : uint64_t {
  kFormBlock = 0x09,
  kFormData1 = 0x0b,
  kFormData2 = 0x05,
  kFormData4 = 0x06,
  kFormData8 = 0x07,
  kFormData16 = 0x1e,
  kFormString = 0x08,
  kFormStrp = 0x0e,
  kFormLineStrp = 0x1f,
  kFormUdata = 0x0f,
};

Expected<std::string_view> read_cstring(Cursor& c, std::string_view what) {
  const Bytes rest = c.data().subspan(c.position());
  const void* nul = std::memchr(rest.data(), 0, rest.size());
  if (nul == nullptr) return c.truncated(std::string(what) + " (NUL-terminated string)");
  const size_t length = static_cast<size_t>(static_cast<const uint8_t*>(nul) - rest.data());
  PROFKIT_TRY_ASSIGN(Bytes b, c.read_bytes(length + 1, what));
  return as_string_view(b.first(length));
}

Expected<std::string_view> string_in(const Section& section, uint64_t offset, uint64_t at,
                                     std::string_view section_name) {
  if (offset >= section.data.size())
    return make_error(ErrorCode::malformed, at,
                      "expected an offset inside " + std::string(section_name) + " (size " +
                          std::to_string(section.data.size()) + "), got " +
                          std::to_string(offset));
  const Bytes rest = section.data.subspan(offset);
  const void* nul = std::memchr(rest.data(), 0, rest.size());
  if (nul == nullptr)
    return make_error(ErrorCode::truncated, section.file_offset + offset,
                      "expected a NUL-terminated string in " + std::string(section_name));
  return as_string_view(rest.first(static_cast<size_t>(static_cast<const uint8_t*>(nul) -
                                                       rest.data())));
}

Expected<uint64_t> read_offset(Cursor& c, bool dwarf64, std::string_view what) {
  if (dwarf64) return c.read<uint64_t>(what);
  PROFKIT_TRY_ASSIGN(uint32_t v, c.read<uint32_t>(what));
  return uint64_t{v};
}

// One attribute value of a v5 directory/file entry: a string (for paths) or a number.
struct EntryValue {
  std::string_view text;
  uint64_t number = 0;
};

Expected<EntryValue> read_entry_value(Cursor& c, uint64_t form, bool dwarf64,
                                      const Section& line_str, const Section& str) {
  EntryValue v;
  const uint64_t at = c.offset();
  switch (form) {
    case kFormString: {
      PROFKIT_TRY_ASSIGN(v.text, read_cstring(c, "path"));
      return v;
    }
    case kFormLineStrp: {
      PROFKIT_TRY_ASSIGN(uint64_t off, read_offset(c, dwarf64, ".debug_line_str offset"));
      PROFKIT_TRY_ASSIGN(v.text, string_in(line_str, off, at, ".debug_line_str"));
      return v;
    }
    case kFormStrp: {
      PROFKIT_TRY_ASSIGN(uint64_t off, read_offset(c, dwarf64, ".debug_str offset"));
      PROFKIT_TRY_ASSIGN(v.text, string_in(str, off, at, ".debug_str"));
      return v;
    }
    case kFormUdata: {
      PROFKIT_TRY_ASSIGN(v.number, c.read_uleb128("entry value"));
      return v;
    }
    case kFormData1: {
      PROFKIT_TRY_ASSIGN(uint8_t x, c.read<uint8_t>("entry value"));
      v.number = x;
      return v;
    }
    case kFormData2: {
      PROFKIT_TRY_ASSIGN(uint16_t x, c.read<uint16_t>("entry value"));
      v.number = x;
      return v;
    }
    case kFormData4: {
      PROFKIT_TRY_ASSIGN(uint32_t x, c.read<uint32_t>("entry value"));
      v.number = x;
      return v;
    }
    case kFormData8: {
      PROFKIT_TRY_ASSIGN(v.number, c.read<uint64_t>("entry value"));
      return v;
    }
    case kFormData16: {
      PROFKIT_TRY(c.skip(16, "16-byte entry value"));
      return v;
    }
    case kFormBlock: {
      PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("block length"));
      PROFKIT_TRY(c.skip(n, "block"));
      return v;
    }
    default:
      return make_error(ErrorCode::unsupported_version, at,
                        "expected a directory or file entry form we read (string, line_strp, "
                        "strp, udata, data1/2/4/8/16, block), got form 0x" +
                            [&] {
                              char b[24];
                              std::snprintf(b, sizeof b, "%llx",
                                            static_cast<unsigned long long>(form));
                              return std::string(b);
                            }());
  }
}

struct EntryFormat {
  uint64_t content_type;
  uint64_t form;
};

// DWARF 5: a format description, then `count` entries in that format.
Expected<void> read_v5_entries(Cursor& c, bool dwarf64, const Section& line_str,
                               const Section& str, bool files,
                               std::vector<std::string_view>& directories,
                               std::vector<FileEntry>& file_entries) {
  const char* what = files ? "file name entry format count" : "directory entry format count";
  PROFKIT_TRY_ASSIGN(uint8_t format_count, c.read<uint8_t>(what));
  std::vector<EntryFormat> format;
  for (uint8_t i = 0; i < format_count; ++i) {
    PROFKIT_TRY_ASSIGN(uint64_t type, c.read_uleb128("entry content type"));
    PROFKIT_TRY_ASSIGN(uint64_t form, c.read_uleb128("entry form"));
    format.push_back({type, form});
  }
  const uint64_t count_at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t count, c.read_uleb128(files ? "file name count" : "directory count"));
  // Every entry takes at least one byte per attribute; an empty format cannot repeat.
  if (count > c.remaining() && !(format.empty() && count == 0))
    return make_error(ErrorCode::malformed, count_at,
                      "expected at most " + std::to_string(c.remaining()) + " entries, got " +
                          std::to_string(count));
  if (format.empty() && count > 0)
    return make_error(ErrorCode::malformed, count_at,
                      "expected an entry format before " + std::to_string(count) + " entries");
  for (uint64_t i = 0; i < count; ++i) {
    FileEntry entry;
    for (const auto& f : format) {
      PROFKIT_TRY_ASSIGN(EntryValue v, read_entry_value(c, f.form, dwarf64, line_str, str));
      if (f.content_type == kLnctPath) entry.name = v.text;
      if (f.content_type == kLnctDirectoryIndex) entry.directory = v.number;
    }
    if (files) {
      file_entries.push_back(entry);
    } else {
      directories.push_back(entry.name);
    }
  }
  return {};
}

}  // namespace

Expected<LineTable> LineTable::parse(const Section& debug_line, uint64_t offset,
                                     const Section& line_str, const Section& str,
                                     uint8_t address_size) {
  Cursor section(debug_line.data, debug_line.file_offset);
  PROFKIT_TRY(section.seek(offset, "line table offset (DW_AT_stmt_list)"));
  PROFKIT_TRY_ASSIGN(uint32_t length32, section.read<uint32_t>("line table unit_length"));
  bool dwarf64 = false;
  uint64_t length = length32;
  if (length32 == 0xffffffffu) {
    dwarf64 = true;
    PROFKIT_TRY_ASSIGN(length, section.read<uint64_t>("64-bit line table unit_length"));
  } else if (length32 >= 0xfffffff0u) {
    return section.fail(ErrorCode::malformed,
                        "expected a unit_length below 0xfffffff0 (reserved values), got " +
                            std::to_string(length32));
  }
  PROFKIT_TRY_ASSIGN(Cursor unit, section.take(length, "line table unit"));

  LineTable t;
  t.end_offset_ = section.position();
  const uint64_t version_at = unit.offset();
  PROFKIT_TRY_ASSIGN(t.version_, unit.read<uint16_t>("line table version"));
  if (t.version_ < 2 || t.version_ > 5)
    return make_error(ErrorCode::unsupported_version, version_at,
                      "expected line table version 2 to 5, got " + std::to_string(t.version_));
  if (t.version_ >= 5) {
    const uint64_t at = unit.offset();
    PROFKIT_TRY_ASSIGN(uint8_t size, unit.read<uint8_t>("address_size"));
    PROFKIT_TRY_ASSIGN(uint8_t segment, unit.read<uint8_t>("segment_selector_size"));
    if (size != 4 && size != 8)
      return make_error(ErrorCode::malformed, at,
                        "expected address_size 4 or 8, got " + std::to_string(size));
    if (segment != 0)
      return make_error(ErrorCode::unsupported_version, at + 1,
                        "expected segment_selector_size 0, got " + std::to_string(segment));
    address_size = size;
  }
  PROFKIT_TRY_ASSIGN(uint64_t header_length, read_offset(unit, dwarf64, "header_length"));
  if (header_length > unit.remaining())
    return unit.fail(ErrorCode::malformed,
                     "expected header_length within the unit (" +
                         std::to_string(unit.remaining()) + " bytes left), got " +
                         std::to_string(header_length));
  PROFKIT_TRY_ASSIGN(Cursor header, unit.take(header_length, "line table header"));
  PROFKIT_TRY_ASSIGN(uint8_t min_length, header.read<uint8_t>("minimum_instruction_length"));
  uint8_t max_ops = 1;
  if (t.version_ >= 4) {
    PROFKIT_TRY_ASSIGN(max_ops, header.read<uint8_t>("maximum_operations_per_instruction"));
    if (max_ops == 0) max_ops = 1;  // as LLVM: 0 is treated as 1
  }
  PROFKIT_TRY_ASSIGN(uint8_t default_is_stmt, header.read<uint8_t>("default_is_stmt"));
  PROFKIT_TRY_ASSIGN(int8_t line_base, header.read<int8_t>("line_base"));
  const uint64_t line_range_at = header.offset();
  PROFKIT_TRY_ASSIGN(uint8_t line_range, header.read<uint8_t>("line_range"));
  if (line_range == 0)
    return make_error(ErrorCode::malformed, line_range_at, "expected a non-zero line_range");
  const uint64_t opcode_base_at = header.offset();
  PROFKIT_TRY_ASSIGN(uint8_t opcode_base, header.read<uint8_t>("opcode_base"));
  if (opcode_base == 0)
    return make_error(ErrorCode::malformed, opcode_base_at, "expected a non-zero opcode_base");
  PROFKIT_TRY_ASSIGN(Bytes opcode_lengths,
                     header.read_bytes(opcode_base - 1u, "standard_opcode_lengths"));

  if (t.version_ >= 5) {
    PROFKIT_TRY(read_v5_entries(header, dwarf64, line_str, str, false, t.directories_, t.files_));
    PROFKIT_TRY(read_v5_entries(header, dwarf64, line_str, str, true, t.directories_, t.files_));
  } else {
    t.directories_.push_back(std::string_view());  // index 0: the compilation directory
    while (true) {
      PROFKIT_TRY_ASSIGN(std::string_view dir, read_cstring(header, "include directory"));
      if (dir.empty()) break;
      t.directories_.push_back(dir);
    }
    t.files_.push_back(FileEntry{});  // index 0 is unused before v5
    while (true) {
      PROFKIT_TRY_ASSIGN(std::string_view name, read_cstring(header, "file name"));
      if (name.empty()) break;
      FileEntry f{name, 0};
      PROFKIT_TRY_ASSIGN(f.directory, header.read_uleb128("file directory index"));
      PROFKIT_TRY(header.read_uleb128("file modification time"));
      PROFKIT_TRY(header.read_uleb128("file length"));
      t.files_.push_back(f);
    }
  }
  // Vendor data may follow the file names inside header_length: skipped, as LLVM does
  // (`unit` already stands at the first opcode).

  // The state machine (DWARF 5, 6.2.2).
  const LineRow initial{0, 1, 1, 0, 0, default_is_stmt != 0, false};
  LineRow row = initial;
  uint64_t op_index = 0;
  bool sequence_empty = true;
  LineSequence sequence;
  auto append = [&] {
    if (sequence_empty) {
      sequence_empty = false;
      sequence.low = row.address;
      sequence.first_row = static_cast<uint32_t>(t.rows_.size());
    }
    t.rows_.push_back(row);
    if (row.end_sequence) {
      sequence.high = row.address;
      sequence.end_row = static_cast<uint32_t>(t.rows_.size());
      if (sequence.low < sequence.high && sequence.first_row < sequence.end_row)
        t.sequences_.push_back(sequence);
      sequence_empty = true;
      row = initial;
      op_index = 0;
    } else {
      row.discriminator = 0;
    }
  };
  auto advance = [&](uint64_t operation_advance) {
    if (max_ops == 1) {
      row.address += uint64_t{min_length} * operation_advance;
      return;
    }
    const uint64_t ops = op_index + operation_advance;
    row.address += uint64_t{min_length} * (ops / max_ops);
    op_index = ops % max_ops;
  };

  // `unit` is positioned right after the header: the opcodes run to the end of the unit.
  Cursor& c = unit;
  while (!c.at_end()) {
    const uint64_t opcode_at = c.offset();
    PROFKIT_TRY_ASSIGN(uint8_t opcode, c.read<uint8_t>("line program opcode"));
    if (opcode >= opcode_base) {  // special opcode
      const uint32_t adjusted = opcode - opcode_base;
      advance(adjusted / line_range);
      row.line += static_cast<uint32_t>(static_cast<int32_t>(line_base) +
                                        static_cast<int32_t>(adjusted % line_range));
      append();
      continue;
    }
    switch (opcode) {
      case 0: {  // extended opcode: ULEB length, sub-opcode, operands
        PROFKIT_TRY_ASSIGN(uint64_t len, c.read_uleb128("extended opcode length"));
        if (len == 0 || len > c.remaining())
          return make_error(ErrorCode::malformed, opcode_at,
                            "expected an extended opcode length from 1 to " +
                                std::to_string(c.remaining()) + ", got " + std::to_string(len));
        PROFKIT_TRY_ASSIGN(Cursor ext, c.take(len, "extended opcode"));
        const uint8_t sub = ext.read<uint8_t>("extended opcode").value();
        switch (sub) {
          case kEndSequence:
            row.end_sequence = true;
            append();
            break;
          case kSetAddress: {
            const uint64_t size = ext.remaining();
            if (size == 8) {
              row.address = ext.read<uint64_t>("address").value();
            } else if (size == 4) {
              row.address = ext.read<uint32_t>("address").value();
            } else {
              return make_error(ErrorCode::malformed, opcode_at,
                                "expected a 4- or 8-byte DW_LNE_set_address operand, got " +
                                    std::to_string(size) + " bytes");
            }
            (void)address_size;
            op_index = 0;
            break;
          }
          case kDefineFile: {
            FileEntry f;
            PROFKIT_TRY_ASSIGN(f.name, read_cstring(ext, "DW_LNE_define_file name"));
            PROFKIT_TRY_ASSIGN(f.directory, ext.read_uleb128("DW_LNE_define_file directory"));
            PROFKIT_TRY(ext.read_uleb128("DW_LNE_define_file time"));
            PROFKIT_TRY(ext.read_uleb128("DW_LNE_define_file length"));
            t.files_.push_back(f);
            break;
          }
          case kSetDiscriminator: {
            PROFKIT_TRY_ASSIGN(uint64_t d, ext.read_uleb128("DW_LNE_set_discriminator operand"));
            row.discriminator = static_cast<uint32_t>(d);
            break;
          }
          default:  // unknown extended opcode: its length says how much to skip
            PROFKIT_TRY(ext.skip(ext.remaining(), "extended opcode operands"));
            break;
        }
        if (!ext.at_end())
          return make_error(ErrorCode::malformed, opcode_at,
                            "expected extended opcode " + std::to_string(sub) + " to fill its " +
                                std::to_string(len) + " bytes, " +
                                std::to_string(ext.remaining()) + " left over");
        break;
      }
      case kCopy:
        append();
        break;
      case kAdvancePc: {
        PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("DW_LNS_advance_pc operand"));
        advance(n);
        break;
      }
      case kAdvanceLine: {
        PROFKIT_TRY_ASSIGN(int64_t n, c.read_sleb128("DW_LNS_advance_line operand"));
        row.line += static_cast<uint32_t>(n);
        break;
      }
      case kSetFile: {
        PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("DW_LNS_set_file operand"));
        row.file = static_cast<uint32_t>(n);
        break;
      }
      case kSetColumn: {
        PROFKIT_TRY_ASSIGN(uint64_t n, c.read_uleb128("DW_LNS_set_column operand"));
        row.column = static_cast<uint32_t>(n);
        break;
      }
      case kNegateStmt:
        row.is_stmt = !row.is_stmt;
        break;
      case kSetBasicBlock:
      case kSetPrologueEnd:
      case kSetEpilogueBegin:
        break;
      case kConstAddPc:
        advance((255u - opcode_base) / line_range);
        break;
      case kFixedAdvancePc: {
        PROFKIT_TRY_ASSIGN(uint16_t n, c.read<uint16_t>("DW_LNS_fixed_advance_pc operand"));
        row.address += n;
        op_index = 0;
        break;
      }
      case kSetIsa:
        PROFKIT_TRY(c.read_uleb128("DW_LNS_set_isa operand"));
        break;
      default:  // a standard opcode this version does not define: skip its operands
        for (uint8_t i = 0; i < opcode_lengths[opcode - 1u]; ++i)
          PROFKIT_TRY(c.read_uleb128("standard opcode operand"));
        break;
    }
  }
  // A final sequence without DW_LNE_end_sequence covers nothing (no high address).
  std::stable_sort(t.sequences_.begin(), t.sequences_.end(),
                   [](const LineSequence& a, const LineSequence& b) { return a.high < b.high; });
  return t;
}

const LineRow* LineTable::lookup(uint64_t address) const {
  auto seq = std::upper_bound(sequences_.begin(), sequences_.end(), address,
                              [](uint64_t a, const LineSequence& s) { return a < s.high; });
  if (seq == sequences_.end() || address < seq->low) return nullptr;
  // Last row with row.address <= address, among rows before the end_sequence row.
  auto first = rows_.begin() + seq->first_row;
  auto last = rows_.begin() + (seq->end_row - 1);
  auto it = std::upper_bound(first + 1, last, address,
                             [](uint64_t a, const LineRow& r) { return a < r.address; });
  return &*(it - 1);
}

std::string LineTable::file_path(uint64_t file, std::string_view comp_dir) const {
  if (file >= files_.size()) return std::string();
  if (version_ < 5 && file == 0) return std::string();
  const FileEntry& f = files_[file];
  std::string path;
  if (!f.name.empty() && f.name[0] == '/') return std::string(f.name);
  std::string_view dir = f.directory < directories_.size() ? directories_[f.directory] : "";
  if (version_ < 5 && f.directory == 0) dir = comp_dir;
  if (!dir.empty() && dir[0] != '/' && !comp_dir.empty()) {
    path = comp_dir;
    path += '/';
  }
  path += dir;
  if (!path.empty() && path.back() != '/') path += '/';
  path += f.name;
  return path;
}

}  // namespace profkit::dwarf
