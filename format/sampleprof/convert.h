// Layout conversions of `merge --sample --convert-sample-profile-layout`: flat (every
// inlinee becomes a top-level profile; CS contexts merge into their leaf function) and nest
// (CS contexts become inlinees of their callers' profiles). Both follow llvm-profdata 22
// step for step, including the order of insertions into and erasures from the profile map,
// which decides the FuncMetadata order of extbinary output (docs/formats/sampleprof.md 5.5).
#pragma once

#include "format/sampleprof/profile.h"

namespace profkit::sampleprof {

// Flattens `profile` in place; afterwards it is not CS.
void flatten_profile(Profile& profile);

// Nests a CS profile's contexts into their callers' profiles (a no-op for other profiles);
// afterwards it is not CS. `merged_base_profiles`: also keep each nested context merged into
// a base profile of its function, flagged as duplicated into base
// (llvm-profdata's --generate-merged-base-profiles).
void nest_profile(Profile& profile, bool merged_base_profiles = false);

}  // namespace profkit::sampleprof
