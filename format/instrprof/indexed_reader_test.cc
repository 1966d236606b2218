// Indexed reader on files built byte by byte here: every version's header, the record
// blob fields, the trailing sections, and the corruptions the reader must name.
#include "format/instrprof/indexed_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/bytes/hash.h"
#include "format/bytes/zlib.h"
#include "format/instrprof/testing.h"

namespace profkit::instrprof {
namespace {

void set64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}
void pad8(std::string& s) {
  while (s.size() % 8) s.push_back('\0');
}

// The record blob of docs/formats/irpgo.md 3.6 for `version`.
std::string record_blob(const Record& r, uint64_t version) {
  std::string b;
  append_le<uint64_t>(b, r.hash);
  if (version >= 2) append_le<uint64_t>(b, r.counts.size());
  for (uint64_t c : r.counts) append_le<uint64_t>(b, c);
  if (version >= 11) {
    append_le<uint64_t>(b, r.bitmap.size());
    for (uint8_t x : r.bitmap) append_le<uint64_t>(b, x);
  }
  if (version >= 3) {
    std::string vp;
    uint32_t kinds = 0;
    for (size_t k = 0; k < kNumValueKinds; ++k) {
      const auto& sites = r.value_sites[k];
      if (sites.empty()) continue;
      ++kinds;
      append_le<uint32_t>(vp, static_cast<uint32_t>(k));
      append_le<uint32_t>(vp, static_cast<uint32_t>(sites.size()));
      for (const auto& site : sites) vp.push_back(static_cast<char>(site.size()));
      pad8(vp);
      for (const auto& site : sites)
        for (const auto& vd : site) {
          append_le<uint64_t>(vp, vd.value);
          append_le<uint64_t>(vp, vd.count);
        }
    }
    append_le<uint32_t>(b, static_cast<uint32_t>(vp.size() + 8));
    append_le<uint32_t>(b, kinds);
    b += vp;
  }
  return b;
}

struct Key {
  std::string name;
  std::vector<Record> records;
};

struct Built {
  std::string bytes;
  uint64_t hash_offset = 0;
  uint64_t payload_start = 0;
};

// A file with one bucket (NumBuckets = 1) holding every key, in the given order.
Built build(uint64_t version_word, const std::vector<Key>& keys,
            const std::string& memprof = "", const std::vector<std::string>& ids = {},
            const std::string& vtable_blob = "", const std::vector<TemporalTrace>& traces = {},
            uint64_t trace_stream_size = 0) {
  const uint64_t version = version_word & 0xFFFFFFFF;
  Built out;
  std::string& s = out.bytes;
  append_le<uint64_t>(s, kIndexedMagic);
  append_le<uint64_t>(s, version_word);
  append_le<uint64_t>(s, 0);
  append_le<uint64_t>(s, 0);
  append_le<uint64_t>(s, 0);  // HashOffset, patched
  const size_t header_size = indexed_header_size(version);
  while (s.size() < header_size) append_le<uint64_t>(s, 0);
  if (version >= 4) {
    const int summaries = (version_word & kFlagCSIR) ? 2 : 1;
    for (int i = 0; i < summaries; ++i) {
      append_le<uint64_t>(s, 6);
      append_le<uint64_t>(s, 2);
      for (uint64_t f = 1; f <= 6; ++f) append_le<uint64_t>(s, f * 10 + i);
      append_le<uint64_t>(s, 10000); append_le<uint64_t>(s, 5); append_le<uint64_t>(s, 1);
      append_le<uint64_t>(s, 999999); append_le<uint64_t>(s, 1); append_le<uint64_t>(s, 3);
    }
  }
  out.payload_start = s.size();
  if (!keys.empty()) {
    s.push_back(static_cast<char>(keys.size()));
    s.push_back('\0');
    for (const Key& k : keys) {
      std::string data;
      for (const Record& r : k.records) data += record_blob(r, version);
      append_le<uint64_t>(s, md5_name_ref(k.name));
      append_le<uint64_t>(s, k.name.size());
      append_le<uint64_t>(s, data.size());
      s += k.name;
      s += data;
    }
  }
  pad8(s);
  out.hash_offset = s.size();
  set64(s, 0x20, out.hash_offset);
  append_le<uint64_t>(s, 1);
  append_le<uint64_t>(s, keys.size());
  append_le<uint64_t>(s, keys.empty() ? 0 : out.payload_start);
  if (version >= 8 && !memprof.empty()) {
    set64(s, 0x28, s.size());
    s += memprof;
  }
  if (version >= 9) {
    set64(s, 0x30, s.size());
    std::string sec;
    for (const auto& id : ids) {
      append_le<uint64_t>(sec, id.size());
      sec += id;
      pad8(sec);
    }
    append_le<uint64_t>(s, sec.size());
    s += sec;
  }
  if (version >= 12) {
    set64(s, 0x40, s.size());
    append_le<uint64_t>(s, vtable_blob.size());
    s += vtable_blob;
    pad8(s);
  }
  if (version >= 10 && (version_word & kFlagTemporal)) {
    set64(s, 0x38, s.size());
    append_le<uint64_t>(s, traces.size());
    append_le<uint64_t>(s, trace_stream_size);
    for (const auto& t : traces) {
      append_le<uint64_t>(s, t.weight);
      append_le<uint64_t>(s, t.function_refs.size());
      for (uint64_t ref : t.function_refs) append_le<uint64_t>(s, ref);
    }
  }
  return out;
}

using test::make_record;

Expected<IndexedFile> read(const std::string& s) { return read_indexed_file(as_bytes(s)); }

TEST(IndexedReader, ReadsVersion13RecordWithBitmapAndValueSites) {
  Record r = make_record("main", 0x1234, {7, 0, 3});
  r.bitmap = {0x1b, 0x00};
  r.value_sites[0] = {{{md5_name_ref("callee"), 9}, {0, 1}}, {}};
  r.value_sites[1] = {{{8, 25}, {513, 2}}};
  r.value_sites[2] = {{{md5_name_ref("_ZTV1A"), 4}}};
  const Built b = build(13 | kFlagIR, {{"main", {r}}});
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->profile.version, 13u);
  EXPECT_EQ(f->profile.flags, kFlagIR);
  EXPECT_EQ(f->profile.version_word, 13 | kFlagIR);
  EXPECT_EQ(f->profile.format, ProfileFormat::indexed);
  ASSERT_EQ(f->profile.records.size(), 1u);
  EXPECT_EQ(f->profile.records[0], r);
  EXPECT_EQ(f->num_buckets, 1u);
  EXPECT_EQ(f->num_entries, 1u);
  EXPECT_EQ(f->header.size_bytes, 72u);
}

