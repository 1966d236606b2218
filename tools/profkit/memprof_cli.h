// MemProf parts of `profkit merge` and `profkit show`, kept in their own file so the IRPGO
// commands only call in: option values in, exit status out, errors printed as
// `FILE:OFFSET: error: MESSAGE (code)`.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/instrprof/profile.h"

namespace profkit::cli {

struct MemProfCliOptions {
  std::vector<std::string> profiled_binaries;  // --profiled-binary (repeatable; dirs too)
  int memprof_version = 3;                     // --memprof-version=2|3|4
  bool full_schema = false;                    // --memprof-full-schema
  bool verbose = false;                        // --verbose: every symbolization warning
};

// True if `bytes` is a raw memprof profile or MemProf YAML (what merge routes here).
bool is_memprof_input(Bytes bytes);

// Loads, symbolizes and merges `inputs`; prints per-input warnings about what could not be
// symbolized. Returns false after printing an error.
struct MemProfMerged;
bool load_memprof(const std::vector<std::string>& inputs, const MemProfCliOptions& options,
                  std::shared_ptr<MemProfMerged>& out);

// Writes `bytes` to `path` ("-" or empty = standard output) through a temporary file, so a
// failure never leaves a partial output. Returns the exit status.
int write_output(const std::string& path, const std::string& bytes);
// The same for output made in pieces: `produce` hands each to the function it is given.
int write_output_streamed(const std::string& path,
                          const std::function<void(const std::function<void(std::string_view)>&)>& produce);

// MemProf data with no records (what a supplemented indexed input keeps of its MemProf).
std::shared_ptr<MemProfMerged> empty_memprof();

// A memprof-only indexed profile, laid out as llvm-profdata 22 writes it.
std::string memprof_only_profile(const MemProfMerged& merged, const MemProfCliOptions& options);

// Section bytes for a given absolute file offset.
std::string memprof_section_at(const MemProfMerged& merged, const MemProfCliOptions& options,
                               uint64_t offset);

// `show --memory FILE`: raw (symbolized with the binaries), YAML, or indexed. Returns the
// exit status; writes the text to `output` (empty = stdout).
int show_memprof(const std::string& input, const MemProfCliOptions& options,
                 const std::string& output);

}  // namespace profkit::cli
