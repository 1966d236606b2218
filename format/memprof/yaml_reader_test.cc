// MemProf YAML (docs/formats/memprof.md E.3): block and flow styles, names as GUIDs, errors.
#include "format/memprof/yaml_reader.h"

#include <gtest/gtest.h>

namespace profkit::memprof {
namespace {

constexpr char kExample[] = R"(---
# MemProfSummary:
#   Total contexts: 1
HeapProfileRecords:                 # optional
  - GUID:            main
    CallSites:
      - Frames:
          - { Function: main, LineOffset: 2, Column: 15, IsInlineFrame: false }
        CalleeGuids: [ 0x1111, mk ]
  - GUID:            0xb201650b6835d907
    AllocSites:
      - Callstack:
          - { Function: mk.llvm.123, LineOffset: 1, Column: 13, IsInlineFrame: false }
          - { Function: 0xdb956436e78dd5fa, LineOffset: 2, Column: 15, IsInlineFrame: false }
        MemInfoBlock:
          AllocCount:      4
          TotalSize:       160
          TotalLifetime:   1000000
          TotalLifetimeAccessDensity: 0
...
)";

TEST(MemProfYaml, ReadsTheSpecExample) {
  auto r = read_memprof_yaml(as_bytes(kExample));
  ASSERT_TRUE(r) << r.error().message << " at " << r.error().offset;
  const auto& recs = r->data.records;
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].guid, 0xdb956436e78dd5faull);
  ASSERT_EQ(recs[0].call_sites.size(), 1u);
  EXPECT_EQ(recs[0].call_sites[0].callee_guids,
            (std::vector<uint64_t>{0x1111, 0xb201650b6835d907ull}));
  ASSERT_EQ(recs[1].alloc_sites.size(), 1u);
  const auto& a = recs[1].alloc_sites[0];
  EXPECT_EQ(r->data.stacks.stack(a.stack)[0], (Frame{0xb201650b6835d907ull, 1, 13, false}));
  EXPECT_EQ(a.mib.AllocCount, 4u);
  EXPECT_EQ(a.mib.TotalLifetime, 1000000u);
  // Stacks in record order, allocation stacks before call sites.
  ASSERT_EQ(r->data.stacks.num_stacks(), 2u);
  EXPECT_EQ(r->data.stacks.stack(0).size(), 1u);
  EXPECT_EQ(recs[0].call_sites[0].stack, 0u);
  EXPECT_EQ(a.stack, 1u);
}

TEST(MemProfYaml, RejectsDecimalGuidAndUnknownField) {
  auto d = read_memprof_yaml(as_bytes("---\nHeapProfileRecords:\n  - GUID: 123\n"));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("hexadecimal GUID"), std::string::npos);
  EXPECT_EQ(d.error().offset, 34u);  // the '1' of 123
  auto u = read_memprof_yaml(as_bytes(
      "---\nHeapProfileRecords:\n  - GUID: main\n    AllocSites:\n      - Callstack: []\n"
      "        MemInfoBlock: { Bogus: 1 }\n"));
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("Bogus"), std::string::npos);
}

TEST(MemProfYaml, DuplicateGuidKeepsTheFirst) {
  auto r = read_memprof_yaml(as_bytes(
      "---\nHeapProfileRecords:\n  - GUID: main\n    CallSites:\n      - Frames: [ { Function: main, "
      "LineOffset: 1, Column: 1, IsInlineFrame: false } ]\n  - GUID: main\n"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->data.records.size(), 1u);
  EXPECT_EQ(r->data.records[0].call_sites.size(), 1u);
}

TEST(MemProfYaml, EveryPrefixIsHandled) {
  const std::string_view text = kExample;
  for (size_t n = 0; n < text.size(); ++n) (void)read_memprof_yaml(as_bytes(text.substr(0, n)));
}

}  // namespace
}  // namespace profkit::memprof
