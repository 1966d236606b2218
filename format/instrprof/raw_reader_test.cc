// Raw profile reader: real files from testdata/merge (made by regenerate.sh with clang 14
// and 22) and small synthetic images for layouts we cannot produce here (32-bit, swapped).
#include "format/instrprof/raw_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "format/bytes/hash.h"

#include "format/instrprof/testdata_file.h"

namespace profkit::instrprof {
namespace {

std::string testdata(const std::string& name) { return testdata_file("merge/" + name); }

const Record* find(const Profile& p, std::string_view name) {
  for (const Record& r : p.records)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(RawReader, ReadsLlvm22SimpleProfile) {
  const std::string bytes = testdata("simple22.profraw");
  ASSERT_TRUE(has_raw_magic(as_bytes(bytes)));
  auto p = read_raw_profile(as_bytes(bytes));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->version, 10u);
  EXPECT_EQ(p->flags, kFlagIR);
  ASSERT_EQ(p->records.size(), 4u);
  EXPECT_EQ(p->records[0].name, "compute");
  EXPECT_EQ(p->records[0].counts, (std::vector<uint64_t>{5, 5, 1}));
  EXPECT_EQ(p->records[1].name, "simple.c;helper");
  EXPECT_EQ(p->records[1].counts, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(p->records[2].name, "never_called");
  EXPECT_EQ(p->records[2].counts, (std::vector<uint64_t>{0}));
  EXPECT_EQ(p->records[3].name, "main");
  EXPECT_EQ(p->records[3].counts, (std::vector<uint64_t>{0, 1}));
  ASSERT_EQ(p->binary_ids.size(), 1u);
  EXPECT_EQ(p->binary_ids[0].size(), 20u);
}

TEST(RawReader, ReadsLlvm14SimpleProfileWithColonNames) {
  const std::string bytes = testdata("simple14.profraw");
  auto p = read_raw_profile(as_bytes(bytes));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->version, 8u);
  ASSERT_EQ(p->records.size(), 4u);
  EXPECT_EQ(p->records[1].name, "simple.c:helper");
  EXPECT_EQ(p->records[1].counts, (std::vector<uint64_t>{3, 2}));
}

TEST(RawReader, RemapsIndirectCallTargetsToNameRefs) {
  const std::string bytes = testdata("vp22.profraw");
  auto p = read_raw_profile(as_bytes(bytes));
  ASSERT_TRUE(p) << p.error().message;
  const Record* dispatch = find(*p, "dispatch");
  ASSERT_NE(dispatch, nullptr);
  ASSERT_EQ(dispatch->value_sites[0].size(), 1u);
  const ValueSite& site = dispatch->value_sites[0][0];
  EXPECT_EQ(site, (ValueSite{{md5_name_ref("add1"), 60},
                             {md5_name_ref("dbl"), 30},
                             {md5_name_ref("sq"), 10}}));
  const Record* copy = find(*p, "copy");
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->value_sites[1].size(), 1u);
  EXPECT_EQ(copy->value_sites[1][0],
            (ValueSite{{8, 25}, {32, 25}, {65, 25}, {513, 25}}));
}

// A value kind with no sites takes 8 bytes and no site counts. Seen by the fuzzer: the
// first such record of a reader copied zero site counts into a buffer not yet allocated.
TEST(RawReader, ValueKindWithoutSitesIsEmpty) {
  const std::string bytes = testdata("vp22.profraw");
  auto word = [&](size_t i) { return load_le<uint64_t>(as_bytes(bytes).data() + 8 * i); };
  // Header words (version 10): BinaryIdsSize, NumData, PaddingBeforeCounters, NumCounters,
  // PaddingAfterCounters, NumBitmapBytes, PaddingAfterBitmap, NamesSize at 2..9.
  const uint64_t names = word(9);
  const size_t values_at = 16 * 8 + word(2) + word(3) * 64 + word(4) + word(5) * 8 + word(6) +
                           word(7) + word(8) + names + (8 - names % 8) % 8;
  // The first block: {TotalSize, NumValueKinds = 1, kind 0 with one site, its pairs}. Make
  // it {TotalSize + 8, 2, kind 0 with no sites, kind 1 with that site, the same pairs}.
  const auto u32 = [&](size_t at) { return load_le<uint32_t>(as_bytes(bytes).data() + at); };
  ASSERT_EQ(u32(values_at + 4), 1u);
  ASSERT_EQ(u32(values_at + 8), 0u);
  ASSERT_EQ(u32(values_at + 12), 1u);
  std::string edited = bytes.substr(0, values_at);
  append_le<uint32_t>(edited, u32(values_at) + 8);
  append_le<uint32_t>(edited, 2);
  append_le<uint32_t>(edited, 0);
  append_le<uint32_t>(edited, 0);
  append_le<uint32_t>(edited, 1);
  edited += bytes.substr(values_at + 12);
  auto p = read_raw_profile(as_bytes(edited));
  ASSERT_TRUE(p) << p.error().message;
  const Record* dispatch = find(*p, "dispatch");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_TRUE(dispatch->value_sites[0].empty());
  ASSERT_EQ(dispatch->value_sites[1].size(), 1u);
  EXPECT_EQ(dispatch->value_sites[1][0].size(), 3u);
}

TEST(RawReader, EveryPrefixIsAnErrorOrSuccessNeverACrash) {
  for (const char* name : {"simple22.profraw", "simple14.profraw", "vp22.profraw", "vp14.profraw"}) {
    const std::string bytes = testdata(name);
    ASSERT_FALSE(bytes.empty()) << name;
    size_t errors = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto p = read_raw_profile(as_bytes(std::string_view(bytes).substr(0, n)));
      if (!p) {
        ++errors;
        EXPECT_TRUE(p.error().code == ErrorCode::truncated || p.error().code == ErrorCode::malformed)
            << name << " prefix " << n << ": " << p.error().message;
      }
    }
    EXPECT_EQ(errors, bytes.size()) << name << ": every proper prefix must fail";
  }
}

