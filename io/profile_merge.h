// Merging IR-PGO profile files as `profkit merge` does, for the command and for any other
// caller (the fleet merger runs the command on its shards): inputs are read in order, raw
// ones decoded straight into the merge; contiguous chunks go to worker threads, and the
// merge is redone on one thread whenever the grouping could change the result, so the
// output never depends on the thread count.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "format/bytes/expected.h"
#include "format/instrprof/correlation.h"
#include "format/instrprof/merge.h"

namespace profkit {

struct WeightedPath {
  std::string path;
  uint64_t weight = 1;
};

struct FileMergeOptions {
  instrprof::MergeOptions merge;
  unsigned threads = 0;  // 0: min(hardware threads, (inputs + 1) / 2), as llvm-profdata
  bool fail_any = true;  // false (--failure-mode=all|warn): unreadable inputs are skipped
  bool fail_all = true;  // false (--failure-mode=warn): even when every input was skipped
  // --binary-file / --debug-info: raw inputs are read as correlated (counters only) with
  // these records and names. Must outlive the merge; nullptr reads raw inputs as they are.
  const instrprof::Correlation* correlation = nullptr;
};

// Gets every warning: `source` is the input it concerns, `message` one line.
using FileMergeWarning = std::function<void(std::string_view source, std::string_view message)>;

// One whole IR-PGO profile file (raw, indexed or text), for the commands that read one
// (show, overlap). An empty file is an error here, as it is for llvm-profdata show.
Expected<instrprof::Profile> read_instrprof_file(const std::string& path);

// Merges `inputs` in order. On error, `failed_path` names the input that failed (empty when
// no single input did: every input was skipped). Empty inputs are skipped silently, as
// llvm-profdata does.
Expected<instrprof::Merger> merge_profile_files(std::span<const WeightedPath> inputs,
                                                const FileMergeOptions& options,
                                                const FileMergeWarning& warn,
                                                std::string* failed_path);

}  // namespace profkit
