// Branch samples turned into counts (docs/profgen.md, "Counting"): how often each
// straight-line address range ran and each branch was taken. The unsymbolized profile
// (`--skip-symbolization`) is these counts written out; it can be read back instead of a
// perf script.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/bytes/expected.h"
#include "profgen/binary.h"
#include "profgen/perf_script.h"

namespace profkit::profgen {

// [start, end] (both instruction addresses, end inclusive) -> count; and source -> target.
using RangeCounts = std::map<std::pair<uint64_t, uint64_t>, uint64_t>;

struct SampleCounter {
  RangeCounts ranges;
  RangeCounts branches;
};

// Adds to `functions` (indices into binary.functions()) the function holding `address`, if
// any: llvm-profgen counts a function as profiled when it holds a range start, either end of
// a branch, or a context address.
void note_profiled_address(const ProfiledBinary& binary, uint64_t address,
                           std::set<uint32_t>& functions);
// The same for every range start and branch end of `c`.
void note_profiled_functions(const ProfiledBinary& binary, const SampleCounter& c,
                             std::set<uint32_t>& functions);

// A counter per calling context. Context-insensitive profiles have one, keyed "".
struct ContextCounter {
  std::string context;  // as the unsymbolized profile prints it, without brackets
  SampleCounter counter;
};

// Adds the counts of LBR samples without contexts: every branch whose target is in the
// binary, and every range between a branch target and the next (newer) branch source that
// is straight-line code. The newest range of each sample (up to the sampled IP) is not
// counted: its end is unknown.
void add_lbr_samples(const std::vector<AggregatedSample>& samples, const ProfiledBinary& binary,
                     SampleCounter& into);

// llvm-profgen's checks of the ranges in the samples (warnings only; "No samples in perf
// script!" when there is none), over batches of samples.
class RangeChecks {
 public:
  void add(const std::vector<AggregatedSample>& samples);
  void warn(const ProfiledBinary& binary, const LineSink& warn) const;

 private:
  // (start, end) -> count in an open-addressing table (one probe per range of every sample,
  // no node per range); the checks only sum over it, in any order.
  struct Slot {
    uint64_t start = 0, end = 0, count = 0;
    bool used = false;
  };
  void add(uint64_t start, uint64_t end, uint64_t count);
  void grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// Where unsymbolized addresses are counted from.
enum class OffsetBase { preferred_base, first_loadable, absolute };
// The address `base` stands for in `binary` (what unsymbolized addresses are relative to).
uint64_t offset_origin(const ProfiledBinary& binary, OffsetBase base);

// The unsymbolized profile: per context (sorted by its text; a "[...]" line only when
// `context_sensitive`), the ranges then the branches, each list preceded by its length.
std::string write_unsymbolized(const std::vector<ContextCounter>& counters,
                               bool context_sensitive, const ProfiledBinary& binary,
                               OffsetBase base);

struct UnsymbolizedProfile {
  bool context_sensitive = false;
  std::vector<ContextCounter> counters;  // in file order; equal contexts merged
};

// Reads what write_unsymbolized wrote. Errors name the line ("Invalid raw profile at line
// N: LINE") and its byte offset.
Expected<UnsymbolizedProfile> read_unsymbolized(std::string_view text,
                                                const ProfiledBinary& binary, OffsetBase base);

}  // namespace profkit::profgen
