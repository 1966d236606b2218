// Decoder tests on the spec's worked examples (small.c, sections 3.2, 4.6 and 4.7) and on
// hand-made records for sentinels, discriminators, mixed chains and malformed input.
#include "format/probe/pseudo_probe.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/bytes/hash.h"

namespace profkit::probe {
namespace {

std::vector<uint8_t> hex(std::string_view text) {
  std::vector<uint8_t> out;
  int nibble = -1;
  for (char c : text) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (v < 0) continue;
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<uint8_t>(nibble * 16 + v));
      nibble = -1;
    }
  }
  return out;
}

// small.o, LLVM 22 (docs/formats/pseudo-probes.md 4.6).
const char* const kSmall22 =
    "1043 bfc7 7feb e75f 0201 0180 0603 8115"
    "0255 748c 3d66 8bf0 a403 0101 806b 0280"
    "0405 8011 03cc 4611 cb8f 6cae 2d02 0001"
    "806f 0282 02";
// small.o, LLVM 14 (docs/formats/pseudo-probes.md 4.7), relocated: the absolute address at offset 12 is .text + 9.
const char* const kSmall14 =
    "1043 bfc7 7feb e75f 0201 0100 0900 0000"
    "0000 0000 0381 1602 5574 8c3d 668b f0a4"
    "0301 0180 6a02 8004 0480 1005 cc46 11cb"
    "8f6c ae2d 0200 0180 7002 8202";

constexpr uint64_t kEntry = 0x5fe7eb7fc7bf4310;
constexpr uint64_t kH = 0xa4f08b663d8c7455;
constexpr uint64_t kG = 0x2dae6c8fcb1146cc;

Expected<ProbeMap> decode(const std::vector<uint8_t>& probe,
                          const std::unordered_map<uint64_t, SymbolRange>& symbols,
                          bool global = false, const std::vector<uint8_t>& desc = {}) {
  std::vector<SectionBytes> d, p;
  if (!desc.empty()) d.push_back({Bytes(desc.data(), desc.size()), 0});
  p.push_back({Bytes(probe.data(), probe.size()), 0x100});
  DecodeOptions o;
  o.symbols = &symbols;
  o.llvm22_global_chain = global;
  return ProbeMap::decode(d, p, o);
}

std::vector<std::pair<uint64_t, uint32_t>> addresses(const ProbeMap& m) {
  std::vector<std::pair<uint64_t, uint32_t>> out;
  for (const auto& p : m.probes()) out.emplace_back(p.address, p.index);
  return out;
}

TEST(PseudoProbe, GuidIsMd5OfTheName) {
  EXPECT_EQ(md5_name_ref("entry"), kEntry);
  EXPECT_EQ(md5_name_ref("main"), 0xdb956436e78dd5faull);
}

TEST(PseudoProbe, Llvm22RecordIsRebasedOnItsFunctionSymbol) {
  const auto bytes = hex(kSmall22);
  std::unordered_map<uint64_t, SymbolRange> syms{{kEntry, {0x1130, 0x1160}}};
  auto m = decode(bytes, syms);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  const std::vector<std::pair<uint64_t, uint32_t>> want{
      {0x1136, 1}, {0x114b, 3}, {0x1136, 1}, {0x113a, 2}, {0x114b, 5}, {0x113a, 1}, {0x113c, 2}};
  EXPECT_EQ(addresses(*m), want);
  EXPECT_FALSE(m->has_absolute_records());
  // Inline tree: entry -> h @2 -> g @3.
  const auto& nodes = m->nodes();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[1].guid, kEntry);
  EXPECT_EQ(nodes[2].guid, kH);
  EXPECT_EQ(nodes[2].site, 2u);
  EXPECT_EQ(nodes[3].guid, kG);
  EXPECT_EQ(nodes[3].site, 3u);
  EXPECT_EQ(nodes[1].first_child, 2u);
  EXPECT_EQ(nodes[2].first_child, 3u);
}

