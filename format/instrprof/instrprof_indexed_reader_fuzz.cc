// Property: read_indexed_profile never crashes, hangs or reads past its input, whatever the
// bytes; a profile it accepts can be written as text, and that text reads back with the
// same number of records (minus merges of equal name+hash, which the text reader folds).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/instrprof/indexed_reader.h"
#include "format/instrprof/text_reader.h"
#include "format/instrprof/text_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::instrprof;
  auto profile = read_indexed_profile(profkit::Bytes(data, size));
  if (!profile) return 0;
  const std::string text = write_text_profile(*profile);
  auto back = read_text_profile(text);
  // Names may contain newlines or look like numbers, so the text need not read back; when
  // it does, it cannot hold more records than we wrote.
  if (back && back->records.size() > profile->records.size()) std::abort();
  return 0;
}
