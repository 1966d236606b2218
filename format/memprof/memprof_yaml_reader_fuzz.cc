// Property: read_memprof_yaml never crashes, hangs or over-reads; what it accepts can be
// written as an indexed section and read back with the same number of records.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/memprof/indexed_reader.h"
#include "format/memprof/indexed_writer.h"
#include "format/memprof/yaml_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit::memprof;
  if (size > 1 << 16) return 0;  // deep or huge documents only exhaust resources
  auto in = read_memprof_yaml(profkit::Bytes(data, size));
  if (!in) return 0;
  IndexedWriteOptions options;
  options.version = 4;
  const std::string out = write_memprof_only_profile(in->data, options);
  auto again = read_indexed_memprof(profkit::as_bytes(out));
  if (!again || again->data.records.size() != in->data.records.size()) std::abort();
  if (!(again->data.data_access == in->data.data_access)) std::abort();
  return 0;
}
