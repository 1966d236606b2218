// Per-context MIBs: the table one thread (or a dump) merges blocks into (mib.cc).
#pragma once

#include "format/memprof/raw_layout.h"
#include "runtime/base.h"

namespace profkit::rt {

using memprof::MemInfoBlock;
struct ChunkHeader;

struct MibEntry {
  uint32_t context_id;  // 0 = empty slot
  uint32_t pad;
  MemInfoBlock mib;
};

// Per-context MIBs of one thread (or of a dump's scratch table). Context ids are small
// dense integers (stack depot ids), so lookup is a direct two-level index, id -> position,
// with no hashing or probing; entries are dense in insertion order and grow with mremap,
// so growth never copies them.
inline constexpr uint32_t kMaxContextIds = 1u << 22;
inline constexpr uint32_t kIndexChunkBits = 12;
struct MibTable {
  MibEntry* entries = nullptr;  // [0, size) in use; every slot up to capacity is valid
  uint32_t capacity = 0;
  uint32_t size = 0;
  uint32_t** index = nullptr;   // kMaxContextIds >> kIndexChunkBits chunks of position + 1
};


// Builds the MIB of one block "as if freed now" and merges it into `table`.
void record_block(MibTable* table, const ChunkHeader* header, uintptr_t user, uint32_t dealloc_ts,
                  uint32_t dealloc_cpu);
// Merges an aggregated MIB (and its histogram) into `table`.
void merge_aggregate(MibTable* table, uint32_t context_id, const MemInfoBlock& mib);
MibEntry* table_find_or_insert(MibTable* table, uint32_t context_id, bool* inserted);
void table_clear(MibTable* table);  // drops entries, frees histograms
void table_release(MibTable* table);
uint64_t table_bytes();  // entry arrays of every table (the runtime's own memory)

}  // namespace profkit::rt
