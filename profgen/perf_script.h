// Reading `perf script` text (docs/profgen.md, "Perf script input"): mmap events that place
// the binary, optional repeat counts, and samples, either LBR-only (`perf record -b`: an IP
// and a branch stack on one line) or hybrid (`perf record -b -g`: call-stack lines, then the
// branch stack). Addresses are translated to the binary's link-time addresses with the load
// address in force when the sample is read; addresses outside the binary's code become
// kExternalAddress. Identical samples are aggregated.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "profgen/binary.h"

namespace profkit::profgen {

struct LbrEntry {
  uint64_t source = 0;
  uint64_t target = 0;
  friend bool operator==(const LbrEntry&, const LbrEntry&) = default;
};

struct PerfSample {
  // Hybrid samples: the leaf (replaced by the newest branch target) then call instructions
  // of the callers, innermost first. Empty for LBR-only samples. IP-only samples: the
  // sampled IP then the callers' call instructions (kExternalAddress where outside).
  std::vector<uint64_t> stack;
  std::vector<LbrEntry> lbr;  // newest first
};

struct AggregatedSample {
  PerfSample sample;
  uint64_t count = 0;
};

// lbr_only: `perf record -b`; hybrid: `perf record -b -g`; ip_only: no branch stacks at all
// (`perf record -g` or plain sampling), which llvm-profgen refuses and profkit estimates
// from (profgen/ip_samples.h).
enum class ScriptKind { lbr_only, hybrid, ip_only };

struct ScriptOptions {
  std::optional<int64_t> pid;        // --pid: only this process's mmap events place the binary
  bool ignore_stack_samples = false; // hybrid samples are read as LBR-only ones
  bool show_mmap_events = false;     // print each parsed mmap event to `out`
  uint64_t batch_bytes = uint64_t{48} << 20;  // about how much a batch of samples may hold
};

struct ParsedScript {
  ScriptKind kind = ScriptKind::lbr_only;
  uint64_t total_samples = 0;   // samples read (before aggregation)
  uint64_t unique_samples = 0;  // distinct samples
  uint64_t leaf_external_frames = 0;
  std::vector<uint64_t> invalid_return_addresses;  // distinct, truncated stacks
};

// Receives the samples in batches: identical samples aggregated within a batch (in order of
// first appearance), `first[i]` false when samples[i] was in an earlier batch already (its
// statistics are counted; its counts still are to be added). Batches keep memory bounded on
// scripts of any size; everything made from them is a sum over samples, so the batching
// does not change results.
using BatchSink = std::function<void(const std::vector<AggregatedSample>& samples,
                                     const std::vector<bool>& first)>;

// A PERF_RECORD_MMAP2 / PERF_RECORD_MMAP line, matched as llvm-profgen's patterns match it
// (by hand: a regular-expression engine recurses per character on hostile long lines).
struct MmapEvent {
  int64_t pid = 0;
  uint64_t address = 0, size = 0, offset = 0;
  std::string_view path;
};
bool parse_mmap_event(std::string_view line, MmapEvent& e);

// What kind of script `text` is, as llvm-profgen decides it before reading; a script with
// no branch stack is ip_only when it has sample addresses. Fails with "Invalid perf script
// input!" when it has neither.
Expected<ScriptKind> detect_script_kind(std::string_view text);

// Reads a whole script of the kind detect_script_kind found, handing its samples to `sink`. `warn` gets llvm-profgen's warnings
// (mmap lines it cannot parse, invalid branch records, the missing-mmap notice), `out` the
// --show-mmap-events lines. Addresses are translated with the load address the script's
// mmap events give `binary`. `consumed(n)`: the first n bytes of `text` are no longer
// needed (a caller may drop them from memory).
Expected<ParsedScript> read_perf_script(std::string_view text, ScriptKind kind,
                                        const ProfiledBinary& binary,
                                        const ScriptOptions& options, const LineSink& warn,
                                        const LineSink& out, const BatchSink& sink,
                                        const std::function<void(uint64_t)>& consumed = {});

}  // namespace profkit::profgen
