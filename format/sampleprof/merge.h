// Merging sample profiles as `llvm-profdata merge --sample` does: each input's profiles in
// that input's map order, each multiplied by the input's weight, into one profile whose map
// sees the same insertions as LLVM's (so its iteration order, visible in extbinary output,
// is the same).
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "format/bytes/cursor.h"
#include "format/sampleprof/profile.h"

namespace profkit::sampleprof {

// Called for each profile whose merge saturated a count or was refused for a checksum
// mismatch: the context string and what happened. Merging goes on.
using MergeReport = std::function<void(std::string_view context, MergeResult result)>;

class Merger {
 public:
  // Adds `input` (all of it) with `weight`. Fails, changing nothing, when its kind differs
  // from the inputs before it (probe-based vs not, CS vs not).
  Expected<void> add(const Profile& input, uint64_t weight, const MergeReport& report);
  // The same for an extbinary file's bytes, merged record by record without building the
  // input's own profile (much less memory and time). Returns false, having changed nothing,
  // when the input needs the general path (read_profile, then add). `keep` owns `data`.
  Expected<bool> add_extbinary(Bytes data, uint64_t weight, const MergeReport& report,
                               std::shared_ptr<const void> keep);
  // The merged profile (its names point into the inputs' storage, which it has adopted).
  Profile finish() { return std::move(merged_); }
  bool empty() const { return inputs_ == 0; }

 private:
  Expected<void> absorb_kind(const Profile& input);
  void absorb_rest(const Profile& input);

  Profile merged_;
  size_t inputs_ = 0;
  bool probe_seen_ = false, cs_seen_ = false;
};

// The text of a MergeResult as llvm-profdata prints it ("Counter overflow", ...).
std::string_view merge_result_text(MergeResult r);

}  // namespace profkit::sampleprof
