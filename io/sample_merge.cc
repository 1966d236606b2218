#include "io/sample_merge.h"

#include <memory>

#include "format/sampleprof/merge.h"
#include "format/sampleprof/reader.h"
#include "io/mapped_file.h"

namespace profkit {

namespace {

Expected<std::shared_ptr<MappedFile>> map_input(const std::string& path) {
  PROFKIT_TRY_ASSIGN(MappedFile file, MappedFile::open(path, MappedFile::Access::whole));
  return std::make_shared<MappedFile>(std::move(file));
}

// The whole profile of a mapped input, which it keeps alive.
Expected<sampleprof::Profile> read_mapped(std::shared_ptr<MappedFile> file) {
  PROFKIT_TRY_ASSIGN(sampleprof::Profile profile, sampleprof::read_profile(file->bytes()));
  profile.storage.push_back(std::move(file));
  return profile;
}

}  // namespace

Expected<sampleprof::Profile> read_sample_file(const std::string& path) {
  PROFKIT_TRY_ASSIGN(auto file, map_input(path));
  return read_mapped(std::move(file));
}

Expected<sampleprof::Profile> merge_sample_files(std::span<const WeightedPath> inputs,
                                                 bool fail_any, const FileMergeWarning& warn,
                                                 std::string* failed_path) {
  sampleprof::Merger merger;
  for (const WeightedPath& in : inputs) {
    auto report = [&](std::string_view context, sampleprof::MergeResult r) {
      warn(in.path, std::string(context) + ": " + std::string(sampleprof::merge_result_text(r)));
    };
    auto file = map_input(in.path);
    if (file && fail_any) {  // the fast path: extbinary records merged as they are read
      auto added = merger.add_extbinary((*file)->bytes(), in.weight, report, *file);
      if (!added) {
        if (added.error().code == ErrorCode::mismatch) failed_path->clear();
        else *failed_path = in.path;
        return Unexpected{std::move(added).error()};
      }
      if (*added) continue;
    }
    Expected<sampleprof::Profile> profile =
        file ? read_mapped(std::move(*file)) : Unexpected{std::move(file).error()};
    if (!profile) {
      if (fail_any) {
        *failed_path = in.path;
        return Unexpected{std::move(profile).error()};
      }
      const Error& e = profile.error();
      warn(in.path, "skipped (--failure-mode): " +
                        (e.has_offset() ? "byte " + std::to_string(e.offset) + ": " : std::string()) +
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
