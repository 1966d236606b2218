// `merge --sample` and `show --sample`: read, merge and write sample profiles
// (format/sampleprof, io/sample_merge) and print them (report/sample_show).
#include <cstdio>
#include <optional>

#include "format/sampleprof/convert.h"
#include "format/sampleprof/merge.h"
#include "format/sampleprof/reader.h"
#include "format/sampleprof/writer.h"
#include "io/mapped_file.h"
#include "io/sample_merge.h"
#include "tools/profkit/command.h"
#include "tools/profkit/name_filter.h"
#include "tools/profkit/sample_cli.h"

namespace profkit::cli {

namespace {

void warn(std::string_view message) {
  std::fprintf(stderr, "warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

// --prof-sym-list: one symbol per line, surrounding white space trimmed, empty lines dropped.
bool read_symbol_list(const std::string& path, sampleprof::Profile& keep,
                      std::vector<std::string_view>& out) {
  auto file = MappedFile::open(path, MappedFile::Access::whole);
  if (!file) {
    report_error(path, file.error());
    return false;
  }
  std::string_view text = keep.own(std::string(as_string_view(file->bytes())));
  const char* ws = " \t\n\v\f\r";
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const size_t b = line.find_first_not_of(ws);
    if (b == std::string_view::npos) continue;
    out.push_back(line.substr(b, line.find_last_not_of(ws) - b + 1));
  }
  return true;
}

}  // namespace

int run_sample_merge(const std::vector<WeightedPath>& inputs, const std::string& output,
                     bool fail_any, const SampleMergeOptions& options) {
  sampleprof::WriteOptions write;
  if (options.format == "text") write.format = sampleprof::Format::text;
  else if (options.format == "binary") write.format = sampleprof::Format::binary;
  else write.format = sampleprof::Format::extbinary;
  const bool ext = write.format == sampleprof::Format::extbinary;
  std::string failed;
  auto merged = merge_sample_files(
      inputs, fail_any,
      [](std::string_view source, std::string_view message) {
        std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(source.size()), source.data(),
                     static_cast<int>(message.size()), message.data());
      },
      &failed);
  if (!merged) {
    if (failed.empty())
      report_error("merge: " + merged.error().message);
    else
      report_error(failed, merged.error());
    return 1;
  }
  sampleprof::Profile& profile = *merged;
  if (options.convert_layout == "flat")
    sampleprof::flatten_profile(profile);
  else if (options.convert_layout == "nest")
    sampleprof::nest_profile(profile, options.merged_base_profiles);
  if (!options.function.empty() || !options.no_function.empty()) {
    const auto filter = make_name_filter(options.function, options.no_function);
    if (!filter) return 1;
    const size_t before = profile.functions.size();
    const size_t dropped = sampleprof::filter_functions(
        profile, filter->keep ? &*filter->keep : nullptr, filter->drop ? &*filter->drop : nullptr,
        options.function, options.no_function);
    std::fprintf(stderr, "%zu of %zu functions in the original profile are filtered.\n", dropped,
                 before);
  }
  if (!options.drop_profile_symbol_list) write.symbol_list = profile.symbol_list;
  if (!options.prof_sym_list.empty() &&
      !read_symbol_list(options.prof_sym_list, profile, write.symbol_list))
    return 1;
  if (!write.symbol_list.empty() && !ext)
    warn("Profile Symbol list is not empty but the output format is not ExtBinary format. The "
         "list will be lost in the output. ");
  if (options.compress_all_sections) {
    if (ext) write.compress_all_sections = true;
    else warn("-compress-all-section is ignored. Specify -extbinary to enable it");
  }
  if (options.use_md5) {
    if (ext) write.use_md5 = true;
    else warn("-use-md5 is ignored. Specify -extbinary to enable it");
  }
  if (options.gen_partial_profile) {
    if (ext) write.partial = true;
    else warn("-gen-partial-profile is ignored. Specify -extbinary to enable it");
  }
  if (options.split_layout) {
    if (ext) write.split_layout = true;
    else if (write.format == sampleprof::Format::text) write.mark_flat = true;
    else warn("-split-layout is ignored. Specify -extbinary to enable it");
  }
  write.write_vtables = ext && options.write_vtables;
  auto bytes = sampleprof::write_profile(profile, write);
  if (!bytes) {
    report_error(output, bytes.error());
    return 1;
  }
  const int status = write_output(output, *bytes);
  keep_until_exit(std::move(profile));
  return status;
}

int run_sample_show(const std::string& input, const std::string& output,
                    const SampleShowCliOptions& options) {
  auto file = MappedFile::open(input, MappedFile::Access::whole);
  if (!file) {
    report_error(input, file.error());
    return 1;
  }
  std::string text;
  if (options.show_sec_info_only) {
    auto sections = sampleprof::read_section_headers(file->bytes());
    if (!sections) {
      if (sections.error().code != ErrorCode::bad_magic) {
        report_error(input, sections.error());
        return 1;
      }
      if (!sampleprof::is_sample_profile(file->bytes())) {
        report_error(input, Error{ErrorCode::bad_magic, 0,
                                  "not a sample profile (text, binary or extbinary)"});
        return 1;
      }
      warn("-show-sec-info-only is only supported for sample profile in extbinary format and "
           "is ignored for other formats.");
      return 0;
    }
    text = report::show_sample_sections(*sections);
  } else {
    auto profile = sampleprof::read_profile(file->bytes());
    if (!profile) {
      report_error(input, profile.error());
      return 1;
    }
    std::string error;
    text = report::show_sample(*profile, options.show, &error);
    if (!error.empty()) {
      report_error(error);
      return 1;
    }
    keep_until_exit(std::move(*profile));
  }
  const int status = write_output(output, text);
  keep_until_exit(std::move(*file));
  return status;
}

}  // namespace profkit::cli
