// Reading a sample profile of any encoding: text, binary (magic ...ff) or extbinary
// (magic ...04), detected from the first bytes as llvm-profdata detects them.
#pragma once

#include <vector>

#include "format/bytes/cursor.h"
#include "format/sampleprof/profile.h"

namespace profkit::sampleprof {

// True when `data` starts with the binary or extbinary magic.
bool has_binary_magic(Bytes data);
// True when `data` is a sample profile of any encoding (binary magic or a text header).
bool is_sample_profile(Bytes data);

// Reads the whole profile. Names point into `data` (and into buffers the profile owns):
// `data` must outlive the profile. Every error names the byte offset and what was expected.
Expected<Profile> read_profile(Bytes data);

// The section header table of an extbinary profile, read without the sections
// (`show --show-sec-info-only`). Fails for other encodings with ErrorCode::bad_magic.
Expected<std::vector<SectionHeader>> read_section_headers(Bytes data);

}  // namespace profkit::sampleprof
