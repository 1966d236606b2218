#include "format/sampleprof/merge.h"

#include "format/sampleprof/layout.h"
#include "format/sampleprof/reader.h"

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
  PROFKIT_TRY(absorb_kind(input));
  for (const auto& [key, f] : input.functions) {
    FunctionSamples& into = merged_.functions[key];
    const MergeResult r = into.merge(f, weight);
    if (r != MergeResult::ok && report) report(f.context_string(), r);
  }
  absorb_rest(input);
  return {};
}

Expected<bool> Merger::add_extbinary(Bytes data, uint64_t weight, const MergeReport& report,
                                     std::shared_ptr<const void> keep) {
  DirectMerge direct;
  direct.into = &merged_.functions;
  direct.weight = weight;
  direct.before_records = [&](const Profile& header) { return absorb_kind(header); };
  direct.report = [&](const FunctionSamples& f, MergeResult r) {
    if (report) report(f.context_string(), r);
  };
  PROFKIT_TRY_ASSIGN(Profile header, read_extbinary_merging(data, direct));
  if (direct.declined) return false;
  absorb_rest(header);
  merged_.storage.push_back(std::move(keep));
  return true;
}

void Merger::absorb_rest(const Profile& input) {
  merged_.symbol_list.insert(merged_.symbol_list.end(), input.symbol_list.begin(),
                             input.symbol_list.end());
  merged_.adopt_storage(input);
}

Expected<void> Merger::absorb_kind(const Profile& input) {
  // llvm-profdata keeps the profile kind in process-wide flags that each reader updates in
  // its own way: the text reader assigns all of them, the extbinary reader only sets those
  // its sections carry (probe-based: only from a non-empty FuncMetadata section), the binary
  // reader none. The writer then uses the flags as the last input left them; merging checks
  // probe-based and CS against the inputs before.
  Profile& m = merged_;
  bool probe = m.is_probe_based, cs = m.is_cs;
  switch (input.format) {
    case Format::text:
      probe = input.is_probe_based;
      cs = input.is_cs;
      break;
    case Format::extbinary:
      for (const SectionHeader& s : input.sections)
        if (s.type == static_cast<uint64_t>(SectionType::func_metadata) && s.size != 0)
          probe = input.is_probe_based;
      cs = cs || input.is_cs;
      break;
    case Format::binary:
      break;
  }
  if (inputs_ > 0) {
    if (probe != probe_seen_)
      return make_error(ErrorCode::mismatch, kNoOffset,
                        "cannot merge probe-based profile with non-probe-based profile");
    if (cs != cs_seen_)
      return make_error(ErrorCode::mismatch, kNoOffset,
                        "cannot merge CS profile with non-CS profile");
  }
  probe_seen_ = m.is_probe_based = probe;
  cs_seen_ = m.is_cs = cs;
  if (input.format == Format::text) {
    m.is_preinlined = input.is_preinlined;
    m.is_fs = false;
  } else if (input.format == Format::extbinary) {
    m.is_preinlined = m.is_preinlined || input.is_preinlined;
    m.is_fs = m.is_fs || input.is_fs;
  }
  ++inputs_;
  return {};
}

}  // namespace profkit::sampleprof
