// Property: read_profile never crashes, hangs or reads past its input on binary and
// extbinary data (and anything else); a profile it accepts survives extbinary and binary
// round trips: from the second round on, writing and reading back changes nothing. The
// writer may refuse a profile (a line offset the binary formats cannot hold), never write
// one it cannot read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "format/sampleprof/reader.h"
#include "format/sampleprof/writer.h"

namespace {
using namespace profkit;
std::optional<std::string> write(const sampleprof::Profile& p, sampleprof::Format f) {
  sampleprof::WriteOptions o;
  o.format = f;
  o.compress_all_sections = true;
  auto bytes = sampleprof::write_profile(p, o);
  if (!bytes) return std::nullopt;
  return *bytes;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profile = sampleprof::read_profile(Bytes(data, size));
  if (!profile) return 0;
  const sampleprof::Format f = profile->is_cs || profile->is_probe_based
                                   ? sampleprof::Format::extbinary
                                   : sampleprof::Format::binary;
  for (sampleprof::Format out : {sampleprof::Format::extbinary, f}) {
    const auto once = write(*profile, out);
    if (!once) continue;
    auto again = sampleprof::read_profile(as_bytes(*once));
    if (!again) std::abort();  // what we write, we read
    const auto twice = write(*again, out);
    if (!twice) std::abort();
    auto third = sampleprof::read_profile(as_bytes(*twice));
    if (!third || write(*third, out) != twice) std::abort();
  }
  return 0;
}
