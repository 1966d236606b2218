// The text sample-profile format: one header per function (`NAME:TOTAL:HEAD`, or a CS
// context `[main:3 @ foo]:TOTAL:HEAD`), then indented lines for body samples
// (`LINE[.DISC]: COUNT [TARGET:COUNT]...`), inlined callees (`LINE[.DISC]: NAME:TOTAL`,
// their own lines one space deeper), vtable counts and metadata (`!CFGChecksum: N`,
// `!Attributes: N`, ` !Flat`). The grammar, with every quirk llvm-profdata's reader has,
// is in docs/formats/sampleprof.md section 2.
#pragma once

#include "format/bytes/cursor.h"
#include "format/sampleprof/profile.h"

namespace profkit::sampleprof {

// True when the first line that is not blank or a `#` comment is a valid function header.
bool has_text_format(Bytes data);

// Parses a text profile. Names point into `data`, which must outlive the profile (callers
// put its owner in profile.storage). Errors name the byte offset of the offending line and
// its line number.
Expected<Profile> read_text(Bytes data);

}  // namespace profkit::sampleprof
