// The runtime's own memory: mmap-backed, never operator new.
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

// Never returns memory to the OS except for blocks of their own mapping. Power-of-two size
// classes with free lists, one lock (taken only on slow paths: new stacks, table growth,
// dumps). Blocks are carved from chunks of kArenaChunk bytes, 64-byte aligned; a block of
// more than half a chunk is a mapping of its own, page aligned.
inline constexpr size_t kArenaChunk = size_t{1} << 20;
inline constexpr size_t kArenaOwnMappingAbove = kArenaChunk / 2;
void* arena_alloc(size_t size);   // zeroed
void arena_free(void* p, size_t size);
void* os_map(size_t size);        // zeroed anonymous mapping, nullptr on failure
void* os_map_noreserve(size_t size);  // the same, MAP_NORESERVE (pages cost only when touched)
// Under an address-space limit (`ulimit -v`, valgrind) a large reservation fails: the
// largest of *size, *size / 8, *size / 64, ... not below `min` that can be mapped
// (MAP_NORESERVE; readable and writable, or PROT_NONE), its size in *size; nullptr if none.
void* os_map_largest(size_t* size, size_t min, bool accessible);
void os_unmap(void* p, size_t size);
// Bytes handed out and not returned (rounded to their class), and bytes of arena chunks
// mapped: the runtime's own memory, which must stay bounded (verbosity=2 prints them).
void arena_usage(uint64_t* in_use, uint64_t* chunks);
void arena_lock_for_fork();
void arena_unlock_after_fork(bool child);

}  // namespace profkit::rt