TEST(RawReader, ConcatenatedImagesWithZeroPaddingAreAllRead) {
  const std::string a = testdata("simple22.profraw"), b = testdata("vp22.profraw");
  auto pa = read_raw_profile(as_bytes(a));
  auto pb = read_raw_profile(as_bytes(b));
  ASSERT_TRUE(pa && pb);
  const std::string both = a + std::string(16, '\0') + b;
  auto p = read_raw_profile(as_bytes(both));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->records.size(), pa->records.size() + pb->records.size());
  EXPECT_EQ(p->binary_ids.size(), 2u);
}

TEST(RawReader, MisalignedSecondImageIsRejected) {
  const std::string a = testdata("simple22.profraw");
  const std::string both = a + std::string(4, '\0') + "\x01" + a;
  auto p = read_raw_profile(as_bytes(both));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::malformed);
  EXPECT_EQ(p.error().offset, a.size() + 4);
}

TEST(RawReader, BadMagicAndUnsupportedVersionsAreRejected) {
  std::string bytes = testdata("simple22.profraw");
  std::string bad = bytes;
  bad[1] = 'x';
  auto p = read_raw_profile(as_bytes(bad));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::bad_magic);
  std::string v9 = bytes;
  v9[8] = 9;
  p = read_raw_profile(as_bytes(v9));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::unsupported_version);
  EXPECT_EQ(p.error().offset, 8u);
  // LLVM 14 has no loop-entries flag (bit 55): such a v8 file is unsupported.
  std::string v8 = testdata("simple14.profraw");
  v8[8 + 6] = static_cast<char>(v8[8 + 6] | 0x80);
  p = read_raw_profile(as_bytes(v8));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::unsupported_version);
}

TEST(RawReader, CounterPointerOutsideTheSectionIsMalformed) {
  std::string bytes = testdata("simple22.profraw");
  // Record 1 starts at 0x80 + BinaryIdsSize (0x20) = 0xE0; its CounterPtr is at +0x10.
  bytes[0xE0 + 0x10 + 2] = 0x40;
  auto p = read_raw_profile(as_bytes(bytes));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::malformed);
  EXPECT_EQ(p.error().offset, 0xE0u);
}

