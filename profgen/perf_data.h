// --perfdata: a perf.data file turned into perf script text by running `perf script`, as
// llvm-profgen does (docs/profgen.md): first `-F comm,pid` to find the processes that
// mapped the binary, then `-F ip,brstack` for those processes. A recording without branch
// stacks is printed again with `-F ip,dso`, so that call-chain addresses (which perf 6.1
// prints as offsets in their DSO's file) name their DSO.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "format/bytes/expected.h"

namespace profkit::profgen {

// Returns the script text. `binary_name` is the basename mmap events must name; `pid`
// restricts the processes. Fails when perf is not in PATH, cannot read the file, or no
// process mapped the binary ("No relevant mmap event is found in perf data.").
Expected<std::string> perf_data_to_script(const std::string& perf_data,
                                          std::string_view binary_name,
                                          std::optional<int64_t> pid);

}  // namespace profkit::profgen
