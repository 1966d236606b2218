// Which files a merge reads, as llvm-profdata decides it: positional inputs, W,FILE weighted
// inputs and an input-list file, with directories standing for the regular files under them;
// then, for an IR-PGO merge, which of those files carry MemProf data. `profkit merge` and any
// other merger (the fleet merger runs that command on its shards) start here, so the rules
// live in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "io/profile_merge.h"

namespace profkit {

// "W,FILE" with an integer weight of at least 1; nothing for any other text.
std::optional<WeightedPath> parse_weighted_input(std::string_view spec);

// What the command line names, in llvm-profdata's order: positional inputs (weight 1), then
// --weighted-input specs, then the lines of the -f list file.
struct MergeInputSpec {
  std::vector<std::string> paths;
  std::vector<std::string> weighted;  // "W,FILE"
  std::string list_file;              // -f: one FILE or W,FILE per line; '#' starts a comment
};

// The inputs the spec names. An input that does not exist is an error before anything is
// read (whatever --failure-mode says: that mode is about inputs that cannot be parsed); a
// directory stands for every regular file under it, in the order the directory walk
// (readdir, depth first, following directory links) meets them, with its weight. On error,
// `failed_path` names the file the error is about, or is left empty when the error is about
// the command line (the message then says which option, or LIST:LINE).
Expected<std::vector<WeightedPath>> collect_merge_inputs(const MergeInputSpec& spec,
                                                         std::string* failed_path);

// What a file's first bytes say about it, for an IR-PGO merge (only its header is read).
enum class InstrProfFileKind {
  other,             // no raw or indexed IR-PGO magic (text, MemProf, or not a profile)
  raw,               // raw IR-PGO
  indexed,           // indexed IR-PGO without the MemProf flag
  indexed_memprof,   // indexed IR-PGO of version 8 or later with the MemProf flag
};
InstrProfFileKind sniff_instrprof_file(const std::string& path);

// The MemProf part of an IR-PGO merge's inputs. Raw and YAML MemProf files are taken out of
// the IR-PGO inputs and merged on their own; an indexed input whose MemProf section holds
// records (or a data-access profile) is merged both ways: its counters with the IR-PGO
// inputs, its MemProf data with the MemProf ones.
struct MemProfRoute {
  std::vector<std::string> memprof_inputs;  // in input order
  bool memprof_flag_seen = false;           // an indexed input has the MemProf flag
};
MemProfRoute route_memprof_inputs(std::vector<WeightedPath>& inputs);

}  // namespace profkit
