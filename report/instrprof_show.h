// `show` for IR-PGO profiles: renders a Profile as the text `llvm-profdata-22 show` prints
// for the same file and flags (docs/formats/irpgo.md section 5). Returns the text; never prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/instrprof/profile.h"

namespace profkit::report {

// One field per `llvm-profdata show` option that applies to instrumentation profiles,
// named after the option (`--all-functions` -> all_functions).
struct ShowOptions {
  bool all_functions = false;            // print a block for every function
  bool counts = false;                   // "Block counts: [...]" in each block
  std::string function;                  // print functions whose name contains this
  uint32_t topn = 0;                     // list the N functions with the largest counter
  bool hot_func_list = false;            // list the functions whose largest counter is hot
  bool detailed_summary = false;         // one line per summary cutoff
  std::vector<uint32_t> detailed_summary_cutoffs;  // ppm; empty = the 16 defaults
  bool ic_targets = false;               // indirect-call value profiles
  bool memop_sizes = false;              // memory-intrinsic size value profiles
  bool show_vtables = false;             // vtable value profiles
  bool text = false;                     // selected records in the text format
  bool binary_ids = false;               // "Binary IDs:" trailer
  bool covered = false;                  // only the names of functions with a non-zero counter
  bool profile_version = false;          // "Profile version:" trailer
  uint64_t value_cutoff = 0;             // hide functions whose max counter is below this
  bool list_below_cutoff = false;        // list only the functions below value_cutoff
  bool showcs = false;                   // context-sensitive records instead of the others
  bool temporal_profile_traces = false;  // "Temporal Profile Traces" trailer
};

// The complete output of `llvm-profdata-22 show OPTIONS FILE` for the profile read from
// FILE. Requires: every record has at least one counter (all readers guarantee it).
std::string show_instrprof(const instrprof::Profile& profile, const ShowOptions& options);

// Same, appending to `out` (lets a caller reuse one buffer).
void append_show_instrprof(std::string& out, const instrprof::Profile& profile,
                           const ShowOptions& options);

// Receives consecutive pieces of the output; returns false to stop (e.g. a failed write).
using ShowSink = std::function<bool(std::string_view piece)>;

// Same text, handed to `sink` in pieces of about 1 MiB through one reused buffer, for
// profiles whose text is large. Returns false if the sink refused a piece.
bool write_show_instrprof(const instrprof::Profile& profile, const ShowOptions& options,
                          const ShowSink& sink);

}  // namespace profkit::report
