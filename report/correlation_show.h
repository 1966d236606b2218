// What `llvm-profdata show --debug-info=BIN` prints: the probes found in a binary's DWARF
// as YAML (--show-format=yaml), or their count and, with --show-prof-sym-list, their names.
#pragma once

#include <string>
#include <vector>

#include "symbolize/profile_correlation.h"

namespace profkit::report {

// "---\nProbes:\n  - Function Name: ...\n...\n", keys padded and scalars quoted as LLVM's
// YAML writer pads and quotes them.
std::string debug_info_probes_yaml(const std::vector<symbolize::DebugInfoProbe>& probes);

// The text output: the distinct names in byte order (when `names` is set), then
// "Found N functions" where N counts the records (one per counter offset).
std::string debug_info_summary(const std::vector<std::string>& names, size_t num_functions,
                               bool list_names);

}  // namespace profkit::report
