#include "format/sampleprof/merge.h"

namespace profkit::sampleprof {

std::string_view merge_result_text(MergeResult r) {
  switch (r) {
    case MergeResult::ok: return "Success";
    case MergeResult::counter_overflow: return "Counter overflow";
    case MergeResult::hash_mismatch: return "Function hash mismatch";
  }
  return "";
}

Expected<void> Merger::add(const Profile& input, uint64_t weight, const MergeReport& report) {
  if (inputs_ > 0) {
    if (input.is_probe_based != merged_.is_probe_based)
      return make_error(ErrorCode::mismatch, kNoOffset,
                        "cannot merge probe-based profile with non-probe-based profile");
    if (input.is_cs != merged_.is_cs)
      return make_error(ErrorCode::mismatch, kNoOffset,
                        "cannot merge CS profile with non-CS profile");
  }
  merged_.is_probe_based = input.is_probe_based;
  merged_.is_cs = input.is_cs;
  // LLVM keeps these as process-wide flags that readers only ever set.
  merged_.is_preinlined = merged_.is_preinlined || input.is_preinlined;
  merged_.is_fs = merged_.is_fs || input.is_fs;
  ++inputs_;
  for (const auto& [key, f] : input.functions) {
    FunctionSamples& into = merged_.functions[key];
    const MergeResult r = into.merge(f, weight);
    if (r != MergeResult::ok && report) report(f.context_string(), r);
  }
  if (input.has_symbol_list) merged_.has_symbol_list = true;
  merged_.symbol_list.insert(merged_.symbol_list.end(), input.symbol_list.begin(),
                             input.symbol_list.end());
  merged_.adopt_storage(input);
  return {};
}

}  // namespace profkit::sampleprof
