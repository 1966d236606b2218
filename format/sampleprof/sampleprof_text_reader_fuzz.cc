// Property: read_text never crashes, hangs or reads past its input; a profile it accepts is
// written as text, and rewriting what the text reads back reaches a fixed point within a few
// rounds. It may take more than one: a file mixing CS and plain headers is written all as
// contexts, and a leaf frame's location (kept as read) is not printed, so such profiles merge
// in later rounds. Exceptions, as in LLVM: an inlinee of a CS profile is written as
// "[name]", which reads back as a name with brackets, one more pair per round; and vtable
// counts at a location with both a body line and inlinees are written twice (after each),
// so they double per round; a context frame with an empty name loses a frame per round (a
// trailing " @ " splits off nothing).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/sampleprof/text_reader.h"
#include "format/sampleprof/writer.h"

namespace {
bool has_vtables(const profkit::sampleprof::FunctionSamples& f) {
  if (!f.vtables.empty()) return true;
  for (const auto& [loc, callees] : f.callsites)
    for (const auto& [name, inlinee] : callees)
      if (has_vtables(inlinee)) return true;
  return false;
}

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
  std::string text = text_of(*profile);
  for (int round = 0; round < 5; ++round) {
    auto again = sampleprof::read_text(as_bytes(text));
    if (!again) return 0;  // e.g. a count that only overflows once totals are summed
    for (const auto& [key, f] : again->functions) {
      if ((again->is_cs && !f.callsites.empty()) || has_vtables(f)) return 0;
      for (const auto& frame : f.context)
        if (frame.name.empty()) return 0;
    }
    std::string next = text_of(*again);
    if (next == text) return 0;
    text = std::move(next);
  }
  std::abort();  // no fixed point after five rounds
}
