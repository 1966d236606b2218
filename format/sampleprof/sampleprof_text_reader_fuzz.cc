// Property: read_text never crashes, hangs or reads past its input; a profile it accepts is
// written as text, and from the second round on writing what the text reads back gives the
// same text (the first round may change a file that mixes CS and plain headers, which the
// writer prints all as contexts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/sampleprof/text_reader.h"
#include "format/sampleprof/writer.h"

namespace {
std::string text_of(const profkit::sampleprof::Profile& p) {
  profkit::sampleprof::WriteOptions o;
  o.format = profkit::sampleprof::Format::text;
  return *profkit::sampleprof::write_profile(p, o);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit;
  auto profile = sampleprof::read_text(Bytes(data, size));
  if (!profile) return 0;
  const std::string once = text_of(*profile);
  auto again = sampleprof::read_text(as_bytes(once));
  if (!again) return 0;  // e.g. a count that only overflows once totals are summed
  const std::string twice = text_of(*again);
  auto third = sampleprof::read_text(as_bytes(twice));
  if (!third || text_of(*third) != twice) std::abort();
  return 0;
}
