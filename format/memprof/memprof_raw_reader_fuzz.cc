// Property: read_raw_profiles and merge_raw_profiles never crash, hang or read outside the
// input, whatever the bytes; on success every MIB has a stack.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/memprof/raw_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profiles = profkit::memprof::read_raw_profiles(profkit::Bytes(data, size));
  if (!profiles) return 0;
  auto merged = profkit::memprof::merge_raw_profiles(std::move(*profiles));
  if (!merged) return 0;
  if (merged->mib_stack.size() != merged->mibs.size()) std::abort();
  for (size_t i : merged->mib_stack)
    if (i >= merged->stacks.size()) std::abort();
  return 0;
}
