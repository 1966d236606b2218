// Property: reading any text as a perf script (against a small synthetic binary) never
// crashes, hangs or reads past its input; the counts it yields, written as an unsymbolized
// profile, read back to the same counts; and any text read as an unsymbolized profile is
// either refused or read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "profgen/counter.h"
#include "profgen/perf_script.h"

namespace {

const profkit::profgen::ProfiledBinary& binary() {
  using profkit::profgen::SyntheticBinary;
  static const auto b = [] {
    SyntheticBinary d;
    d.path = "/x/prog";
    // 0x1000..0x1040: main (a loop with a call), 0x1040..0x1060: leaf (returns).
    for (uint64_t a = 0x1000; a < 0x1060; a += 4) {
      uint8_t cls = 0;
      if (a == 0x1010) cls = profkit::profgen::kInsnCall | profkit::profgen::kInsnUncond;
      if (a == 0x1020) cls = profkit::profgen::kInsnBranch;
      if (a == 0x1030) cls = profkit::profgen::kInsnBranch | profkit::profgen::kInsnUncond;
      if (a == 0x105c) cls = profkit::profgen::kInsnReturn | profkit::profgen::kInsnUncond;
      d.instructions.push_back({a, 4, cls});
    }
    d.functions.push_back({"main", 0x1000, 0x1040});
    d.functions.push_back({"leaf", 0x1040, 0x1060});
    return profkit::profgen::ProfiledBinary::synthetic(d);
  }();
  return *b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::profgen;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const LineSink quiet = [](std::string_view) {};
  ScriptOptions options;
  options.ignore_stack_samples = size > 0 && (data[0] & 1);
  ContextCounter c{"", {}};
  RangeChecks checks;
  auto kind = detect_script_kind(text);
  if (!kind) return 0;
  auto script = read_perf_script(
      text, *kind, binary(), options, quiet, quiet,
      [&](const std::vector<AggregatedSample>& samples, const std::vector<bool>&) {
        checks.add(samples);
        add_lbr_samples(samples, binary(), c.counter);
      });
  if (script) {
    checks.warn(binary(), quiet);
    const std::string raw = write_unsymbolized({c}, false, binary(), OffsetBase::preferred_base);
    auto back = read_unsymbolized(raw, binary(), OffsetBase::preferred_base);
    if (!back) abort();
    SampleCounter merged;
    for (const auto& cc : back->counters) {
      for (const auto& [k, v] : cc.counter.ranges) merged.ranges[k] += v;
      for (const auto& [k, v] : cc.counter.branches) merged.branches[k] += v;
    }
    // Equal up to zero-count entries (a zero repeat count records zero-count branches).
    if (merged.ranges != c.counter.ranges || merged.branches != c.counter.branches) abort();
  }
  (void)read_unsymbolized(text, binary(), OffsetBase::preferred_base);
  return 0;
}
