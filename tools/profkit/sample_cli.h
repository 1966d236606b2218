// Sample-profile parts of `profkit merge --sample`, `show --sample`: option values in,
// exit status out, errors printed as `FILE:OFFSET: error: MESSAGE (code)`.
#pragma once

#include <string>
#include <vector>

#include "io/profile_merge.h"
#include "report/sample_show.h"

namespace profkit::cli {

struct SampleMergeOptions {
  std::string format = "extbinary";  // --text, --binary, --extbinary
  bool use_md5 = false;
  bool compress_all_sections = false;
  bool gen_partial_profile = false;
  bool split_layout = false;
  std::string prof_sym_list;         // file, one symbol per line
  bool drop_profile_symbol_list = false;
  std::string convert_layout;        // --convert-sample-profile-layout=nest|flat
  bool merged_base_profiles = false; // --generate-merged-base-profiles (with nest)
  bool write_vtables = false;        // --extbinary-write-vtable-type-prof
  std::string function;              // --function=REGEX: keep only matching profiles
  std::string no_function;           // --no-function=REGEX: drop matching profiles
};

int run_sample_merge(const std::vector<WeightedPath>& inputs, const std::string& output,
                     bool fail_any, const SampleMergeOptions& options);

struct SampleShowCliOptions {
  report::SampleShowOptions show;
  bool show_sec_info_only = false;
};

int run_sample_show(const std::string& input, const std::string& output,
                    const SampleShowCliOptions& options);

}  // namespace profkit::cli
