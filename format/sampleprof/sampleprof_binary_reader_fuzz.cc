// Property: read_profile never crashes, hangs or reads past its input on binary and
// extbinary data (and anything else); a profile it accepts survives extbinary and binary
// round trips: from the second round on, writing and reading back changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/sampleprof/reader.h"
#include "format/sampleprof/writer.h"

namespace {
using namespace profkit;
std::string write(const sampleprof::Profile& p, sampleprof::Format f) {
  sampleprof::WriteOptions o;
  o.format = f;
  o.compress_all_sections = true;
  auto bytes = sampleprof::write_profile(p, o);
  return bytes ? *bytes : std::string();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profile = sampleprof::read_profile(Bytes(data, size));
  if (!profile) return 0;
  const sampleprof::Format f = profile->is_cs || profile->is_probe_based
                                   ? sampleprof::Format::extbinary
                                   : sampleprof::Format::binary;
  for (sampleprof::Format out : {sampleprof::Format::extbinary, f}) {
    const std::string once = write(*profile, out);
    auto again = sampleprof::read_profile(as_bytes(once));
    if (!again) std::abort();  // what we write, we read
    const std::string twice = write(*again, out);
    auto third = sampleprof::read_profile(as_bytes(twice));
    if (!third || write(*third, out) != twice) std::abort();
  }
  return 0;
}