TEST(PseudoProbe, InlineContextAndCallProbeLookup) {
  const auto bytes = hex(kSmall22);
  std::unordered_map<uint64_t, SymbolRange> syms{{kEntry, {0x1130, 0x1160}}};
  auto m = decode(bytes, syms);
  ASSERT_TRUE(m.has_value());
  const Probe* call = m->call_probe_at(0x113c);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->index, 2u);
  EXPECT_EQ(call->type, 2);
  auto ctx = m->inline_context(*call);
  ASSERT_EQ(ctx.size(), 2u);
  EXPECT_EQ(ctx[0].guid, kEntry);
  EXPECT_EQ(ctx[0].site, 2u);
  EXPECT_EQ(ctx[1].guid, kH);
  EXPECT_EQ(ctx[1].site, 3u);
  // 0x114b holds entry's indirect call (decoded first) and h's block 5.
  auto at = m->find(0x114b);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(m->probes()[at[0]].index, 3u);
  EXPECT_EQ(m->probes()[at[1]].index, 5u);
  EXPECT_EQ(m->call_probe_at(0x114b)->type, 1);
  EXPECT_EQ(m->call_probe_at(0x1136), nullptr);
  EXPECT_EQ(m->find(0x1136, 0x113c).size(), 4u);
}

TEST(PseudoProbe, Llvm14ChainStartsAtTheRelocatedAddress) {
  const auto bytes = hex(kSmall14);
  auto m = decode(bytes, {});
  ASSERT_TRUE(m.has_value()) << m.error().message;
  const std::vector<std::pair<uint64_t, uint32_t>> want{
      {0x09, 1}, {0x1f, 3}, {0x09, 1}, {0x0d, 2}, {0x1d, 4}, {0x0d, 1}, {0x0f, 2}};
  EXPECT_EQ(addresses(*m), want);
  EXPECT_TRUE(m->has_absolute_records());
  EXPECT_EQ(m->nodes()[3].site, 5u);  // LLVM 14 numbering
}

TEST(PseudoProbe, MissingFunctionSymbolLeavesRecordUnplaced) {
  const auto bytes = hex(kSmall22);
  auto m = decode(bytes, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->probes().size(), 0u);
  EXPECT_EQ(m->unplaced_records(), 1u);
}

TEST(PseudoProbe, SentinelNamesTheSymbolAndIsNotAProbe) {
  // guid(h), 2 probes, 0 inlinees; sentinel -> symbol "h.llvm.1"; probe 1 at +4.
  std::vector<uint8_t> b = hex("5574 8c3d 668b f0a4 0200 0020");
  const uint64_t sym = md5_name_ref("h.llvm.1");
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(sym >> (8 * i)));
  for (uint8_t x : hex("0180 04")) b.push_back(x);
  std::unordered_map<uint64_t, SymbolRange> syms{{sym, {0x2000, 0x2100}}};
  auto m = decode(b, syms);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_EQ(m->probes().size(), 1u);
  EXPECT_EQ(m->probes()[0].address, 0x2004u);
  EXPECT_EQ(m->nodes()[1].guid, kH);
}

TEST(PseudoProbe, DiscriminatorFollowsTheAddress) {
  // guid(entry), 1 probe: index 6, kind 0xc0, delta 0, discriminator 0x3a00.
  auto b = hex("1043 bfc7 7feb e75f 0100 06c0 0080 74");
  std::unordered_map<uint64_t, SymbolRange> syms{{kEntry, {0x10, 0x20}}};
  auto m = decode(b, syms);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_EQ(m->probes().size(), 1u);
  EXPECT_EQ(m->probes()[0].discriminator, 14848u);
  EXPECT_EQ(m->probes()[0].address, 0x10u);
}

TEST(PseudoProbe, MixedSectionDecidesTheChainPerRecord) {
  // LLVM 14 record (absolute 0x1139) followed by an LLVM 22 record for main at 0x1170.
  auto b = hex(kSmall14);
  for (uint8_t x : hex("fad5 8de7 3664 95db 0200 0180 0102 8207")) b.push_back(x);
  std::unordered_map<uint64_t, SymbolRange> syms{{md5_name_ref("main"), {0x1170, 0x1180}},
                                                 {kEntry, {0x0, 0x40}}};
  auto per_record = decode(b, syms);
  ASSERT_TRUE(per_record.has_value());
  auto probes = addresses(*per_record);
  ASSERT_EQ(probes.size(), 9u);
  EXPECT_EQ(probes[7], (std::pair<uint64_t, uint32_t>{0x1171, 1}));
  EXPECT_EQ(probes[8], (std::pair<uint64_t, uint32_t>{0x1178, 2}));
  // llvm-profgen 22 keeps chaining from the last LLVM 14 address (0x0f).
  auto global = decode(b, syms, /*global=*/true);
  ASSERT_TRUE(global.has_value());
  EXPECT_EQ(addresses(*global)[7], (std::pair<uint64_t, uint32_t>{0x10, 1}));
}

