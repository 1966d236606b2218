// pprof export: decoded by tools that are not ours (gzip, protoc against pprof's schema, and
// pprof itself) and checked against the hand-built profile's totals and chains.
#include "report/pprof_export.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "profile.pb.h"
#include "report/testing/browser.h"
#include "report/testing/sample_heap_profile.h"

namespace profkit::report {
namespace {

// Debian's golang-1.19-go ships pprof as a Go tool binary.
constexpr const char* kPprof = "/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof";

std::string run(const std::string& command, int* status = nullptr) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int rc = pclose(pipe);
  if (status != nullptr) *status = rc;
  return out;
}


// protoc's text format of the gzipped output, decoded with pprof's schema.
std::string protoc_decode(const std::string& gz_path) {
  const std::string proto_dir =
      std::string(PROFKIT_PPROF_PROTO).substr(0, std::string(PROFKIT_PPROF_PROTO).rfind('/'));
  int status = -1;
  std::string text = run("gzip -dc '" + gz_path + "' | " + PROFKIT_PROTOC + " -I " + proto_dir +
                             " --decode=perftools.profiles.Profile " + PROFKIT_PPROF_PROTO,
                         &status);
  EXPECT_EQ(status, 0) << text;
  return text;
}

// Per sample, the `value:` lines of protoc's text output, and the string table.
struct Decoded {
  std::vector<std::vector<long long>> samples;
  std::vector<std::string> strings;
  std::vector<std::pair<long long, long long>> sample_types;  // (type, unit) string indices
};

Decoded parse_text(const std::string& text) {
  Decoded d;
  std::istringstream in(text);
  std::string line, block;
  long long type = 0, unit = 0;
  while (std::getline(in, line)) {
    if (line == "sample {") { block = "sample"; d.samples.emplace_back(); continue; }
    if (line == "sample_type {") { block = "sample_type"; type = unit = 0; continue; }
    if (line == "}") {
      if (block == "sample_type") d.sample_types.emplace_back(type, unit);
      block.clear();
      continue;
    }
    if (line.rfind("string_table: \"", 0) == 0) {
      d.strings.push_back(line.substr(15, line.size() - 16));
      continue;
    }
    if (block == "sample" && line.rfind("  value: ", 0) == 0)
      d.samples.back().push_back(std::stoll(line.substr(9)));
    if (block == "sample_type" && line.rfind("  type: ", 0) == 0) type = std::stoll(line.substr(8));
    if (block == "sample_type" && line.rfind("  unit: ", 0) == 0) unit = std::stoll(line.substr(8));
  }
  return d;
}

TEST(PprofExport, ProtocDecodesTotalsEqualToTheProfile) {
  const HeapProfile profile = testing::sample_heap_profile();
  const std::string path = testing::write_temp_file("sample.pb.gz", pprof_profile_gz(profile));
  const Decoded d = parse_text(protoc_decode(path));

  ASSERT_EQ(d.sample_types.size(), 4u);
  ASSERT_FALSE(d.strings.empty());
  EXPECT_EQ(d.strings[0], "");  // pprof requires string_table[0] == ""
  const std::vector<std::pair<std::string, std::string>> expected_types = {
      {"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"accesses", "count"},
      {"lifetime", "milliseconds"}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(d.strings.at(d.sample_types[i].first), expected_types[i].first);
    EXPECT_EQ(d.strings.at(d.sample_types[i].second), expected_types[i].second);
  }

  ASSERT_EQ(d.samples.size(), profile.contexts.size());
  std::vector<long long> totals(4, 0);
  for (const auto& values : d.samples) {
    ASSERT_EQ(values.size(), 4u);
    for (size_t i = 0; i < 4; ++i) totals[i] += values[i];
  }
  uint64_t lifetime = 0;
  for (const HeapContext& c : profile.contexts) lifetime += c.mib.TotalLifetime;
  EXPECT_EQ(totals[0], static_cast<long long>(profile.summary.allocations));
  EXPECT_EQ(totals[1], static_cast<long long>(profile.summary.bytes));
  EXPECT_EQ(totals[2], static_cast<long long>(profile.summary.accesses));
  EXPECT_EQ(totals[3], static_cast<long long>(lifetime));
}

TEST(PprofExport, InlinedFramesShareOneLocationInnermostFirst) {
  const HeapProfile profile = testing::sample_heap_profile();
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(pprof_profile_proto(profile)));
  auto function_name = [&](uint64_t id) {
    for (const auto& f : p.function())
      if (f.id() == id) return p.string_table(f.name());
    return std::string("?");
  };
  auto location = [&](uint64_t id) -> const perftools::profiles::Location& {
    for (const auto& l : p.location())
      if (l.id() == id) return l;
    ADD_FAILURE() << "no location " << id;
    return p.location(0);
  };
  // Context 1: make_buffer inlined into Parser::load, called from main: two locations.
  const auto& s = p.sample(0);
  ASSERT_EQ(s.location_id_size(), 2);
  const auto& leaf = location(s.location_id(0));
  ASSERT_EQ(leaf.line_size(), 2);
  EXPECT_EQ(function_name(leaf.line(0).function_id()), "make_buffer(unsigned long)");
  EXPECT_EQ(leaf.line(0).line(), 12);
  EXPECT_EQ(function_name(leaf.line(1).function_id()), "Parser::load()");
  EXPECT_EQ(leaf.line(1).line(), 40);
  EXPECT_EQ(leaf.address(), 0x401200u);
  const auto& caller = location(s.location_id(1));
  ASSERT_EQ(caller.line_size(), 1);
  EXPECT_EQ(function_name(caller.line(0).function_id()), "main");
  // main at line 7 is one location shared by contexts 1 and 2; Parser::load one function.
  EXPECT_EQ(p.sample(1).location_id(1), s.location_id(1));
  int load_functions = 0;
  for (const auto& f : p.function()) load_functions += p.string_table(f.name()) == "Parser::load()";
  EXPECT_EQ(load_functions, 1);
  // Every function has its file; the linkage name is the system name.
  for (const auto& f : p.function()) {
    EXPECT_FALSE(p.string_table(f.filename()).empty());
    if (p.string_table(f.name()) == "Parser::load()") {
      EXPECT_EQ(p.string_table(f.system_name()), "_ZN6Parser4loadEv");
    }
  }
}

TEST(PprofExport, SamplesCarryTheVerdictAsALabel) {
  const HeapProfile profile = testing::sample_heap_profile();
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(pprof_profile_proto(profile)));
  ASSERT_EQ(p.sample_size(), 4);
  std::vector<std::string> hints;
  for (const auto& s : p.sample())
    for (const auto& l : s.label())
      if (p.string_table(l.key()) == "hint") hints.push_back(p.string_table(l.str()));
  EXPECT_EQ(hints, (std::vector<std::string>{"cold", "notcold", "hot", "notcold"}));
}

