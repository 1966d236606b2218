// Property: read_raw_profile never crashes, hangs or reads past its input, whatever the
// bytes; and the streaming reader (the merge fast path) accepts exactly what it accepts,
// with the same records merged, also when the same image comes three times (the later
// ones then take the bulk path: counter sections added as whole arrays).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/instrprof/merge.h"
#include "format/instrprof/raw_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::instrprof;
  const profkit::Bytes bytes(data, size);
  auto profile = read_raw_profile(bytes);
  Merger merger;
  RawReader reader;
  auto added = merger.add_raw(bytes, 1, reader);
  if (profile.has_value() != added.has_value()) std::abort();
  if (!profile) return 0;
  Merger from_profile;
  if (!from_profile.add(*profile, 1)) std::abort();
  // A second input can be refused where the first was not (an input claiming incompatible
  // kinds conflicts with itself, as in llvm-profdata): both paths must agree on that.
  for (int i = 0; i < 2; ++i) {
    const bool raw_ok = merger.add_raw(bytes, 1, reader).has_value();
    if (raw_ok != from_profile.add(*profile, 1).has_value()) std::abort();
    if (!raw_ok) return 0;
  }
  if (merger.finish().records != from_profile.finish().records) std::abort();
  return 0;
}
