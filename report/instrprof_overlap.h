// `overlap BASE TEST` for IR-PGO profiles: how much of TEST's counts BASE predicts, the
// report `llvm-profdata-22 overlap` prints (same numbers, same text), or the same figures
// as JSON. docs/irpgo-overlap.md says how each number is computed.
//
// Overlap of one counter: the smaller of its two shares, base count / base total and test
// count / test total, summed over the counters both profiles have. 100% means the two
// profiles distribute their counts identically. Value sites (indirect-call targets, memop
// sizes, vtables) are scored the same way, per target value, against each kind's total.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"

namespace profkit::report {

struct InstrOverlapOptions {
  std::string base_name;                 // as printed ("base_profile: NAME")
  std::string test_name;
  std::string function;                  // --function: list functions whose name contains it
  uint64_t value_cutoff = ~uint64_t{0};  // --value-cutoff: list functions with max count >= this
  bool cs = false;                       // --cs: program totals over context-sensitive records
};

// Totals of one side, or shares (overlap, mismatch, only-in-test) in [0, 1].
struct OverlapSums {
  uint64_t entries = 0;  // functions (program level) or counters (function level)
  double counts = 0;     // edge counters
  std::array<double, instrprof::kNumValueKinds> values{};  // per value kind
};

struct OverlapFigures {
  OverlapSums base, test, overlap, mismatch, unique;
  std::string name;   // function level: the function and its hash
  uint64_t hash = 0;
};

struct InstrOverlap {
  // Set when one profile's edge counts sum to zero: the report is then only the line
  // naming it (llvm-profdata stops there, with exit status 0).
  std::string zero_sum_profile;
  OverlapFigures program;
  std::vector<OverlapFigures> functions;  // those selected by --function / --value-cutoff
};

// Compares TEST with BASE record by record, in TEST's storage order. Fails only where
// merging BASE alone would (e.g. an implausible temporal-trace stream claim).
Expected<InstrOverlap> overlap_instr(const instrprof::Profile& base,
                                     const instrprof::Profile& test,
                                     const InstrOverlapOptions& options);

// llvm-profdata-22's text.
std::string render_overlap_text(const InstrOverlap& overlap, const InstrOverlapOptions& options);
// The same figures as one JSON document (shares as fractions, not percentages).
std::string render_overlap_json(const InstrOverlap& overlap, const InstrOverlapOptions& options);

}  // namespace profkit::report