TEST(IndexedReader, KeepsStoredSummaryValues) {
  const Built b = build(13 | kFlagIR | kFlagCSIR, {{"f", {make_record("f", 1, {1})}}});
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_TRUE(f->summary.has_value());
  ASSERT_TRUE(f->cs_summary.has_value());
  EXPECT_EQ(f->summary->total_num_functions, 10u);
  EXPECT_EQ(f->summary->total_block_count, 60u);
  EXPECT_EQ(f->cs_summary->total_num_functions, 11u);
  ASSERT_EQ(f->summary->detailed.size(), 2u);
  EXPECT_EQ(f->summary->detailed[1], (SummaryEntry{999999, 1, 3}));
}

TEST(IndexedReader, ReadsSeveralRecordsPerKeyInBlobOrder) {
  const Record a = make_record("f", 0x20, {1, 2});
  const Record b = make_record("f", 0x10, {3});
  const Record c = make_record("g", 0x30, {4});
  const Built built = build(13 | kFlagIR, {{"g", {c}}, {"f", {a, b}}});
  auto f = read(built.bytes);
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->profile.records.size(), 3u);
  EXPECT_EQ(f->profile.records[0], c);
  EXPECT_EQ(f->profile.records[1], a);
  EXPECT_EQ(f->profile.records[2], b);
}