// ---- synthetic images: 32-bit pointers and the other byte order ----

struct Fn {
  std::string name;
  uint64_t hash;
  std::vector<uint64_t> counts;
};

class RawBuilder {
 public:
  RawBuilder(int version, bool is64, bool swap) : version_(version), is64_(is64), swap_(swap) {}

  std::string build(const std::vector<Fn>& fns) {
    const uint64_t ptr = is64_ ? 8 : 4;
    const uint64_t rec = version_ == 8 ? (is64_ ? 48 : 40) : (is64_ ? 64 : 48);
    const uint64_t header = version_ == 8 ? 88 : 128;
    uint64_t ncounters = 0;
    for (const Fn& f : fns) ncounters += f.counts.size();
    std::string names;
    for (size_t i = 0; i < fns.size(); ++i) names += (i ? "\x01" : "") + fns[i].name;
    std::string blob;
    blob.push_back(static_cast<char>(names.size()));  // < 128: one-byte ULEB
    blob.push_back(0);                                // stored, not compressed
    blob += names;
    const uint64_t data_off = header;
    const uint64_t cnt_off = data_off + fns.size() * rec;
    std::string out;
    u64(out, is64_ ? kRawMagic64 : kRawMagic32);
    u64(out, kFlagIR | static_cast<uint64_t>(version_));
    u64(out, 0);               // BinaryIdsSize
    u64(out, fns.size());      // NumData
    u64(out, 0);               // PaddingBytesBeforeCounters
    u64(out, ncounters);
    u64(out, 0);               // PaddingBytesAfterCounters
    if (version_ >= 10) {
      u64(out, 0);  // NumBitmapBytes
      u64(out, 0);  // PaddingBytesAfterBitmapBytes
    }
    u64(out, blob.size());
    u64(out, trunc(cnt_off - data_off));  // CountersDelta
    if (version_ >= 10) u64(out, 0);      // BitmapDelta
    u64(out, 0);                          // NamesDelta
    if (version_ >= 10) {
      u64(out, 0);  // NumVTables
      u64(out, 0);  // VNamesSize
    }
    u64(out, version_ >= 10 ? 2 : 1);  // ValueKindLast
    uint64_t counter_byte = 0;
    for (size_t i = 0; i < fns.size(); ++i) {
      const size_t start = out.size();
      u64(out, md5_name_ref(fns[i].name));
      u64(out, fns[i].hash);
      p(out, trunc(cnt_off + counter_byte - (data_off + i * rec)), ptr);  // CounterPtr
      if (version_ >= 10) p(out, 0, ptr);                                   // BitmapPtr
      p(out, 0, ptr);                                                       // FunctionPointer
      p(out, 0, ptr);                                                       // Values
      u32(out, static_cast<uint32_t>(fns[i].counts.size()));
      for (int k = 0; k < (version_ >= 10 ? 3 : 2); ++k) u16(out, 0);
      if (version_ >= 10) {
        u16(out, 0);  // padding
        u32(out, 0);  // NumBitmapBytes
      }
      while (out.size() - start < rec) out.push_back(0);
      counter_byte += 8 * fns[i].counts.size();
    }
    for (const Fn& f : fns)
      for (uint64_t c : f.counts) u64(out, c);
    out += blob;
    while (out.size() % 8) out.push_back(0);
    return out;
  }

