// Merging sample profile files as `profkit merge --sample` does, for the command and any
// other caller: each input is mapped, read whole (any encoding) and merged in order with
// its weight (format/sampleprof/merge.h has the rules).
#pragma once

#include <span>
#include <string>

#include "format/bytes/expected.h"
#include "format/sampleprof/profile.h"
#include "io/profile_merge.h"

namespace profkit {

// Merges `inputs` in order. `fail_any` false (--failure-mode=all): unreadable inputs are
// skipped with a warning. On error, `failed_path` names the input that failed (empty when
// the error concerns the inputs together, e.g. CS and non-CS profiles mixed). Warnings
// about single profiles come as (input path, "CONTEXT: MESSAGE").
Expected<sampleprof::Profile> merge_sample_files(std::span<const WeightedPath> inputs,
                                                 bool fail_any, const FileMergeWarning& warn,
                                                 std::string* failed_path);

// Reads one sample profile file (kept mapped for as long as the profile lives).
Expected<sampleprof::Profile> read_sample_file(const std::string& path);

}  // namespace profkit
