#include "io/sample_merge.h"

#include <memory>

#include "format/sampleprof/merge.h"
#include "format/sampleprof/reader.h"
#include "io/mapped_file.h"

namespace profkit {

Expected<sampleprof::Profile> read_sample_file(const std::string& path) {
  PROFKIT_TRY_ASSIGN(MappedFile file, MappedFile::open(path, MappedFile::Access::whole));
  auto shared = std::make_shared<MappedFile>(std::move(file));
  PROFKIT_TRY_ASSIGN(sampleprof::Profile profile, sampleprof::read_profile(shared->bytes()));
  profile.storage.push_back(shared);
  return profile;
}

Expected<sampleprof::Profile> merge_sample_files(std::span<const WeightedPath> inputs,
                                                 bool fail_any, const FileMergeWarning& warn,
                                                 std::string* failed_path) {
  sampleprof::Merger merger;
  for (const WeightedPath& in : inputs) {
    auto report = [&](std::string_view context, sampleprof::MergeResult r) {
      warn(in.path, std::string(context) + ": " + std::string(sampleprof::merge_result_text(r)));
    };
    if (fail_any) {  // the fast path: extbinary records merged as they are read
      auto file = MappedFile::open(in.path, MappedFile::Access::whole);
      if (!file) {
        *failed_path = in.path;
        return Unexpected{std::move(file).error()};
      }
      auto shared = std::make_shared<MappedFile>(std::move(*file));
      auto added = merger.add_extbinary(shared->bytes(), in.weight, report, shared);
      if (!added) {
        if (added.error().code == ErrorCode::mismatch) failed_path->clear();
        else *failed_path = in.path;
        return Unexpected{std::move(added).error()};
      }
      if (*added) continue;
    }
    auto profile = read_sample_file(in.path);
    if (!profile) {
      if (fail_any) {
        *failed_path = in.path;
        return Unexpected{std::move(profile).error()};
      }
      const Error& e = profile.error();
      warn(in.path, (e.has_offset() ? "byte " + std::to_string(e.offset) + ": " : std::string()) +
                        e.message);
      continue;
    }
    auto added = merger.add(*profile, in.weight, report);
    if (!added) {
      failed_path->clear();
      return Unexpected{std::move(added).error()};
    }
  }
  return merger.finish();
}

}  // namespace profkit