 private:
  uint64_t trunc(uint64_t v) const { return is64_ ? v : (v & 0xFFFFFFFFu); }
  template <class T>
  void put(std::string& out, T v) {
    if (swap_) v = byteswap_int(v);
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void u64(std::string& o, uint64_t v) { put<uint64_t>(o, v); }
  void u32(std::string& o, uint32_t v) { put<uint32_t>(o, v); }
  void u16(std::string& o, uint16_t v) { put<uint16_t>(o, v); }
  void p(std::string& o, uint64_t v, uint64_t size) {
    if (size == 8) {
      u64(o, v);
    } else {
      u32(o, static_cast<uint32_t>(v));
    }
  }
  int version_;
  bool is64_, swap_;
};

TEST(RawReader, ReadsEveryPointerWidthByteOrderAndVersion) {
  const std::vector<Fn> fns = {{"alpha", 0x1111, {1, 2, 3}}, {"beta.c;b", 0x2222, {7}},
                               {"gamma", 0x3333, {0, 9}}};
  for (int version : {8, 10})
    for (bool is64 : {true, false})
      for (bool swap : {false, true}) {
        const std::string bytes = RawBuilder(version, is64, swap).build(fns);
        ASSERT_TRUE(has_raw_magic(as_bytes(bytes)));
        auto p = read_raw_profile(as_bytes(bytes));
        ASSERT_TRUE(p) << "v" << version << " is64=" << is64 << " swap=" << swap << ": "
                       << p.error().message << " at " << p.error().offset;
        EXPECT_EQ(p->version, static_cast<uint64_t>(version));
        ASSERT_EQ(p->records.size(), fns.size());
        for (size_t i = 0; i < fns.size(); ++i) {
          EXPECT_EQ(p->records[i].name, fns[i].name);
          EXPECT_EQ(p->records[i].hash, fns[i].hash);
          EXPECT_EQ(p->records[i].counts, fns[i].counts);
        }
      }
}

TEST(RawReader, StreamingReaderReusesItsNameTableAcrossFiles) {
  const std::string a = testdata("vp22.profraw"), b = testdata("vp22b.profraw");
  struct Counter : RawSink {
    size_t functions = 0, tables = 0;
    uint64_t last = 0;
    std::vector<uint64_t> fingerprints;
    Expected<void> on_function(const RawFunction& f) override {
      bool known = false;
      EXPECT_FALSE(f.resolve_name(&known).empty());
      EXPECT_TRUE(known);
      ++functions;
      return {};
    }
    void on_name_table(uint64_t fingerprint, std::span<const std::string_view> names,
                       std::span<const uint64_t> refs) override {
      ++tables;
      fingerprints.push_back(fingerprint);
      EXPECT_FALSE(names.empty());
      ASSERT_EQ(refs.size(), names.size());
      for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(refs[i], md5_name_ref(names[i]));
    }
  } sink;
  RawReader reader;
  ASSERT_TRUE(reader.read(as_bytes(a), sink));
  ASSERT_TRUE(reader.read(as_bytes(b), sink));
  EXPECT_EQ(sink.tables, 2u);
  EXPECT_EQ(sink.fingerprints[0], sink.fingerprints[1]);  // same program, same names
  EXPECT_EQ(sink.functions, 14u);
}

// The streaming reader keeps the indirect-call target map of one file for the next file of
// the same program (shifted by the load bias) and must rebuild it for any other file: each
// file's remapped targets equal what a fresh reader gives.
TEST(RawReader, StreamingReaderRemapsTargetsOfEachFileLikeAFreshReader) {
  struct Collect final : RawSink {
    std::vector<ValueData> values;
    Expected<void> on_function(const RawFunction& f) override {
      values.insert(values.end(), f.values.begin(), f.values.end());
      return {};
    }
  };
  RawReader shared;
  for (const char* name : {"vp22.profraw", "vp22b.profraw", "vp14.profraw", "vp22b.profraw",
                           "simple22.profraw", "vp22.profraw"}) {
    const std::string bytes = testdata(name);
    Collect reused, fresh;
    ASSERT_TRUE(shared.read(as_bytes(bytes), reused)) << name;
    RawReader once;
    ASSERT_TRUE(once.read(as_bytes(bytes), fresh)) << name;
    EXPECT_EQ(reused.values, fresh.values) << name;
    if (std::string_view(name).starts_with("vp")) {
      EXPECT_FALSE(fresh.values.empty()) << name;
      // Indirect-call targets are remapped to NameRefs: some must be known functions.
      EXPECT_TRUE(std::any_of(fresh.values.begin(), fresh.values.end(),
                              [](const ValueData& v) { return v.value != 0; }))
          << name;
    }
  }
}

}  // namespace
}  // namespace profkit::instrprof
