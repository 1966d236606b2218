// Reading a sample profile of any encoding: text, binary (magic ...ff) or extbinary
// (magic ...04), detected from the first bytes as llvm-profdata detects them.
#pragma once

#include <functional>
#include <unordered_map>
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

// Merging an extbinary profile's records straight into a merge result, without building
// the input's own profile: the fast path of `merge --sample` (io/sample_merge.cc). The
// result equals reading the input whole and merging it with Merger::add.
struct DirectMerge {
  std::unordered_map<uint64_t, FunctionSamples>* into = nullptr;
  uint64_t weight = 1;
  // Called with the input's header (flags, sections) before any record is merged; an error
  // stops the merge with nothing changed.
  std::function<Expected<void>(const Profile& header)> before_records;
  // Called for each function whose merge saturated or met a checksum mismatch.
  std::function<void(const FunctionSamples&, MergeResult)> report;
  // Set when the input cannot be merged this way (CS, function metadata, a split layout,
  // a function listed twice): nothing was merged, read it whole instead.
  bool declined = false;
};

// Reads the extbinary profile `data` merging its records into `direct.into`; returns the
// input's header (flags, sections, summary, symbol list; no functions).
Expected<Profile> read_extbinary_merging(Bytes data, DirectMerge& direct);

// The section header table of an extbinary profile, read without the sections
// (`show --show-sec-info-only`). Fails for other encodings with ErrorCode::bad_magic.
Expected<std::vector<SectionHeader>> read_section_headers(Bytes data);

}  // namespace profkit::sampleprof
