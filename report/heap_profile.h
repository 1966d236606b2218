// The heap-report model: every allocation context of a memprof profile with its symbolized
// chain (function, file:line, inlined frames marked), its MIB, derived metrics and the
// cold / not-cold / hot verdict clang 22 would give it with LLVM's default thresholds
// (docs/formats/memprof.md G.2). Built from raw profiles (ours and compiler-rt's, symbolized with
// the given binaries), YAML and indexed memprof profiles. Every report view reads this:
// the terminal table and JSON (`profkit report`), `profkit diff`, the HTML report, the
// pprof and DHAT exports.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "format/memprof/raw_layout.h"
#include "format/memprof/records.h"

namespace profkit::report {

// One source-level frame of an allocation context.
struct HeapFrame {
  std::string function;       // demangled name for people ("0x<guid>" when unknown)
  std::string linkage_name;   // canonical linkage name (empty when unknown)
  uint64_t guid = 0;          // memprof function GUID (records.h function_guid)
  std::string file;           // source file as DWARF names it; empty when unknown
  uint32_t line = 0;          // absolute line; 0 when unknown
  uint32_t column = 0;
  uint32_t line_offset = 0;   // line - the function's DW_AT_decl_line (what memprof stores)
  bool inlined = false;       // this frame was inlined into the next (its caller) frame
  uint64_t pc = 0;            // the raw PC it came from (raw inputs; 0 otherwise)
  friend bool operator==(const HeapFrame&, const HeapFrame&) = default;
};

enum class Verdict { not_cold, cold, hot };
std::string_view verdict_name(Verdict verdict);  // "notcold", "cold", "hot" (as clang's IR)

// Lifetimes are reported in one unit everywhere, seconds (the unit of clang's cold
// threshold), in text, JSON and HTML alike: "250 s", "0.002 s", "0 s". The MIB stores
// milliseconds; `ms` is converted here. (The DHAT export uses microseconds: its format says so.)
std::string lifetime_text(double ms);

// One allocation context (one MIB after merging).
struct HeapContext {
  uint64_t id = 0;                 // stable across runs and inputs: memprof's CallStackId
                                   // (C.3) of the frames (function GUID, line offset,
                                   // column, inline flag), leaf first; see context_id()
  std::vector<HeapFrame> frames;   // leaf (allocation call) first
  memprof::MemInfoBlock mib;
  std::vector<uint64_t> histogram; // access histogram (histogram-mode raw profiles)
  Verdict verdict = Verdict::not_cold;
  std::string why;                 // one line: the thresholds the verdict rests on
  // profkit's runtime only (HeapProfile::live_peak): blocks and bytes live when the profile
  // was written (at exit: leaked) and at the heap's peak.
  uint64_t live_blocks = 0, live_bytes = 0;
  uint64_t peak_blocks = 0, peak_bytes = 0;

