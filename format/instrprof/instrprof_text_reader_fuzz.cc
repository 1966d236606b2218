// Property: read_text_profile never crashes, hangs or reads past its input; a profile it
// accepts is written as text, and writing what that text reads back gives the same text
// again (the writer's output is a fixed point). Exception, as in LLVM: a temporal trace
// with no known names prints as an empty line, which readers skip as blank; and a name ending
// in '\r' loses one '\r' per round, since a line's "\r\n" ending is read as "\n" (LLVM's
// line iterator does the same).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "format/instrprof/text_reader.h"
#include "format/instrprof/text_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::instrprof;
  auto profile = read_text_profile(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!profile) return 0;
  const std::string once = write_text_profile(*profile);
  auto again = read_text_profile(once);
  if (!again) return 0;
  for (const auto& trace : again->traces)
    if (trace.function_refs.empty()) return 0;
  for (const auto& record : again->records)
    if (record.name.ends_with('\r')) return 0;
  const std::string twice = write_text_profile(*again);
  auto third = read_text_profile(twice);
  if (!third || write_text_profile(*third) != twice) std::abort();
  return 0;
}
