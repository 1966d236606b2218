// Profile correlation: the data records and names that a "correlated" raw profile leaves in
// the instrumented binary (clang -mllvm -profile-correlate=binary|debug-info). Such a raw
// file carries only counters; the records come from here and the raw reader reads each
// record's counters at its offset inside the file's counter section.
// See docs/irpgo-merge.md ("Correlated raw profiles").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/bytes/expected.h"

namespace profkit::instrprof {

// The ELF sections behind correlation. The counter section is allocated (the program writes
// its counters there); with -profile-correlate=binary the data records and names move out of
// the loaded image into two non-allocated sections the linker keeps in the file.
inline constexpr std::string_view kCountersSection = "__llvm_prf_cnts";
inline constexpr std::string_view kCorrelatedDataSection = "__llvm_covdata";
inline constexpr std::string_view kCorrelatedNamesSection = "__llvm_covnames";

// One function's record, as a raw data record would hold it, except that counter_offset is
// relative to the start of the counter section (the same in the binary and in the raw file,
// which holds a copy of the section).
struct CorrelatedFunction {
  uint64_t name_ref = 0;        // MD5 of the PGO name
  uint64_t hash = 0;            // CFG hash
  uint64_t counter_offset = 0;  // bytes from the counter section's start
  uint64_t function_ptr = 0;    // link-time address of the function (0: unknown)
  uint32_t num_counters = 0;
};

struct Correlation {
  // In the order LLVM builds them (data section order, or DWARF DIE order), one per counter
  // offset: a later record whose counters start where an earlier one's do is dropped.
  std::vector<CorrelatedFunction> functions;
  // The names, encoded as a raw profile's names section (docs/formats/irpgo.md 1.11).
  std::string names_blob;
};

// Correlation warnings count against a limit as llvm-profdata's
// --max-debug-info-correlation-warnings does: 0 means no limit; otherwise the first `limit`
// are reported and the rest only counted (suppressed()).
class CorrelationWarnings {
 public:
  using Sink = std::function<void(std::string_view message)>;
  CorrelationWarnings(unsigned limit, Sink sink) : limit_(limit), sink_(std::move(sink)) {}
  void warn(std::string_view message) {
    ++count_;
    if (limit_ == 0 || count_ <= limit_) {
      if (sink_) sink_(message);
    }
  }
  // Warnings counted but not reported.
  uint64_t suppressed() const { return limit_ == 0 || count_ <= limit_ ? 0 : count_ - limit_; }
  // Reports how many warnings were suppressed, if any (once, after correlating).
  void finish() {
    if (suppressed() > 0 && sink_)
      sink_("suppressed " + std::to_string(suppressed()) + " additional warnings");
  }

 private:
  unsigned limit_;
  Sink sink_;
  uint64_t count_ = 0;
};

// Builds a Correlation from the data records and names an ELF64 file keeps in
// __llvm_covdata / __llvm_covnames (-profile-correlate=binary), with counter offsets taken
// relative to __llvm_prf_cnts. A record whose counter pointer falls outside that section is
// kept (as LLVM keeps it) after a warning; reading its counters then fails.
Expected<Correlation> correlate_binary(Bytes elf_file, CorrelationWarnings& warnings);

// Appends a function to `c` unless one with the same counter offset is already there
// (`seen_offsets` holds the offsets added so far).
void add_correlated_function(Correlation& c, const CorrelatedFunction& f,
                             std::unordered_set<uint64_t>& seen_offsets);

// Encodes names as one uncompressed names-section blob.
std::string encode_names_blob(const std::vector<std::string>& names);

}  // namespace profkit::instrprof
