// The CS pre-inliner (docs/profgen.md, "Pre-inlining"): decides from the profile which
// contexts the compiler should inline, keeps those as contexts and merges every other
// context into its function's base profile, as llvm-profgen does by default.
//
// Functions are visited top-down (SCCs of the profiled call graph, bottom-up, reversed;
// members of an SCC ordered by a maximum spanning tree of its hot edges). For each, its
// base profile's callee contexts are candidates, hottest first; one is inlined when its
// machine-code size is within a threshold that grows with the call count (up to 1500 x 100
// bytes, x100 again for calls the binary already inlined), until the function has grown
// to 12 times its size (clamped to [100, 50000] bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "format/sampleprof/profile.h"
#include "profgen/binary.h"
#include "profgen/context_trie.h"
#include "profgen/unwinder.h"

namespace profkit::profgen {

struct PreInlinerOptions {
  // --use-context-cost-for-preinliner=0 would size contexts by their body records;
  // llvm-profgen 22 accepts the option but its output does not change (measured), so the
  // command line leaves this on.
  bool use_context_cost = true;
  bool replay = false;                  // --csspgo-replay-preinline
  uint32_t multiplier_for_inlined = 100;  // --csspgo-preinliner-multiplier-for-previous-inlining
  uint32_t hot_callsite_threshold = 1500;  // --sample-profile-hot-inline-threshold
  uint32_t cold_callsite_threshold = 0;    // --sample-profile-cold-inline-threshold
  uint32_t limit_max = 50000;           // --sample-profile-inline-limit-max
  uint32_t limit_min = 100;             // --sample-profile-inline-limit-min
  uint32_t growth_limit = 12;           // --sample-profile-inline-growth-limit
};

// The sizes the pre-inliner compares: machine-code bytes of each inline context of the
// profiled functions, from the binary's line tables (with probes, also the contexts whose
// code was optimized away, size 0). Made apart from preinline() so that the line tables of a
// probe binary can be dropped before the profiles are built. `warn` gets llvm-profgen's
// "Invalid start instruction" warnings.
class PreInlinerSizes {
 public:
  PreInlinerSizes(ProfiledBinary& binary, const std::set<uint32_t>& profiled,
                  const PreInlinerOptions& options,
                  const std::function<void(std::string_view)>& warn);
  PreInlinerSizes(PreInlinerSizes&&) noexcept;
  PreInlinerSizes& operator=(PreInlinerSizes&&) noexcept;
  ~PreInlinerSizes();

 private:
  friend void preinline(Trie&, PreInlinerSizes&, uint64_t, uint64_t, const PreInlinerOptions&);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs the pre-inliner on `trie`. `cold` is the cold count threshold, `ten_percent` the
// minimum count at the 10% cutoff of the (context-less) summary, `sizes` made over the
// `profiled` functions (indices into binary.functions(): those with samples).
void preinline(Trie& trie, PreInlinerSizes& sizes, uint64_t cold, uint64_t ten_percent,
               const PreInlinerOptions& options);

}  // namespace profkit::profgen
