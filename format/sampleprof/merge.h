// Merging sample profiles as `llvm-profdata merge --sample` does: each input's profiles in
// that input's map order, each multiplied by the input's weight, into one profile whose map
// sees the same insertions as LLVM's (so its iteration order, visible in extbinary output,
// is the same).
#pragma once

#include <functional>
#include <iterator>
#include <memory>
#include <string>
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

// `merge --function` / `--no-function`: drops the top-level profiles whose context string
// (the name, or "main:3 @ foo") `keep` does not match or `drop` matches (either may be null;
// unanchored search); an MD5 profile's decimal name also matches the MD5 of the pattern
// text itself. Erases in map order, as llvm-profdata does. Returns how many were dropped.
template <class Pattern>
size_t filter_functions(Profile& profile, const Pattern* keep, const Pattern* drop,
                        const std::string& keep_text, const std::string& drop_text);

// The text of a MergeResult as llvm-profdata prints it ("Counter overflow", ...).
std::string_view merge_result_text(MergeResult r);

template <class Pattern>
size_t filter_functions(Profile& profile, const Pattern* keep, const Pattern* drop,
                        const std::string& keep_text, const std::string& drop_text) {
  const std::string keep_md5 = std::to_string(FunctionId(keep_text).hash());
  const std::string drop_md5 = std::to_string(FunctionId(drop_text).hash());
  const size_t before = profile.functions.size();
  for (auto it = profile.functions.begin(); it != profile.functions.end();) {
    const std::string name = it->second.context_string();
    const bool md5 = it->second.name.is_md5();
    const bool dropped = (drop != nullptr && (drop->matches(name) || (md5 && name == drop_md5))) ||
                         (keep != nullptr && !(keep->matches(name) || (md5 && name == keep_md5)));
    it = dropped ? profile.functions.erase(it) : std::next(it);
  }
  return before - profile.functions.size();
}

}  // namespace profkit::sampleprof
