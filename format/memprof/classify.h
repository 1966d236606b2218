// Whether an allocation context is cold, hot or neither, as clang 22 decides it when it
// reads the profile (docs/formats/memprof.md G.2).
#pragma once

#include "format/memprof/raw_layout.h"

namespace profkit::memprof {

// Classification of a context (G.2) with LLVM's default thresholds.
enum class AllocType { not_cold, cold, hot };
struct ClassifyOptions {
  float lifetime_access_density_cold_threshold = 0.05f;
  unsigned ave_lifetime_cold_threshold_s = 200;
  unsigned min_ave_lifetime_access_density_hot_threshold = 1000;
  bool use_hot_hints = false;
};
AllocType classify(const MemInfoBlock& mib, const ClassifyOptions& options = {});

}  // namespace profkit::memprof
