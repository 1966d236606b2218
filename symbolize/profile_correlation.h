// Loading a Correlation (format/instrprof/correlation.h) for `profkit merge --binary-file`
// and `--debug-info`: from the sections a binary keeps (-profile-correlate=binary), or from
// the DWARF annotations on the __profc_ counter variables (-profile-correlate=debug-info),
// which libdw reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/bytes/expected.h"
#include "format/instrprof/correlation.h"

namespace profkit::symbolize {

enum class CorrelationSource {
  binary,      // __llvm_covdata / __llvm_covnames sections (--binary-file)
  debug_info,  // DWARF annotations on __profc_ variables (--debug-info)
};

// What one __profc_ variable's DWARF says (llvm-profdata show --debug-info's "probes").
struct DebugInfoProbe {
  std::string function_name;   // the "Function Name" annotation: the PGO name
  std::string linkage_name;    // of the enclosing subprogram (DW_AT_linkage_name or name)
  uint64_t cfg_hash = 0;       // "CFG Hash"
  uint64_t counter_offset = 0; // counter address minus the __llvm_prf_cnts address
  uint64_t function_ptr = 0;   // subprogram's DW_AT_low_pc (0 when it has none)
  uint32_t num_counters = 0;   // "Num Counters"
  std::string decl_file;       // subprogram's DW_AT_decl_file as its line table names it
  uint32_t decl_line = 0;      // subprogram's DW_AT_decl_line (0: none)
};

// The probes of every compile unit in DIE order, after the warnings LLVM gives (incomplete
// annotations, a counter outside __llvm_prf_cnts, a function without an address).
Expected<std::vector<DebugInfoProbe>> read_debug_info_probes(
    const std::string& path, instrprof::CorrelationWarnings& warnings);

// Reads `path` and builds its Correlation. Errors name what is missing (a section, any
// probe); the caller adds the path.
Expected<instrprof::Correlation> load_correlation(const std::string& path,
                                                  CorrelationSource source,
                                                  instrprof::CorrelationWarnings& warnings);

}  // namespace profkit::symbolize
