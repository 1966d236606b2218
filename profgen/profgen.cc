#include "profgen/profgen.h"

#include <optional>

#include "format/sampleprof/writer.h"
#include "io/mapped_file.h"
#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/ip_samples.h"
#include "profgen/perf_data.h"
#include "profgen/perf_script.h"

namespace profkit::profgen {

namespace {

Unexpected not_supported(std::string message) {
  return Unexpected{Error{ErrorCode::invalid_argument, kNoOffset, std::move(message)}};
}

Expected<std::string> write(const sampleprof::Profile& profile, const ProfgenOptions& options,
                            const ProfiledBinary& binary, const LineSink& warn);

}  // namespace

Expected<std::string> run_profgen(const ProfgenOptions& options, const LineSink& warn,
                                  const LineSink& out, std::string* failing_input) {
  *failing_input = options.binary;
  LoadOptions load;
  load.use_dwarf_correlation = options.use_dwarf_correlation;
  PROFKIT_TRY_ASSIGN(auto binary, ProfiledBinary::load(options.binary, load, warn));

  const OffsetBase base = !options.use_offset ? OffsetBase::absolute
                          : options.use_first_loadable_segment_as_base
                              ? OffsetBase::first_loadable
                              : OffsetBase::preferred_base;
  SampleCounter counter;
  if (!options.unsymbolized_profile.empty()) {
    *failing_input = options.unsymbolized_profile;
    PROFKIT_TRY_ASSIGN(auto file,
                       MappedFile::open(options.unsymbolized_profile, MappedFile::Access::whole));
    const Bytes bytes = file.bytes();
    PROFKIT_TRY_ASSIGN(auto raw, read_unsymbolized(
                                     std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                                      bytes.size()),
                                     *binary, base));
    if (raw.context_sensitive)
      return not_supported(
          "context-sensitive unsymbolized profiles are not supported yet (profkit profgen "
          "writes context-insensitive profiles: use LBR-only samples or "
          "--ignore-stack-samples)");
    for (auto& c : raw.counters) {
      for (const auto& [k, v] : c.counter.ranges) counter.ranges[k] += v;
      for (const auto& [k, v] : c.counter.branches) counter.branches[k] += v;
    }
  } else {
    const std::string& input = options.perfdata.empty() ? options.perfscript : options.perfdata;
    *failing_input = input;
    std::optional<MappedFile> file;
    std::string converted;
    std::string_view text;
    if (!options.perfdata.empty()) {
      PROFKIT_TRY_ASSIGN(converted, perf_data_to_script(options.perfdata, binary->file_name(),
                                                        options.pid));
      text = converted;
    } else {
      PROFKIT_TRY_ASSIGN(file, MappedFile::open(options.perfscript, MappedFile::Access::whole));
      const Bytes bytes = file->bytes();
      text = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    ScriptOptions so;
    so.pid = options.pid;
    so.ignore_stack_samples = options.ignore_stack_samples;
    so.show_mmap_events = options.show_mmap_events;
    PROFKIT_TRY_ASSIGN(ParsedScript script, read_perf_script(text, *binary, so, warn, out));
    warn_summary(warn, script.leaf_external_frames, script.total_samples,
                 "of samples have leaf external frame in call stack.");
    warn_summary(warn, script.invalid_return_addresses.size(), script.samples.size(),
                 "of truncated stack samples due to invalid return address, likely caused by "
                 "frame pointer omission.");
    if (script.kind == ScriptKind::hybrid && !options.ignore_stack_samples) {
      warn_invalid_ranges(script, *binary, warn);
      CsOptions cs = options.cs;
      cs.update_total_samples = options.generate.update_total_samples;
      cs.trim_cold_profile = options.post.trim_cold_profile;
      // The pre-inliner's decisions would be undone by merging: merging is on by default
      // only without it.
      if (cs.preinliner && !options.merge_cold_context_given) cs.merge_cold_context = false;
      UnwindStats stats;
      std::vector<CsCounter> counters = unwind_samples(script, *binary, cs.context, stats);
      warn_unwind(stats, counters.size(), warn);
      if (options.skip_symbolization) {
        std::vector<ContextCounter> out_counters;
        for (auto& c : counters)
          out_counters.push_back(ContextCounter{context_text(c, *binary, base), c.counter});
        return write_unsymbolized(out_counters, true, *binary, base);
      }
      *failing_input = options.binary;
      sampleprof::Profile profile =
          generate_context_sensitive(*binary, counters, cs, options.post, warn);
      post_process_cs(profile, cs, options.post, warn, out);
      return write(profile, options, *binary, warn);
    }
    if (script.kind == ScriptKind::ip_only) {
      warn("no branch stacks in " + input +
           ": estimating block and call counts from the sampled addresses and call stacks "
           "(see docs/profgen.md)");
      counter = estimate_from_ip_samples(script, *binary);
    } else {
      warn_invalid_ranges(script, *binary, warn);
      counter = count_lbr_samples(script, *binary);
    }
    if (options.skip_symbolization) {
      std::vector<ContextCounter> counters;
      counters.push_back(ContextCounter{"", std::move(counter)});
      return write_unsymbolized(counters, false, *binary, base);
    }
  }
  *failing_input = options.binary;

  sampleprof::Profile profile =
      generate_context_insensitive(*binary, counter, options.generate);
  post_process(profile, options.post, warn, out);
  return write(profile, options, *binary, warn);
}

namespace {

Expected<std::string> write(const sampleprof::Profile& profile, const ProfgenOptions& options,
                            const ProfiledBinary& binary, const LineSink& warn) {
  sampleprof::WriteOptions wo;
  wo.format = options.format;
  if (options.use_md5) {
    if (options.format != sampleprof::Format::extbinary)
      warn("-use-md5 is ignored. Specify --format=extbinary to enable it");
    else
      wo.use_md5 = true;
  }
  if (options.populate_profile_symbol_list && options.format == sampleprof::Format::extbinary)
    for (const auto& name : binary.range_function_names()) wo.symbol_list.push_back(name);
  return sampleprof::write_profile(profile, wo);
}

}  // namespace

}  // namespace profkit::profgen