TEST(PseudoProbe, DescriptorsAreSortedAndKeepDuplicates) {
  // Two copies of "ext" and one "main".
  std::vector<uint8_t> d;
  auto add = [&](std::string_view name, uint64_t hash) {
    const uint64_t g = md5_name_ref(name);
    for (int i = 0; i < 8; ++i) d.push_back(static_cast<uint8_t>(g >> (8 * i)));
    for (int i = 0; i < 8; ++i) d.push_back(static_cast<uint8_t>(hash >> (8 * i)));
    d.push_back(static_cast<uint8_t>(name.size()));
    d.insert(d.end(), name.begin(), name.end());
  };
  add("main", 1);
  add("ext", 2);
  add("ext", 3);
  auto m = decode({}, {}, false, d);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_EQ(m->descriptors().size(), 3u);
  EXPECT_EQ(m->descriptors()[0].name, "ext");
  EXPECT_EQ(m->descriptors()[0].hash, 2u);
  EXPECT_EQ(m->descriptors()[1].hash, 3u);
  EXPECT_EQ(m->descriptors()[2].name, "main");
  EXPECT_EQ(m->name(md5_name_ref("main")), "main");
  EXPECT_EQ(m->descriptor(42), nullptr);
}

TEST(PseudoProbe, EveryPrefixIsTruncatedOrSuccess) {
  for (const char* text : {kSmall22, kSmall14}) {
    const auto full = hex(text);
    std::unordered_map<uint64_t, SymbolRange> syms{{kEntry, {0x1130, 0x1160}}};
    for (size_t n = 0; n < full.size(); ++n) {
      std::vector<uint8_t> prefix(full.begin(), full.begin() + static_cast<long>(n));
      auto m = decode(prefix, syms);
      if (!m.has_value()) {
        EXPECT_EQ(m.error().code, ErrorCode::truncated) << n << ": " << m.error().message;
        EXPECT_GE(m.error().offset, 0x100u);
        EXPECT_LE(m.error().offset, 0x100u + n);
      }
    }
  }
}

TEST(PseudoProbe, CountsAboveThirtyTwoBitsAreMalformed) {
  auto b = hex("1043 bfc7 7feb e75f ffff ffff 1f00");
  auto m = decode(b, {});
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, ErrorCode::malformed);
  EXPECT_EQ(m.error().offset, 0x108u);
}

TEST(PseudoProbe, DeepInlineNestingDoesNotRecurse) {
  // 100000 nested inlinees (each: site 1, guid, 0 probes, 1 child); the last has 0 children.
  std::vector<uint8_t> b = hex("1043 bfc7 7feb e75f 0001");
  const int depth = 100000;
  for (int i = 0; i < depth; ++i) {
    b.push_back(1);
    for (int j = 0; j < 8; ++j) b.push_back(0x11);
    b.push_back(0);
    b.push_back(i + 1 < depth ? 1 : 0);
  }
  std::unordered_map<uint64_t, SymbolRange> syms{{kEntry, {0x10, 0x20}}};
  auto m = decode(b, syms);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  EXPECT_EQ(m->nodes().size(), static_cast<size_t>(depth + 2));
}

TEST(PseudoProbe, CanonicalNames) {
  EXPECT_EQ(canonical_name("f.llvm.123"), "f");
  EXPECT_EQ(canonical_name("f.llvm.1.2"), "f.llvm.1.2");
  EXPECT_EQ(canonical_name("f.part.3"), "f");
  EXPECT_EQ(canonical_name("_ZL1hi.__uniq.42.llvm.7"), "_ZL1hi.__uniq.42");
  EXPECT_EQ(canonical_name("_ZL1hi.__uniq.42"), "_ZL1hi.__uniq.42");
}

}  // namespace
}  // namespace profkit::probe
