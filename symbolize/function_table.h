// Memprof function GUID -> name and declaration of every function in the given binaries, so
// profiles that store only GUIDs and line offsets (indexed, YAML) can be shown with names,
// files and absolute lines. Names come from DWARF subprograms (inlined-only functions
// included), then from the ELF symbol tables for code without debug info.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/bytes/expected.h"

namespace profkit::symbolize {

struct FunctionInfo {
  std::string name;        // canonical linkage name (what the GUID hashes)
  std::string decl_file;   // DW_AT_decl_file; empty without DWARF
  uint32_t decl_line = 0;  // DW_AT_decl_line; 0 without DWARF
};

using FunctionTable = std::unordered_map<uint64_t, FunctionInfo>;

// `paths`: ELF files, or directories searched recursively (non-ELF files there are skipped).
// A named file that cannot be opened as ELF is an error naming it.
// `read`, when given, gets every file that was read as ELF (what a command must not overwrite).
Expected<FunctionTable> read_function_table(const std::vector<std::string>& paths,
                                            std::vector<std::string>* read = nullptr);

}  // namespace profkit::symbolize