// pprof itself reads the file: its -top table lists the allocation sites with their flat
// bytes (context 3: cache_entry, 1 MiB), the total, and marks inlined frames.
TEST(PprofExport, PprofTopListsTheSites) {
  const HeapProfile profile = testing::sample_heap_profile();
  const std::string path = testing::write_temp_file("top.pb.gz", pprof_profile_gz(profile));
  int status = -1;
  const std::string top = run(std::string("HOME=") + PROFKIT_BINARY_DIR "/testwork/report_exports" + " " + kPprof +
                                  " -top -nodefraction=0 -unit=B -sample_index=alloc_space '" + path + "' 2>&1",
                              &status);
  ASSERT_EQ(status, 0) << top;
  EXPECT_NE(top.find("Type: alloc_space"), std::string::npos) << top;
  EXPECT_NE(top.find("of 1053612B total"), std::string::npos) << top;
  EXPECT_NE(top.find("1048576B"), std::string::npos) << top;  // cache_entry's flat bytes
  EXPECT_NE(top.find("cache_entry()"), std::string::npos) << top;
  EXPECT_NE(top.find("make_buffer(unsigned long) (inline)"), std::string::npos) << top;
  const std::string objects = run(std::string("HOME=") + PROFKIT_BINARY_DIR "/testwork/report_exports" + " " + kPprof +
                                      " -top -nodefraction=0 -sample_index=alloc_objects '" + path + "' 2>&1",
                                  &status);
  ASSERT_EQ(status, 0) << objects;
  // 18 allocations in all, of which push_back made 10.
  EXPECT_NE(objects.find("of 18 total"), std::string::npos) << objects;
  EXPECT_NE(objects.find("10 55.56%"), std::string::npos) << objects;
}

}  // namespace
}  // namespace profkit::report
