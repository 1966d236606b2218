// Property: read_indexed_memprof never crashes, hangs or over-reads; whatever it accepts
// can be written again (v3; v4 for v4 input) and read back to the same records and the
// same data-access profile.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/memprof/indexed_reader.h"
#include "format/memprof/indexed_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::memprof;
  auto in = read_indexed_memprof(profkit::Bytes(data, size));
  if (!in) return 0;
  IndexedWriteOptions options;
  options.full_schema = true;
  if (in->version == 4) options.version = 4;  // keeps the data-access profile
  const std::string out = write_memprof_only_profile(in->data, options);
  auto again = read_indexed_memprof(profkit::as_bytes(out));
  if (!again || again->data.records.size() != in->data.records.size()) std::abort();
  if (in->version == 4 && !(again->data.data_access == in->data.data_access)) std::abort();
  return 0;
}
