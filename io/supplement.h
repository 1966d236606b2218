// `merge --supplement-instr-with-sample`'s file part: reads the sample profile, then the one
// IR-PGO input (any encoding, weight 1, merged alone as llvm-profdata loads it: no temporal
// traces kept), and adjusts the result (format/instrprof/supplement.h has the rules).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/supplement.h"

namespace profkit {

struct SupplementedProfile {
  instrprof::Profile profile;
  std::vector<uint64_t> name_refs;  // per record, for IndexedWriteOptions::name_refs
};

// On error, `failed_path` names the file that failed (the sample profile or the input).
// `warn` gets the supplement's warnings (as LLVM words them) and the input's merge warnings.
Expected<SupplementedProfile> supplement_instr_file(
    const std::string& instr_path, const std::string& sample_path,
    const instrprof::SupplementOptions& options,
    const std::function<void(std::string_view)>& warn, std::string* failed_path);

}  // namespace profkit