TEST(IndexedReader, ReadsEachHeaderVersion) {
  for (uint64_t v = 1; v <= 13; ++v) {
    Record r = make_record("fn", 0x99, {5, 6});
    if (v >= 3) r.value_sites[1] = {{{8, 2}}};
    if (v >= 11) r.bitmap = {1};
    const Built b = build(v | kFlagIR, {{"fn", {r}}});
    auto f = read(b.bytes);
    ASSERT_TRUE(f) << "v" << v << ": " << f.error().message;
    EXPECT_EQ(f->profile.version, v);
    EXPECT_EQ(f->header.size_bytes, indexed_header_size(v));
    ASSERT_EQ(f->profile.records.size(), 1u) << v;
    EXPECT_EQ(f->profile.records[0], r) << v;
    EXPECT_EQ(f->summary.has_value(), v >= 4);
  }
}

TEST(IndexedReader, ReadsBinaryIdsMemprofVtableNamesAndTraces) {
  const uint64_t word = 13 | kFlagIR | kFlagMemProf | kFlagTemporal;
  std::string memprof;
  append_le<uint64_t>(memprof, 4);
  append_le<uint64_t>(memprof, 0xABCD);
  const std::string joined = std::string("_ZTV2Sq") + '\x01' + "_ZTV3Tri";
  const std::string z = zlib_compress(joined);
  std::string blob;
  append_uleb128(blob, joined.size());
  append_uleb128(blob, z.size());
  blob += z;
  const std::vector<TemporalTrace> traces = {{1, {md5_name_ref("f"), 7}}, {3, {}}};
  const Built b = build(word, {{"f", {make_record("f", 1, {1})}}}, memprof,
                        {std::string("\x1d\xf0\xd5", 3), std::string(20, '\x07')}, blob,
                        traces, 5);
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  const Profile& p = f->profile;
  EXPECT_EQ(p.memprof_section, memprof);
  ASSERT_EQ(p.binary_ids.size(), 2u);
  EXPECT_EQ(p.binary_ids[0], (std::vector<uint8_t>{0x1d, 0xf0, 0xd5}));
  EXPECT_EQ(p.binary_ids[1], std::vector<uint8_t>(20, 7));
  EXPECT_EQ(p.vtable_names, (std::vector<std::string>{"_ZTV2Sq", "_ZTV3Tri"}));
  EXPECT_EQ(p.traces, traces);
  EXPECT_EQ(p.trace_stream_size, 5u);
}

TEST(IndexedReader, ReadsUncompressedVtableNameBlob) {
  std::string blob;
  blob.push_back(3);
  blob.push_back(0);
  blob += "abc";
  const Built b = build(12 | kFlagIR, {}, "", {}, blob);
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->profile.vtable_names, std::vector<std::string>{"abc"});
  EXPECT_TRUE(f->profile.records.empty());
}

TEST(IndexedReader, EmptyProfileHasNoRecords) {
  const Built b = build(13 | kFlagIR, {});
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_TRUE(f->profile.records.empty());
}

TEST(IndexedReader, RejectsWrongMagic) {
  std::string s = build(13, {}).bytes;
  s[0] = 'x';
  auto f = read(s);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, ErrorCode::bad_magic);
  EXPECT_FALSE(has_indexed_magic(as_bytes(s)));
}

TEST(IndexedReader, RejectsUnknownVersions) {
  for (uint64_t v : {0ull, 14ull, 100ull}) {
    std::string s = build(13, {}).bytes;
    set64(s, 8, v);
    auto f = read(s);
    ASSERT_FALSE(f) << v;
    EXPECT_EQ(f.error().code, ErrorCode::unsupported_version);
    EXPECT_EQ(f.error().offset, 8u);
  }
}

TEST(IndexedReader, VersionIsTheLow32BitsOfTheWord) {
  // LLVM 22 reads bit 55 (loop entries) as a flag; LLVM 14 would see version 2^55 + 13.
  const Built b = build(13 | kFlagIR | kFlagInstrLoopEntries, {});
  auto f = read(b.bytes);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->profile.version, 13u);
  EXPECT_EQ(f->profile.flags, kFlagIR | kFlagInstrLoopEntries);
}

