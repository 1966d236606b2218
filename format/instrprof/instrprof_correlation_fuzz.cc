// Property: correlate_binary never crashes, hangs or reads past its input, whatever the
// bytes, and gives the same result twice (it keeps no state between calls).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/instrprof/correlation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::instrprof;
  const profkit::Bytes bytes(data, size);
  CorrelationWarnings quiet(0, {});
  auto first = correlate_binary(bytes, quiet);
  auto second = correlate_binary(bytes, quiet);
  if (first.has_value() != second.has_value()) std::abort();
  if (!first) return 0;
  if (first->names_blob != second->names_blob ||
      first->functions.size() != second->functions.size())
    std::abort();
  for (size_t i = 0; i < first->functions.size(); ++i) {
    const CorrelatedFunction& a = first->functions[i];
    const CorrelatedFunction& b = second->functions[i];
    if (a.name_ref != b.name_ref || a.hash != b.hash || a.counter_offset != b.counter_offset ||
        a.num_counters != b.num_counters)
      std::abort();
  }
  return 0;
}
