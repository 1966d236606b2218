// Cold/hot classification with clang 22's thresholds.
#include "format/memprof/classify.h"

namespace profkit::memprof {

AllocType classify(const MemInfoBlock& mib, const ClassifyOptions& options) {
  if (mib.AllocCount == 0) return AllocType::not_cold;
  const float density = static_cast<float>(mib.TotalLifetimeAccessDensity) /
                        static_cast<float>(mib.AllocCount) / 100;
  const float lifetime =
      static_cast<float>(mib.TotalLifetime) / static_cast<float>(mib.AllocCount);
  if (density < options.lifetime_access_density_cold_threshold &&
      lifetime >= static_cast<float>(options.ave_lifetime_cold_threshold_s * 1000))
    return AllocType::cold;
  if (options.use_hot_hints &&
      density > static_cast<float>(options.min_ave_lifetime_access_density_hot_threshold))
    return AllocType::hot;
  return AllocType::not_cold;
}

}  // namespace profkit::memprof
