// Reading the two files of a supplement and running it (see supplement.h).
#include "io/supplement.h"

#include "io/profile_merge.h"
#include "io/sample_merge.h"

namespace profkit {

Expected<SupplementedProfile> supplement_instr_file(
    const std::string& instr_path, const std::string& sample_path,
    const instrprof::SupplementOptions& options,
    const std::function<void(std::string_view)>& warn, std::string* failed_path) {
  // llvm-profdata reads the sample profile first: its errors come before the input's.
  auto samples = read_sample_file(sample_path);
  if (!samples) {
    *failed_path = sample_path;
    return Unexpected{std::move(samples).error()};
  }
  FileMergeOptions merge;
  // llvm-profdata loads the input into a writer that keeps no temporal traces.
  merge.merge.trace_reservoir_size = 0;
  merge.merge.max_trace_length = 0;
  merge.threads = 1;
  const WeightedPath input{instr_path, 1};
  auto merged = merge_profile_files(
      std::span<const WeightedPath>(&input, 1), merge,
      [&](std::string_view source, std::string_view message) {
        if (warn) warn(std::string(source) + ": " + std::string(message));
      },
      failed_path);
  if (!merged) {
    if (failed_path->empty()) *failed_path = instr_path;
    return Unexpected{std::move(merged).error()};
  }
  SupplementedProfile out;
  out.profile = merged->finish(&out.name_refs);
  auto adjusted = instrprof::supplement_with_samples(out.profile, *samples, options, warn);
  if (!adjusted) {
    *failed_path = sample_path;
    return Unexpected{std::move(adjusted).error()};
  }
  return out;
}

}  // namespace profkit
