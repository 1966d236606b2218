// `overlap --sample BASE TEST`: how similar two sample profiles are, as the report
// `llvm-profdata-22 overlap --sample` prints (same numbers, same text).
//
// Similarity of two functions: per line (and per inlined callee, recursively), one minus the
// distance between the line's share of the function's samples in the two profiles, summed
// into a function-internal similarity in [0, 1], then scaled by how close the function's
// share of all samples is in the two. The program similarity weighs each function's
// similarity by its mean share. Hot lines and functions use each profile's 99% threshold.
#pragma once

#include <cstdint>
#include <string>

#include "format/bytes/expected.h"
#include "format/sampleprof/profile.h"

namespace profkit::report {

struct SampleOverlapOptions {
  std::string base_name;                     // as printed ("base_profile: NAME")
  std::string test_name;
  std::string function;                      // --function: list functions whose base context contains it
  uint64_t value_cutoff = ~uint64_t{0};      // --value-cutoff: list functions with max sample >= this
  uint64_t similarity_cutoff = 0;            // --similarity-cutoff: list below this (ppm)
};

// The report. Fails (as llvm-profdata does) for profiles of different kinds or a summary
// without a 99% cutoff entry.
Expected<std::string> overlap_sample(const sampleprof::Profile& base,
                                     const sampleprof::Profile& test,
                                     const SampleOverlapOptions& options);

}  // namespace profkit::report
