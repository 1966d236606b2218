// Shadow memory: one access counter per 64-byte granule (or one byte per 8 bytes with the
// histogram), at the dynamic address the instrumented code reads (access.cc, mib.cc).
#pragma once

#include "runtime/base.h"

extern "C" uintptr_t __memprof_shadow_memory_dynamic_address;

namespace profkit::rt {

inline uint64_t* shadow64(uintptr_t addr) {
  return reinterpret_cast<uint64_t*>(((addr & ~uintptr_t{63}) >> 3) +
                                     __memprof_shadow_memory_dynamic_address);
}
inline uint8_t* shadow8(uintptr_t addr) {
  return reinterpret_cast<uint8_t*>(((addr & ~uintptr_t{7}) >> 3) +
                                    __memprof_shadow_memory_dynamic_address);
}

void clear_shadow(uintptr_t p, uint64_t size);
uint64_t access_count(uintptr_t p, uint64_t size);
void record_range(uintptr_t addr, uint64_t size);

}  // namespace profkit::rt