  // Derived metrics (0 when AllocCount is 0).
  double avg_size() const;         // TotalSize / AllocCount
  double avg_lifetime_ms() const;  // TotalLifetime / AllocCount
  double avg_lifetime_s() const { return avg_lifetime_ms() / 1000; }
  double avg_accesses() const;     // TotalAccessCount / AllocCount
  // Accesses per byte per second as clang compares it: TotalLifetimeAccessDensity /
  // AllocCount / 100 (docs/formats/memprof.md G.2).
  double lifetime_access_density() const;
};

struct HeapSummary {
  uint64_t contexts = 0;
  uint64_t allocations = 0;        // Σ AllocCount
  uint64_t bytes = 0;              // Σ TotalSize
  uint64_t accesses = 0;           // Σ TotalAccessCount
  uint64_t cold_contexts = 0, hot_contexts = 0, not_cold_contexts = 0;
  uint64_t cold_bytes = 0, hot_bytes = 0, not_cold_bytes = 0;
};

// Live and peak data (profkit's runtime writes it into raw profiles: docs/formats/profkit-heap.md).
struct LivePeakSummary {
  bool present = false;            // false: compiler-rt's raw profiles, YAML, indexed
  bool at_exit = false;            // written at exit, so live = leaked
  uint64_t dump_time_ms = 0, peak_time_ms = 0;  // MIB timestamp clock
  uint64_t live_bytes = 0, live_blocks = 0;     // every context's, symbolized or not
  uint64_t peak_bytes = 0, peak_blocks = 0;
};

struct HeapProfile {
  std::string path;                // the input, for headers and errors
  std::string kind;                // "raw v5", "yaml", "indexed v3", ...
  std::vector<HeapContext> contexts;
  HeapSummary summary;
  // MIB fields the input does not store (indexed profiles keep only their schema's
  // fields; the others read as 0), by their LLVM names.
  std::vector<std::string> absent_fields;
  // What could not be symbolized (raw inputs): dropped contexts and their allocations.
  uint64_t dropped_contexts = 0, dropped_allocations = 0;
  LivePeakSummary live_peak;
  // The binaries read to symbolize or name the contexts (given, found beside the profile or
  // under a given directory): inputs, which no output may overwrite.
  std::vector<std::string> binaries;
};

struct HeapLoadOptions {
  std::vector<std::string> binaries;        // --profiled-binary (files or directories)
  memprof::ClassifyOptions thresholds;      // LLVM 22's defaults unless changed
  // Called with (done, total) during long steps (symbolizing, merging); may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // When set, receives the file an error is about: the profile, or a binary that could not
  // be used (what `profkit show` prints before the offset).
  std::string* failed_path = nullptr;
};

// Loads a raw, YAML or indexed memprof profile. Errors name the file and byte offset.
Expected<HeapProfile> load_heap_profile(const std::string& path, const HeapLoadOptions& options);

// Several profiles as one (the processes of one `profkit run`, runs of one program):
// contexts with the same frames merged (MIBs by mib_fields.def's rules, histograms, live and
// peak data summed), classified again. The live/peak data is kept only when every profile
// has it; the peak is then the sum of each profile's own peak. `path` lists the inputs.
HeapProfile merge_heap_profiles(std::vector<HeapProfile> profiles,
                                const memprof::ClassifyOptions& thresholds);

// The stable id of a chain of frames (memprof::call_stack_id of their GUIDs, line offsets,
// columns and inline flags): the same source context gets the same id whatever the input
// kind, and across rebuilds that do not move lines inside the functions on the chain.
uint64_t context_id(const std::vector<HeapFrame>& frames);

// Whether the profile counts accesses. An allocation-only profile (as `profkit run` records:
// TotalAccessCount and TotalLifetimeAccessDensity 0 everywhere) has none, and a verdict
// would only restate the lifetime test as if accesses had been measured: every view then
// says the counts are missing (kNoAccessCounts) and shows no verdict. An indexed profile's
// default schema stores no TotalAccessCount, only the density: that is measured too.
inline bool has_access_counts(const HeapProfile& profile) {
  if (profile.summary.accesses != 0) return true;
  for (const HeapContext& c : profile.contexts)
    if (c.mib.TotalAccessCount != 0 || c.mib.TotalLifetimeAccessDensity != 0) return true;
  return false;
}
inline constexpr std::string_view kNoAccessCounts =
    "no access counts in this profile (allocations only, as `profkit run` records): no "
    "hot/cold verdict";

// Recomputes verdicts, `why` and the summary (after changing thresholds or contexts).
void classify_contexts(HeapProfile& profile, const memprof::ClassifyOptions& thresholds);

// live: bytes live when the profile was written (leaks, at exit); peak: bytes at the peak.
enum class SortKey { bytes, count, accesses, density, lifetime, live, peak };
// Parses "bytes|count|accesses|density|lifetime|live|peak".
bool parse_sort_key(std::string_view text, SortKey& key);
// Contexts ordered by the key, largest first; ties broken by id so output is deterministic.
std::vector<const HeapContext*> sorted_contexts(const HeapProfile& profile, SortKey key);

}  // namespace profkit::report