TEST(IndexedReader, RejectsNonMd5HashType) {
  std::string s = build(13, {}).bytes;
  set64(s, 0x18, 1);
  auto f = read(s);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, 0x18u);
}

TEST(IndexedReader, RejectsBucketCountThatIsNotAPowerOfTwo) {
  Built b = build(13, {{"f", {make_record("f", 1, {1})}}});
  set64(b.bytes, b.hash_offset, 3);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, ErrorCode::malformed);
  EXPECT_EQ(f.error().offset, b.hash_offset);
}

TEST(IndexedReader, RejectsHashOffsetPastTheEnd) {
  Built b = build(13, {});
  set64(b.bytes, 0x20, b.bytes.size() + 8);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, 0x20u);
}

TEST(IndexedReader, RejectsBucketOffsetOutsideThePayload) {
  Built b = build(13, {{"f", {make_record("f", 1, {1})}}});
  set64(b.bytes, b.hash_offset + 16, b.hash_offset + 4);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("bucket offset"), std::string::npos) << f.error().message;
}

TEST(IndexedReader, RejectsKeyHashThatIsNotTheNamesMd5) {
  Built b = build(13, {{"f", {make_record("f", 1, {1})}}});
  b.bytes[b.payload_start + 2] ^= 0x40;
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, b.payload_start + 2);
}

TEST(IndexedReader, RejectsEntryCountBeyondThePayload) {
  Built b = build(13, {{"f", {make_record("f", 1, {1})}}});
  set64(b.bytes, b.hash_offset + 8, 1000000);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, b.hash_offset + 8);
}

TEST(IndexedReader, RejectsCounterCountBeyondTheRecord) {
  Built b = build(13, {{"f", {make_record("f", 1, {1})}}});
  // Item header (2 + 24) + key (1) + FuncHash (8) = NumCounters.
  set64(b.bytes, b.payload_start + 2 + 24 + 1 + 8, uint64_t{1} << 61);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, b.payload_start + 2 + 24 + 1 + 8);
  EXPECT_NE(f.error().message.find("NumCounters"), std::string::npos);
}

TEST(IndexedReader, RejectsValueKindPastTheLast) {
  Record r = make_record("f", 1, {1});
  r.value_sites[1] = {{{8, 1}}};
  Built b = build(13, {{"f", {r}}});
  // Value data starts after FuncHash, NumCounters, 1 counter, NumBitmapBytes; kind at +8.
  const size_t kind_at = b.payload_start + 2 + 24 + 1 + 32 + 8;
  b.bytes[kind_at] = 7;
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, kind_at);
}

TEST(IndexedReader, RejectsTemporalFlagWithoutSection) {
  Built b = build(13 | kFlagTemporal, {}, "", {}, "", {}, 0);
  set64(b.bytes, 0x38, 0);
  auto f = read(b.bytes);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().offset, 0x38u);
}

TEST(IndexedReader, EveryPrefixFailsCleanly) {
  Record r = make_record("main", 0x1234, {7, 0, 3});
  r.value_sites[0] = {{{md5_name_ref("callee"), 9}}};
  const std::string joined = "_ZTV2Sq";
  std::string blob;
  append_uleb128(blob, joined.size());
  append_uleb128(blob, 0);
  blob += joined;
  const Built b = build(13 | kFlagIR | kFlagTemporal, {{"main", {r}}}, "", {"abcd"}, blob,
                        {{1, {md5_name_ref("main")}}}, 1);
  ASSERT_TRUE(read(b.bytes));
  for (size_t n = 0; n < b.bytes.size(); ++n) {
    const std::string prefix = b.bytes.substr(0, n);
    auto f = read(prefix);
    EXPECT_FALSE(f) << "prefix of " << n << " bytes was accepted";
  }
}

}  // namespace
}  // namespace profkit::instrprof
