// Line-number programs assembled by hand (DWARF 4 and 5 headers, every standard opcode the
// compilers use, set_discriminator with a pseudo-probe value), address lookup, and bad input:
// every prefix of a unit and a few corrupted fields fail with offsets, never crash.
#include "symbolize/dwarf_line_table.h"
#include "symbolize/source_map.h"

#include <gtest/gtest.h>

#include <string>

namespace profkit::dwarf {
namespace {

void u8(std::string& s, uint8_t v) { s.push_back(static_cast<char>(v)); }
void u16(std::string& s, uint16_t v) { u8(s, v & 0xff), u8(s, v >> 8); }
void u32(std::string& s, uint32_t v) { u16(s, v & 0xffff), u16(s, v >> 16); }
void u64(std::string& s, uint64_t v) { u32(s, static_cast<uint32_t>(v)), u32(s, v >> 32); }
void cstr(std::string& s, const char* v) { s += v, s.push_back('\0'); }

// The common header tail: min length 1, [max ops 1], default_is_stmt 1, line_base -5,
// line_range 14, opcode_base 13 and the standard opcode lengths.
std::string header_fields(int version) {
  std::string h;
  u8(h, 1);
  if (version >= 4) u8(h, 1);
  u8(h, 1);
  u8(h, static_cast<uint8_t>(-5));
  u8(h, 14);
  u8(h, 13);
  for (uint8_t n : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) u8(h, n);
  return h;
}

// A program: two sequences. The first at 0x1000: line 10, then a special opcode (+3
// address, +1 line), discriminator 0x1b200027 on a copy, advance_pc 5 and end. The second at
// 0x2000 (line 1 col 7), const_add_pc, fixed_advance_pc 2, end.
std::string program() {
  std::string p;
  u8(p, 0), u8(p, 9), u8(p, 2), u64(p, 0x1000);  // DW_LNE_set_address
  u8(p, 3), u8(p, 9);                            // advance_line +9 -> 10
  u8(p, 1);                                      // copy
  // special: address +3, line +1: (1 - (-5)) + 14 * 3 + 13 = 61
  u8(p, 61);
  u8(p, 5), u8(p, 4);                                        // set_column 4
  u8(p, 0), u8(p, 6), u8(p, 4), u8(p, 0xa7), u8(p, 0x80), u8(p, 0x80), u8(p, 0xd9), u8(p, 0x01);
  u8(p, 2), u8(p, 2);                                        // advance_pc 2 -> 0x1005
  u8(p, 1);                                                  // copy (discriminator applies)
  u8(p, 2), u8(p, 5);                                        // advance_pc 5 -> 0x100a
  u8(p, 0), u8(p, 1), u8(p, 1);                              // end_sequence
  u8(p, 0), u8(p, 9), u8(p, 2), u64(p, 0x2000);
  u8(p, 5), u8(p, 7);  // column 7
  u8(p, 6);            // negate_stmt
  u8(p, 1);            // copy
  u8(p, 8);            // const_add_pc: (255 - 13) / 14 = 17
  u8(p, 9), u16(p, 2); // fixed_advance_pc 2 -> 0x2013
  u8(p, 1);
  u8(p, 2), u8(p, 1);
  u8(p, 0), u8(p, 1), u8(p, 1);
  return p;
}

std::string unit_v4() {
  std::string h = header_fields(4);
  cstr(h, "inc");
  u8(h, 0);
  cstr(h, "a.c"), u8(h, 0), u8(h, 0), u8(h, 0);
  cstr(h, "b.h"), u8(h, 1), u8(h, 0), u8(h, 0);
  u8(h, 0);
  std::string body;
  u16(body, 4);
  u32(body, static_cast<uint32_t>(h.size()));
  body += h + program();
  std::string unit;
  u32(unit, static_cast<uint32_t>(body.size()));
  return unit + body;
}

std::string unit_v5(const std::string& line_str_offsets) {
  std::string h = header_fields(5);
  // directories: format (path, line_strp), 2 entries
  u8(h, 1), u8(h, 1), u8(h, 0x1f);
  u8(h, 2);
  h += line_str_offsets.substr(0, 8);
  // files: format (path string, directory_index udata), 2 entries
  u8(h, 2), u8(h, 1), u8(h, 0x08), u8(h, 2), u8(h, 0x0f);
  u8(h, 2);
  cstr(h, "a.c"), u8(h, 0);
  cstr(h, "b.h"), u8(h, 1);
  std::string body;
  u16(body, 5);
  u8(body, 8), u8(body, 0);
  u32(body, static_cast<uint32_t>(h.size()));
  body += h + program();
  std::string unit;
  u32(unit, static_cast<uint32_t>(body.size()));
  return unit + body;
}

Section sec(const std::string& s, uint64_t file_offset = 0) {
  return Section{as_bytes(s), file_offset};
}

void expect_program_rows(const LineTable& t) {
  ASSERT_EQ(t.rows().size(), 7u);
  ASSERT_EQ(t.sequences().size(), 2u);
  const LineRow* r = t.lookup(0x1000);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line, 10u);
  r = t.lookup(0x1004);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->address, 0x1003u);
  EXPECT_EQ(r->line, 11u);
  EXPECT_EQ(r->discriminator, 0u);
  r = t.lookup(0x1009);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->address, 0x1005u);
  EXPECT_EQ(r->column, 4u);
  EXPECT_EQ(r->discriminator, 0x1b200027u);
  EXPECT_EQ(probe_index_from_discriminator(r->discriminator), 4u);
  EXPECT_EQ(t.lookup(0x100a), nullptr);  // end of the first sequence
  EXPECT_EQ(t.lookup(0xfff), nullptr);
  r = t.lookup(0x2012);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->address, 0x2000u);
  EXPECT_FALSE(r->is_stmt);
  EXPECT_EQ(r->column, 7u);
  r = t.lookup(0x2013);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->address, 0x2013u);
  EXPECT_EQ(t.lookup(0x2014), nullptr);
}

