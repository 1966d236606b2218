// Correcting an IR-PGO profile with a sample profile of the same program, as
// `llvm-profdata merge --supplement-instr-with-sample` does (LLVM 22): a function that the
// instrumented run barely executed but the sampled run found warm or hot gets its counters
// scaled up above the instrumentation profile's thresholds, or, when its counters say too
// little (all or mostly zero), a pseudo count in Counts[0] (kPseudoHot / kPseudoWarm).
// docs/irpgo-merge.md ("Supplementing with a sample profile") states the rules.
//
// Pipeline:
//   instr records --(names with one record)--> entries (max count, zero ratio, size)
//                 \-> static names: "file.c;f" -> "f" (or "f.__uniq.N", see below)
//   sample profiles --flatten (inlinees folded into their instr function)--> name ->
//                     (entry samples, max body samples)
//   summaries (instr: every record; sample: as read) -> hot/cold thresholds
//   each flattened function warm in samples, cold and large enough in instr -> adjusted
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"
#include "format/sampleprof/profile.h"

namespace profkit::instrprof {

struct SupplementOptions {
  // --suppl-min-size-threshold: functions with fewer counters are left alone (the early
  // inliner is expected to inline them anyway).
  uint64_t min_size = 10;
  // --zero-counter-threshold: above this share of zero counters the counts are replaced by
  // a pseudo count instead of being scaled. A float, compared as LLVM compares it.
  float zero_counter_threshold = 0.7f;
  // --instr-prof-cold-threshold: the instr cold threshold; 0 takes it from the summary.
  uint64_t cold_threshold = 0;
};

// The suffix -funique-internal-linkage-symbols gives the static functions of `file`:
// ".__uniq." and the MD5 digest of the file name read as a 128-bit big-endian number, in
// decimal.
std::string unique_linkage_suffix(std::string_view file);

// Adjusts `instr` in place with `samples`. `warn` gets each warning as LLVM words it
// (without the "warning: " prefix), in LLVM's order. Fails only when the sample profile's
// stored summary has no cutoff at or above the ones the thresholds need.
Expected<void> supplement_with_samples(Profile& instr, const sampleprof::Profile& samples,
                                       const SupplementOptions& options,
                                       const std::function<void(std::string_view)>& warn);

}  // namespace profkit::instrprof
