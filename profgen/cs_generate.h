// Context-sensitive profiles from unwound hybrid samples (docs/profgen.md,
// "Context-sensitive profiles"): a trie of calling contexts with a profile per context,
// filled from each context's ranges and branches (line-based: source lines; probe-based:
// pseudo probes, with tail-call frames inferred), then flattened into a CS profile, cold
// contexts merged into base profiles, and nested into ordinary profiles.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "format/sampleprof/profile.h"
#include "profgen/binary.h"
#include "profgen/generate.h"
#include "profgen/preinliner.h"
#include "profgen/unwinder.h"

namespace profkit::profgen {

struct CsOptions {
  ContextOptions context;
  bool infer_missing_frames = true;      // --infer-missing-frames
  uint32_t max_search_depth = UINT32_MAX - 1;  // --max-search-depth
  bool update_total_samples = false;     // --update-total-samples
  // Post-processing.
  bool trim_cold_profile = false;        // --trim-cold-profile
  bool merge_cold_context = true;        // --csprof-merge-cold-context (resolved by caller)
  uint32_t max_cold_context_depth = 1;   // --csprof-max-cold-context-depth
  bool nested = true;                    // --gen-cs-nested-profile
  bool preinliner = true;                // --csspgo-preinliner
  PreInlinerOptions preinliner_options;
};

// The CS profile of `counters`, in llvm-profgen's order of contexts (a depth-first walk of
// the context trie), before post-processing.
// With the pre-inliner on, it has run (thresholds from `post`'s summary options). The
// counters are consumed (each is freed once used). `sizes`: the pre-inliner's, if the caller
// made them already (over the same profiled functions).
sampleprof::Profile generate_context_sensitive(ProfiledBinary& binary,
                                               std::vector<CsCounter>&& counters,
                                               const CsOptions& options,
                                               const PostProcessOptions& post,
                                               const std::function<void(std::string_view)>& warn,
                                               std::optional<PreInlinerSizes> sizes = {});

// Thresholds from the context-less summary, cold-context trimming/merging, nesting, the
// ambiguous-name filter and the density check.
void post_process_cs(sampleprof::Profile& profile, const CsOptions& options,
                     const PostProcessOptions& post,
                     const std::function<void(std::string_view)>& warn,
                     const std::function<void(std::string_view)>& out);

}  // namespace profkit::profgen