TEST(LineTable, Version4) {
  const std::string data = unit_v4();
  auto t = LineTable::parse(sec(data), 0, Section{}, Section{});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->version(), 4);
  EXPECT_EQ(t->end_offset(), data.size());
  expect_program_rows(*t);
  EXPECT_EQ(t->file_path(1, "/src"), "/src/a.c");
  EXPECT_EQ(t->file_path(2, "/src"), "/src/inc/b.h");
  EXPECT_EQ(t->file_path(0, "/src"), "");
  EXPECT_EQ(t->file_path(3, "/src"), "");
}

TEST(LineTable, Version5WithLineStrings) {
  std::string line_str;
  cstr(line_str, "/src");
  cstr(line_str, "inc");
  std::string offsets;
  u32(offsets, 0), u32(offsets, 5);
  const std::string data = "pad!" + unit_v5(offsets);  // a unit not at offset 0
  auto t = LineTable::parse(sec(data, 100), 4, sec(line_str), Section{});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->version(), 5);
  expect_program_rows(*t);
  EXPECT_EQ(t->file_path(0, "/cwd"), "/src/a.c");
  EXPECT_EQ(t->file_path(1, "/cwd"), "/cwd/inc/b.h");
}

TEST(LineTable, ErrorsNameFileOffsets) {
  std::string data = unit_v4();
  data[4] = 7;  // version 7
  auto t = LineTable::parse(sec(data, 1000), 0, Section{}, Section{});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().code, ErrorCode::unsupported_version);
  EXPECT_EQ(t.error().offset, 1004u);

  data = unit_v4();
  data[4 + 2 + 4 + 4] = 0;  // line_range (after length, version, header_length, 4 bytes)
  t = LineTable::parse(sec(data), 0, Section{}, Section{});
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("line_range"), std::string::npos) << t.error().message;
  EXPECT_EQ(t.error().offset, 14u);

  t = LineTable::parse(sec(unit_v4()), 5000, Section{}, Section{});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().code, ErrorCode::malformed);

  // An extended opcode whose length disagrees with its operands.
  data = unit_v4();
  const size_t at = data.find(std::string("\x00\x06\x04", 3));
  ASSERT_NE(at, std::string::npos);
  data[at + 1] = 7;  // one byte longer than the ULEB discriminator
  t = LineTable::parse(sec(data), 0, Section{}, Section{});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().offset, at);
}

TEST(LineTable, EveryPrefixFailsCleanly) {
  std::string line_str;
  cstr(line_str, "/src");
  cstr(line_str, "inc");
  std::string offsets;
  u32(offsets, 0), u32(offsets, 5);
  for (const std::string& full : {unit_v4(), unit_v5(offsets)}) {
    for (size_t n = 0; n < full.size(); ++n) {
      std::string cut = full.substr(0, n);
      auto t = LineTable::parse(sec(cut), 0, sec(line_str), Section{});
      EXPECT_FALSE(t.has_value()) << n;
      if (!t.has_value()) {
        EXPECT_LE(t.error().offset, n) << n << ": " << t.error().message;
      }
    }
    // A unit_length shorter than the data: the program is cut, whatever the opcode.
    for (size_t n = 0; n + 4 < full.size(); ++n) {
      std::string cut = full;
      cut[0] = static_cast<char>(n);
      cut[1] = cut[2] = cut[3] = 0;
      auto t = LineTable::parse(sec(cut), 0, sec(line_str), Section{});
      if (t.has_value()) {
        for (const auto& s : t->sequences()) EXPECT_LT(s.end_row, t->rows().size() + 1);
      }
    }
  }
}

}  // namespace
}  // namespace profkit::dwarf
