// Sample profiles from counted ranges and branches (docs/profgen.md, "Generating
// profiles"), and the steps llvm-profgen runs on a profile before writing it (summary
// thresholds, cold trimming, the ambiguous-name filter, the density check).
#pragma once

#include <cstdint>
#include <optional>

#include "format/sampleprof/profile.h"
#include "profgen/binary.h"
#include "profgen/counter.h"

namespace profkit::profgen {

struct GenerateOptions {
  bool fill_zero_for_all_funcs = false;  // zero-fill every function, not only sampled ones
  bool update_total_samples = false;     // totals := body counts + inlinee totals
};

// The context-insensitive profile of `counter`: line-based (AutoFDO: per source line the
// largest per-instruction count, totals in bytes x count, head samples from calls into the
// function) or, for a binary with pseudo probes, probe-based (per probe the count of its
// block, checksums from the probe descriptors). Names point into `binary`.
sampleprof::Profile generate_context_insensitive(ProfiledBinary& binary,
                                                 const SampleCounter& counter,
                                                 const GenerateOptions& options);

struct PostProcessOptions {
  bool trim_cold_profile = false;          // drop profiles below the cold threshold
  std::optional<uint64_t> hot_count;       // --profile-summary-hot-count
  std::optional<uint64_t> cold_count;      // --profile-summary-cold-count
  uint32_t cutoff_hot = 990000;            // --profile-summary-cutoff-hot
  uint32_t cutoff_cold = 999999;           // --profile-summary-cutoff-cold
  double density_threshold = 50;           // --profile-density-threshold
  int32_t density_cutoff_hot = 990000;     // --profile-density-cutoff-hot
  bool show_density = false;               // --show-density
};

// Summary thresholds, cold trimming, removal of __cxx_global_var_init / __tls_init copies,
// and the density warning (to `warn`; --show-density's line to `out`).
void post_process(sampleprof::Profile& profile, const PostProcessOptions& options,
                  const std::function<void(std::string_view)>& warn,
                  const std::function<void(std::string_view)>& out);

// Pieces the context-sensitive generator shares:
// the inline context of a probe, its own frame (function, probe index) last, appended to
// `out`; a frame at an unknown call site (index 0) drops everything above it, `out`'s callers too;
void append_probe_frames(const probe::ProbeMap& map, const probe::Probe& p,
                         std::vector<sampleprof::Frame>& out);
// a saturating add (LLVM's counters stop at the largest value);
void add_saturating(uint64_t& into, uint64_t n);
// a call's line counts at least its call targets (body records only, not inlinees);
void update_callsite_samples(sampleprof::FunctionSamples& f);
// total samples := body counts plus inlinee totals, recursively (--update-total-samples);
uint64_t update_total_samples(sampleprof::FunctionSamples& f);
// overlapping ranges cut into disjoint pieces carrying the sums of the counts over them
// (zero-count ranges keep the gaps they cover as zero pieces);
RangeCounts make_disjoint(const RangeCounts& ranges);
// the removal of __cxx_global_var_init* / __tls_init* profiles and inlinees;
void filter_ambiguous_profiles(sampleprof::Profile& profile);
// the minimum count at `cutoff` (per million) of a summary;
uint64_t summary_threshold(const sampleprof::Summary& summary, uint32_t cutoff);
// the density warning and --show-density.
void check_density(const sampleprof::Profile& profile, const PostProcessOptions& options,
                   const std::function<void(std::string_view)>& warn,
                   const std::function<void(std::string_view)>& out);

}  // namespace profkit::profgen
