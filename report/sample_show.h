// `show --sample`: renders a sample profile as the text `llvm-profdata-22 show --sample`
// prints for the same file and flags (docs/formats/sampleprof.md section 8). Never prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/sampleprof/profile.h"

namespace profkit::report {

struct SampleShowOptions {
  std::string function;          // --function: only this profile (exact name)
  bool all_functions = false;    // --all-functions: every profile even with --function
  uint32_t topn = 0;             // --topn: the N hottest functions (after the dump)
  bool hot_func_list = false;    // --hot-func-list
  bool detailed_summary = false; // --detailed-summary
  bool show_prof_sym_list = false;
  bool json = false;             // --show-format=json / --json
};

// The output; `error` is set (and the text empty) for option combinations llvm-profdata
// refuses (JSON with --function).
std::string show_sample(const sampleprof::Profile& profile, const SampleShowOptions& options,
                        std::string* error);

// `--show-sec-info-only` for an extbinary profile's section table.
std::string show_sample_sections(const std::vector<sampleprof::SectionHeader>& sections);

}  // namespace profkit::report
