// Reader for the text profile format (`llvm-profdata merge --text` output), the grammar of
// docs/formats/irpgo.md 4.1 as LLVM 22 accepts it (a superset of LLVM 14's).
//
//   file   := (":" keyword | ":temporal_prof_traces" trace-block)* record*
//   record := NAME, FuncHash (radix auto-detected), NumCounters, counters,
//             ["$" NumBitmapBytes, bytes...], [NumValueKinds, { kind, sites... }...]
//
// Blank lines and lines starting with '#' are skipped everywhere. Value targets of kinds 0
// and 2 are names, stored as their MD5 NameRef ("** External Symbol **" = 0). Records with
// the same (name, hash) are merged by summing. Errors carry the offset of the offending line.
#pragma once

#include <string_view>

#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

// Returns format = text, version = 0, flags from the header lines, records in file order
// (first occurrence), value-target names that are not record names in extra_names and
// vtable target names in vtable_names.
Expected<Profile> read_text_profile(std::string_view text);

// LLVM's sniffing rule: the first (up to) 8 bytes are printable ASCII or whitespace.
bool looks_like_text_profile(std::string_view text);

}  // namespace profkit::instrprof
