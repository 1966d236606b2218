#include "profgen/profgen.h"

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "format/sampleprof/writer.h"
#include "io/mapped_file.h"
#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/ip_samples.h"
#include "profgen/memory.h"
#include "profgen/perf_data.h"
#include "profgen/parse.h"
#include "profgen/perf_script.h"

namespace profkit::profgen {

namespace {

Expected<std::string> write(const sampleprof::Profile& profile, const ProfgenOptions& options,
                            const ProfiledBinary& binary, const LineSink& warn);

Expected<std::string> generate_cs(ProfiledBinary& binary, std::vector<CsCounter>&& counters,
                                  const ProfgenOptions& options, const LineSink& warn,
                                  const LineSink& out,
                                  std::optional<PreInlinerSizes> sizes = {}) {
  CsOptions cs = options.cs;
  cs.update_total_samples = options.generate.update_total_samples;
  cs.trim_cold_profile = options.post.trim_cold_profile;
  // The pre-inliner's decisions would be undone by merging: merging is on by default only
  // without it.
  if (cs.preinliner && !options.merge_cold_context_given) cs.merge_cold_context = false;
  sampleprof::Profile profile =
      generate_context_sensitive(binary, std::move(counters), cs, options.post, warn,
                                 std::move(sizes));
  post_process_cs(profile, cs, options.post, warn, out);
  return write(profile, options, binary, warn);
}

// The unsymbolized profile of context counters.
std::string write_context_counters(const std::vector<CsCounter>& counters,
                                   const ProfiledBinary& binary, OffsetBase base) {
  std::vector<ContextCounter> out;
  for (const auto& c : counters) out.push_back(ContextCounter{context_text(c, binary, base), c.counter});
  return write_unsymbolized(out, true, binary, base);
}

// A context of an unsymbolized profile: "0xOFF @ 0xOFF" (call addresses, probe binaries;
// llvm-profgen 22 crashes on these) or "main:2.2 @ top:0 @ leaf" (source frames).
Expected<void> parse_context(std::string_view text, const ProfiledBinary& binary,
                             OffsetBase base, std::deque<std::string>& names, CsCounter& out) {
  const uint64_t origin = offset_origin(binary, base);
  while (!text.empty()) {
    const size_t at = text.find(" @ ");
    const std::string_view frame = text.substr(0, at);
    text = at == std::string_view::npos ? std::string_view() : text.substr(at + 3);
    if (binary.uses_probes()) {
      uint64_t a = 0;
      if (frame.substr(0, 2) != "0x" || !parse_unsigned(frame.substr(2), 16, a))
        return Unexpected{Error{ErrorCode::malformed, kNoOffset,
                                "expected a context of call addresses (0xHEX @ 0xHEX), got \"" +
                                    std::string(frame) + "\""}};
      out.addresses.push_back(a + origin);
      continue;
    }
    // name[:line[.discriminator]], the numbers as LLVM reads them (a bad one counts 0).
    const size_t colon = frame.find(':');
    sampleprof::Frame f;
    f.name = sampleprof::FunctionId(names.emplace_back(frame.substr(0, colon)));
    if (colon != std::string_view::npos) {
      const std::string_view loc = frame.substr(colon + 1);
      const size_t dot = loc.find('.');
      uint64_t line = 0, disc = 0;
      if (parse_unsigned(loc.substr(0, dot), 10, line)) f.location.line = static_cast<uint32_t>(line);
      if (dot != std::string_view::npos && parse_unsigned(loc.substr(dot + 1), 10, disc))
        f.location.discriminator = static_cast<uint32_t>(disc);
    }
    out.frames.push_back(f);
  }
  return {};
}

}  // namespace

Expected<std::string> run_profgen(const ProfgenOptions& options, const LineSink& warn,
                                  const LineSink& out, std::string* failing_input) {
  *failing_input = options.binary;
  std::deque<std::string> names;  // function names read from an unsymbolized profile
  LoadOptions load;
  load.use_dwarf_correlation = options.use_dwarf_correlation;
  PROFKIT_TRY_ASSIGN(auto binary, ProfiledBinary::load(options.binary, load, warn));
  release_free_memory();  // the decoders' temporary buffers

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
    if (raw.context_sensitive) {
      std::vector<CsCounter> counters;
      for (auto& c : raw.counters) {
        CsCounter cs;
        PROFKIT_TRY(parse_context(c.context, *binary, base, names, cs));
        cs.counter = std::move(c.counter);
        counters.push_back(std::move(cs));
      }
      *failing_input = options.binary;
      return generate_cs(*binary, std::move(counters), options, warn, out);
    }
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
      PROFKIT_TRY_ASSIGN(file, MappedFile::open(options.perfscript, MappedFile::Access::some));
      const Bytes bytes = file->bytes();
      text = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    ScriptOptions so;
    so.pid = options.pid;
    so.ignore_stack_samples = options.ignore_stack_samples;
    so.show_mmap_events = options.show_mmap_events;
    PROFKIT_TRY_ASSIGN(const ScriptKind kind, detect_script_kind(text));
    const bool context_sensitive = kind == ScriptKind::hybrid && !options.ignore_stack_samples;
    RangeChecks checks;
    SampleCounter lbr_counts;
    UnwindStats stats;
    std::optional<ContextUnwinder> unwinder;
    std::optional<IpEstimator> ip;
    if (context_sensitive) unwinder.emplace(*binary, options.cs.context, stats);
    // Without branch stacks, call stacks give contexts as they do with them.
    const bool ip_contexts = kind == ScriptKind::ip_only && !options.ignore_stack_samples;
    if (kind == ScriptKind::ip_only) ip.emplace(*binary, ip_contexts);
    const BatchSink sink = [&](const std::vector<AggregatedSample>& samples,
                               const std::vector<bool>& first) {
      if (ip) {
        ip->add(samples);
        return;
      }
      checks.add(samples);
      if (unwinder) unwinder->add(samples, first);
      else add_lbr_samples(samples, *binary, lbr_counts);
    };
    // Pages of the script already read leave memory: a script may be larger than it.
    const std::function<void(uint64_t)> consumed = [&](uint64_t n) {
      if (file) file->drop_pages(0, n);
    };
    PROFKIT_TRY_ASSIGN(ParsedScript script,
                       read_perf_script(text, kind, *binary, so, warn, out, sink, consumed));
    warn_summary(warn, script.leaf_external_frames, script.total_samples,
                 "of samples have leaf external frame in call stack.");
    warn_summary(warn, script.invalid_return_addresses.size(), script.unique_samples,
                 "of truncated stack samples due to invalid return address, likely caused by "
                 "frame pointer omission.");
    if (context_sensitive) {
      checks.warn(*binary, warn);
      checks = RangeChecks{};  // its table of ranges leaves memory before the profiles grow
      // The pre-inliner's sizes are all a probe binary's line tables serve: made now, the
      // tables leave memory before the counts become maps (which would be the peak with
      // them). Their warnings keep their place, after the unwinder's.
      std::optional<PreInlinerSizes> sizes;
      std::vector<std::string> size_warnings;
      if (!options.skip_symbolization && options.cs.preinliner && binary->uses_probes()) {
        std::set<uint32_t> profiled;
        unwinder->profiled_functions(profiled);
        sizes.emplace(*binary, profiled, options.cs.preinliner_options,
                      [&](std::string_view w) { size_warnings.emplace_back(w); });
        binary->drop_line_info();
        release_free_memory();
      }
      std::vector<CsCounter> counters = unwinder->take();
      unwinder.reset();  // its index of contexts and buffers leave memory before the profiles grow
      release_free_memory();
      warn_unwind(stats, counters.size(), warn);
      for (const std::string& w : size_warnings) warn(w);
      if (options.skip_symbolization) return write_context_counters(counters, *binary, base);
      *failing_input = options.binary;
      return generate_cs(*binary, std::move(counters), options, warn, out, std::move(sizes));
    }
    if (script.kind == ScriptKind::ip_only) {
      warn("no branch stacks in " + input +
           ": estimating block and call counts from the sampled addresses and call stacks "
           "(see docs/profgen.md)");
      if (ip_contexts) {
        std::vector<CsCounter> counters = ip->finish_contexts(options.cs.context);
        ip.reset();
        if (options.skip_symbolization) return write_context_counters(counters, *binary, base);
        *failing_input = options.binary;
        return generate_cs(*binary, std::move(counters), options, warn, out);
      }
      counter = ip->finish();
    } else {
      checks.warn(*binary, warn);
      counter = std::move(lbr_counts);
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
