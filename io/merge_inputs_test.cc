#include "io/merge_inputs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "format/instrprof/indexed_header.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/raw_reader.h"

namespace profkit {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the test's temporary directory, removed when the test ends.
class Scratch {
 public:
  Scratch() : dir_(fs::path(::testing::TempDir()) / ("merge_inputs_" + test_name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string file(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  static std::string test_name() {
    return ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  fs::path dir_;
};

std::string u64_bytes(uint64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

// An indexed header of `version` with `flags` in the version word (zero offsets).
std::string indexed_header(uint64_t version, uint64_t flags) {
  std::string out;
  instrprof::IndexedHeader h;
  h.version_word = version | flags;
  instrprof::append_indexed_header(out, h);
  return out;
}

TEST(ParseWeightedInput, TakesAnIntegerWeightOfAtLeastOne) {
  const auto w = parse_weighted_input("3,dir/a.profraw");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->path, "dir/a.profraw");
  EXPECT_EQ(w->weight, 3u);
  const auto comma_in_path = parse_weighted_input("2,a,b");
  ASSERT_TRUE(comma_in_path);
  EXPECT_EQ(comma_in_path->path, "a,b");
  for (const char* bad : {"0,a", "-1,a", "x,a", "3x,a", ",a", "a", ""})
    EXPECT_FALSE(parse_weighted_input(bad)) << bad;
}

TEST(CollectMergeInputs, PositionalThenWeightedThenTheListInOrder) {
  Scratch s;
  const std::string a = s.file("a", "x"), b = s.file("b", "x"), c = s.file("c", "x"),
                    d = s.file("d", "x");
  const std::string list = s.file("list", "# inputs\n\n  " + c + "  \r\n4," + d + "\n");
  std::string failed;
  auto got = collect_merge_inputs({{a}, {"7," + b}, list}, &failed);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 4u);
  EXPECT_EQ((*got)[0].path, a);
  EXPECT_EQ((*got)[0].weight, 1u);
  EXPECT_EQ((*got)[1].path, b);
  EXPECT_EQ((*got)[1].weight, 7u);
  EXPECT_EQ((*got)[2].path, c);
  EXPECT_EQ((*got)[2].weight, 1u);
  EXPECT_EQ((*got)[3].path, d);
  EXPECT_EQ((*got)[3].weight, 4u);
}

TEST(CollectMergeInputs, ABadListLineIsNamedByListAndLine) {
  Scratch s;
  const std::string a = s.file("a", "x");
  const std::string list = s.file("list", a + "\n0," + a + "\n");
  std::string failed = "stale";
  auto got = collect_merge_inputs({{}, {}, list}, &failed);
  ASSERT_FALSE(got);
  EXPECT_TRUE(failed.empty());  // about the command line, not a file's bytes
  EXPECT_EQ(got.error().message,
            list + ":2: expected FILE or W,FILE with an integer weight >= 1");
}

TEST(CollectMergeInputs, ABadWeightedSpecNamesTheOption) {
  std::string failed;
  auto got = collect_merge_inputs({{}, {"0,x"}, ""}, &failed);
  ASSERT_FALSE(got);
  EXPECT_TRUE(failed.empty());
  EXPECT_NE(got.error().message.find("--weighted-input"), std::string::npos);
}

TEST(CollectMergeInputs, AMissingInputFailsBeforeAnythingIsRead) {
  Scratch s;
  const std::string a = s.file("a", "x");
  const std::string missing = s.path("missing");
  std::string failed;
  auto got = collect_merge_inputs({{a, missing}, {}, ""}, &failed);
  ASSERT_FALSE(got);
  EXPECT_EQ(failed, missing);
  EXPECT_EQ(got.error().code, ErrorCode::io);

  auto missing_list = collect_merge_inputs({{a}, {}, s.path("no-list")}, &failed);
  ASSERT_FALSE(missing_list);
  EXPECT_EQ(failed, s.path("no-list"));
}

TEST(CollectMergeInputs, ADirectoryStandsForItsRegularFilesWithItsWeight) {
  Scratch s;
  const std::string x = s.file("d/x", "1"), y = s.file("d/sub/y", "2");
  fs::create_directories(s.path("d/empty"));
  std::string failed;
  auto got = collect_merge_inputs({{}, {"5," + s.path("d")}, ""}, &failed);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 2u);
  std::vector<std::string> paths;
  for (const auto& in : *got) {
    EXPECT_EQ(in.weight, 5u);
    paths.push_back(in.path);
  }
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{y, x}));
}

TEST(SniffInstrProfFile, TellsRawIndexedAndTheMemProfFlagFromTheHeader) {
  Scratch s;
  const std::string raw = s.file("raw", u64_bytes(instrprof::kRawMagic64) + std::string(64, '\0'));
  const std::string indexed = s.file("idx", indexed_header(13, 0));
  const std::string with_memprof = s.file("idx-m", indexed_header(13, instrprof::kFlagMemProf));
  // Before version 8 the bit meant nothing.
  const std::string old = s.file("idx-7", indexed_header(7, instrprof::kFlagMemProf));
  EXPECT_EQ(sniff_instrprof_file(raw), InstrProfFileKind::raw);
  EXPECT_EQ(sniff_instrprof_file(indexed), InstrProfFileKind::indexed);
  EXPECT_EQ(sniff_instrprof_file(with_memprof), InstrProfFileKind::indexed_memprof);
  EXPECT_EQ(sniff_instrprof_file(old), InstrProfFileKind::indexed);
  EXPECT_EQ(sniff_instrprof_file(s.file("text", "# IR level Instrumentation Flag\n:ir\n")),
            InstrProfFileKind::other);
  EXPECT_EQ(sniff_instrprof_file(s.file("short", "\x81r")), InstrProfFileKind::other);
  EXPECT_EQ(sniff_instrprof_file(s.path("missing")), InstrProfFileKind::other);
}

TEST(RouteMemProfInputs, MemProfFilesLeaveTheIrPgoInputsAndKeepTheirOrder) {
  Scratch s;
  const std::string raw = s.file("raw", u64_bytes(instrprof::kRawMagic64) + std::string(64, '\0'));
  const std::string yaml1 = s.file("a.yaml", "---\nHeapProfileRecords: []\n...\n");
  const std::string text = s.file("t.proftext", ":ir\n");
  const std::string yaml2 = s.file("b.yaml", "---\n...\n");
  const std::string flagged = s.file("idx-m", indexed_header(13, instrprof::kFlagMemProf));
  std::vector<WeightedPath> inputs = {{yaml1, 1}, {raw, 2}, {text, 1}, {flagged, 1}, {yaml2, 3}};
  const MemProfRoute route = route_memprof_inputs(inputs);
  EXPECT_EQ(route.memprof_inputs, (std::vector<std::string>{yaml1, yaml2}));
  // The flagged header has no MemProf section to speak of: it stays an IR-PGO input only,
  // and its flag is seen.
  EXPECT_TRUE(route.memprof_flag_seen);
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0].path, raw);
  EXPECT_EQ(inputs[0].weight, 2u);
  EXPECT_EQ(inputs[1].path, text);
  EXPECT_EQ(inputs[2].path, flagged);

  std::vector<WeightedPath> plain = {{raw, 1}, {text, 1}};
  const MemProfRoute none = route_memprof_inputs(plain);
  EXPECT_TRUE(none.memprof_inputs.empty());
  EXPECT_FALSE(none.memprof_flag_seen);
  EXPECT_EQ(plain.size(), 2u);
}

}  // namespace
}  // namespace profkit
