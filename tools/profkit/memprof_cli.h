// MemProf parts of `profkit merge` and `profkit show`, kept in their own file so the IRPGO
// commands only call in: option values in, exit status out, errors printed as
// `FILE:OFFSET: error: MESSAGE (code)`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace profkit::cli {

struct MemProfCliOptions {
  std::vector<std::string> profiled_binaries;  // --profiled-binary (repeatable; dirs too)
  int memprof_version = 3;                     // --memprof-version=2|3|4
  bool full_schema = false;                    // --memprof-full-schema
  bool verbose = false;                        // --verbose: every symbolization warning
};

// Loads, symbolizes and merges `inputs`; prints per-input warnings about what could not be
// symbolized. Returns false after printing an error, also when one of `outputs` is a binary
// the symbolization read (found under a --profiled-binary directory).
struct MemProfMerged;
bool load_memprof(const std::vector<std::string>& inputs, const MemProfCliOptions& options,
                  std::shared_ptr<MemProfMerged>& out, const std::vector<std::string>& outputs);

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
