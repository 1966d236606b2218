// Small blocks: size classes, the chunk header before every user pointer, and the
// per-thread free lists with batched cross-thread frees (heap.cc).
#pragma once

#include <atomic>

#include "runtime/base.h"

namespace profkit::rt {

struct ThreadState;
struct MibTable;
struct ChunkHeader;

// Size classes by slot stride (header + user bytes). Larger or over-aligned blocks go to
// glibc. The strides up to 1 KiB depend on the run's layout (HeapLayout below); above it
// they are the same in both: four steps per doubling up to 32 KiB (classes 16..35).
inline constexpr uint32_t kHeapClasses = 36;
inline constexpr uint64_t kHeapMaxStride = 32768;
// Detached classes kHeapClasses.. (granular layout only): strides 64..1024 of user bytes
// only, for blocks whose header does not fit in the slack of their last 64-byte granule
// (sizes 33-64, 97-128, ..., a multiple of 64 or up to 31 bytes below one). In front of
// the user pointer, as in the classes above, the header would cost a whole granule more: a
// 56-byte block took a 128-byte slot (a Lua table), now 64 bytes plus a 32-byte header in
// an array at the start of its span. Detached spans are kDetachedSpan bytes, aligned to
// that, in a region of their own, so a user pointer finds its header by its address alone
// (header_of).
// The last two (strides 2048 and 4096, from kHeapAlignedOnlyClasses on) hold only blocks
// of that alignment (heap_aligned_class).
inline constexpr uint32_t kHeapDetachedClasses = 18;
inline constexpr uint32_t kHeapAllClasses = kHeapClasses + kHeapDetachedClasses;
inline constexpr uint32_t kHeapAlignedOnlyClasses = kHeapClasses + 16;
inline constexpr uint64_t kDetachedSpan = 64 << 10;
inline constexpr uint64_t kGeometricStrideFrom = 1024;  // strides above: four per doubling
inline constexpr uint32_t kDenseSmallClasses = 30;
inline constexpr uint32_t kDenseDetachedFrom = kHeapClasses + kDenseSmallClasses - 16;
inline constexpr uint32_t kDenseDetachedClasses = 4;
static_assert(kDenseDetachedFrom + kDenseDetachedClasses == kHeapAllClasses);

// Where small blocks sit, one layout for the whole run, chosen at start-up
// (heap_layout_init) before anything is tracked.
// - Granular (instrumented code, or histogram mode): user pointers 64-byte aligned, so no
//   two live blocks share a shadow granule and every access count is exact. Strides
//   64..1024 in steps of 64 (classes 0..15), the header in the slack of the previous
//   slot's last granule, and the detached classes.
// - Dense (allocation-only: nothing reads the shadow): user pointers 16-byte aligned, as
//   glibc's, with the header right in front. Strides 48..256 in steps of 16, to 512 in
//   steps of 32, to 1024 in steps of 64 (30 classes: 0..15, then 36..49 where the
//   granular layout's detached classes are, so the thread state's arrays keep their size),
//   and in the last four class numbers detached classes of 16, 32, 48 and 64 user bytes
//   for blocks of up to 64 (heap_class_for): the same bytes as the slot with the header in
//   front (a Lua closure, 40-47 bytes: 48 + 32, where the granular layout takes 96), but the
//   program's data as dense as glibc's, which a list of 24-byte nodes traversed in
//   near-allocation order needs to stay in the L1 (shapes/linked.c: 1.4 s against glibc's
//   0.08 s with 64-byte slots).
struct HeapLayout {
  uint32_t stride[kHeapAllClasses];    // slot stride by class (0 for a class not in use)
  uint8_t class_of[kGeometricStrideFrom / 16 + 1];  // (need + 15) / 16 -> smallest class
  uint32_t first_detached;             // classes from here on are detached (kHeapAllClasses: none)
  uint32_t first_header;               // span start -> first slot's header
  uint32_t min_alignment;              // of every user pointer
};

constexpr uint64_t heap_geometric_stride(uint32_t cls) {
  const uint32_t p = 10 + (cls - 16) / 4;
  return (uint64_t{1} << p) + uint64_t{(cls - 16) % 4 + 1} * (uint64_t{1} << (p - 2));
}
constexpr HeapLayout make_heap_layout(bool dense) {
  HeapLayout l{};
  // Dense: 16 bytes more than the power-of-two multiples, so a slot's offset modulo 4 KiB
  // moves from slot to slot and the same field of consecutive blocks (a page cache's
  // headers) falls in different L1 sets; at 5 120 bytes (SQLite's 4 368-byte pages) it
  // took 4 offsets.
  for (uint32_t cls = 16; cls < kHeapClasses; ++cls)
    l.stride[cls] = static_cast<uint32_t>(heap_geometric_stride(cls)) + (dense ? 16 : 0);
  if (!dense) {
    for (uint32_t cls = 0; cls < 16; ++cls) l.stride[cls] = 64 * (cls + 1);
    for (uint32_t cls = kHeapClasses; cls < kHeapAlignedOnlyClasses; ++cls)
      l.stride[cls] = 64 * (cls - kHeapClasses + 1);
    l.stride[kHeapAlignedOnlyClasses] = 2048;
    l.stride[kHeapAlignedOnlyClasses + 1] = 4096;
    l.first_detached = kHeapClasses;
    l.first_header = 64 - 32;  // the user pointer at 64 (32 = sizeof(ChunkHeader))
    l.min_alignment = 64;
  } else {
    uint32_t stride = 48;
    for (uint32_t i = 0; i < kDenseSmallClasses; ++i) {
      l.stride[i < 16 ? i : kHeapClasses + i - 16] = stride;
      stride += stride < 256 ? 16 : stride < 512 ? 32 : 64;
    }
    // Detached classes of 16-64 user bytes in the four class numbers the dense classes
    // leave (heap_class_for).
    for (uint32_t i = 0; i < kDenseDetachedClasses; ++i) l.stride[kDenseDetachedFrom + i] = 16 * (i + 1);
    l.first_detached = kDenseDetachedFrom;
    l.first_header = 0;
    l.min_alignment = 16;
  }
  for (uint32_t i = 0; i <= kGeometricStrideFrom / 16; ++i) {
    uint32_t best = 0;
    for (uint32_t cls = 0; cls < l.first_detached; ++cls)
      if (l.stride[cls] != 0 && l.stride[cls] >= 16 * i && (l.stride[best] < 16 * i || l.stride[cls] < l.stride[best])) best = cls;
    l.class_of[i] = static_cast<uint8_t>(best);
  }
  return l;
}
inline constexpr HeapLayout kGranularLayout = make_heap_layout(false);
inline constexpr HeapLayout kDenseLayout = make_heap_layout(true);
// The run's layout: granular until heap_layout_init says otherwise.
PROFKIT_RT_HIDDEN extern HeapLayout g_heap_layout;
// Chooses the layout (the runtime's start-up, before anything is tracked).
inline void heap_layout_init(bool dense) { g_heap_layout = dense ? kDenseLayout : kGranularLayout; }

// The granular layout (instrumented runs), whose detached classes follow the inline ones;
// the dense layout's start at kDenseDetachedFrom.
inline bool heap_granular(const HeapLayout& l) { return l.first_detached == kHeapClasses; }
inline uint64_t heap_stride(const HeapLayout& l, uint32_t cls) { return l.stride[cls]; }
inline uint64_t heap_stride(uint32_t cls) { return heap_stride(g_heap_layout, cls); }
// Class of a slot holding `need` bytes (header included), 0 < need <= kHeapMaxStride.
inline uint32_t heap_class_of(const HeapLayout& l, uint64_t need) {
  if (need <= kGeometricStrideFrom) return l.class_of[(need + 15) / 16];
  const uint64_t n = need - 1;
  const uint32_t p = 63 - static_cast<uint32_t>(__builtin_clzll(n));
  return 16 + 4 * (p - 10) + static_cast<uint32_t>((n >> (p - 2)) & 3);
}
inline uint32_t heap_class_of(uint64_t need) { return heap_class_of(g_heap_layout, need); }
inline bool heap_detached_class(uint32_t cls) { return cls >= g_heap_layout.first_detached; }

// One size class of one thread state. `free` is touched by the owner only (under its
// lock); `remote` lives in a separate array so other threads' pushes do not share its
// cache lines.
struct HeapClass {
  ChunkHeader* free = nullptr;
  uintptr_t bump = 0, bump_end = 0;  // uncarved slots of the current span
};
struct alignas(64) HeapRemote {
  std::atomic<ChunkHeader*> head{nullptr};
};
// Blocks this thread freed for another owner, gathered so they go back as one chain: one
// compare-and-swap on the owner's list head, a line both threads write, per batch instead
// of per block. A batch is at most kRemoteBatch blocks and kRemoteBatchBytes (but at least
// one block), so a thread holds back under kHeapClasses * kRemoteBatchBytes (288 KiB) of
// other threads' memory.
struct RemoteBatch {
  ChunkHeader* head = nullptr;
  ChunkHeader* tail = nullptr;
  uint32_t owner = 0;
  uint32_t count = 0;
};
inline constexpr uint32_t kRemoteBatch = 32;
inline constexpr uint32_t kRemoteBatchBytes = 8 << 10;

// 32 bytes immediately before every user pointer (or, in a detached class, in its span's
// header array). In the granular layout user pointers are 64-byte aligned, so no two live
// blocks share a 64-byte shadow granule (the header of the next block may share the last
// granule, but instrumented code never touches headers).
struct ChunkHeader {
  uint64_t size;          // requested size
  uint32_t context_id;    // stack depot id; 0 = untracked
  uint32_t cpu;           // low 16 bits: sched_getcpu() at allocation; high: fork generation
  uint32_t timestamp_ms;  // allocation time (A.7.1)
  uint32_t owner;         // thread-state index holding the slot
  uint32_t slot;          // slot index in the owner's table
  uint32_t origin;        // kSmallBlock | size class, or (user pointer - glibc block) / 16
};
static_assert(sizeof(ChunkHeader) == 32);
inline constexpr uint32_t kCpuBits = 0xffff;
// ChunkHeader::cpu for a block allocated now on `cpu` by a process of `generation`.
inline uint32_t header_cpu(uint32_t cpu, uint32_t generation) {
  return (cpu & kCpuBits) | (generation << 16);
}
// True for a block this process allocated (not one inherited from the parent at fork).
inline bool own_block(const ChunkHeader* header, uint32_t generation) {
  return (header->cpu >> 16) == (generation & 0xffff);
}
inline constexpr uintptr_t kChunkAlignment = 64;  // the granular layout's (and sampled big blocks')
inline constexpr uint32_t kSmallBlock = 1u << 31;  // ChunkHeader::origin: heap.cc block

// heap.cc. A freed small block links to the next through its header's `size` field.
inline ChunkHeader* heap_next(const ChunkHeader* block) {
  return reinterpret_cast<ChunkHeader*>(block->size);
}
inline void heap_set_next(ChunkHeader* block, ChunkHeader* next) {
  block->size = reinterpret_cast<uintptr_t>(next);
}
// A slot of class `cls` for `state` (its lock held): its free list, else what other
// threads freed, else a new slot. nullptr when no memory is left.
ChunkHeader* heap_take(ThreadState* state, uint32_t cls);
// Returns a block to its owner's free list of its class (the owner's lock held).
inline void heap_give(HeapClass& list, ChunkHeader* block) {
  heap_set_next(block, list.free);
  list.free = block;
}
// Returns a block freed by another thread (no lock needed).
void heap_give_remote(ThreadState* owner, uint32_t cls, ChunkHeader* block);
// Gathers a block that thread state `self` (its lock held) frees for the state with index
// `owner`; the gathered blocks go back when a batch is full, when a block of another owner
// arrives, or on heap_flush_remote. (An index, not the owner's state: reading that would
// share a line with the owner's lock.)
void heap_give_remote_batched(ThreadState* self, uint32_t owner, uint32_t cls,
                              ChunkHeader* block);
// Hands back everything `self` (its lock held) has gathered.
void heap_flush_remote(ThreadState* self);
// Records every live tracked small block "as if freed now" into `table` (a dump, with
// every thread state locked), stopping once `at_most` are found: the caller's count of
// live tracked blocks, which is never below the true one.
void heap_record_live(MibTable* table, uint32_t dealloc_ts, uint32_t dealloc_cpu,
                      uint64_t at_most);
void heap_lock_for_fork();
void heap_unlock_after_fork(bool child);

// The heap map: one bit per 64 KiB of address space, set for every range that holds or held a
// tracked block (span reservations, detached spans, and glibc blocks as they are tracked) and
// never cleared. The libc replacements count accesses only where it is set: no profile ever
// reads the shadow counters of other memory (stacks, string literals, globals), and counting
// there cost as much as counting the heap, more where threads shared the literals' counters.
// nullptr until the first mark, and for good when it could not be reserved: everything is
// counted then. Only instrumented programs keep it (g.count_libc_accesses).
inline constexpr uint32_t kHeapMapShift = 16;
PROFKIT_RT_HIDDEN extern std::atomic<uint8_t*> g_heap_map;
// False only for an address no tracked block ever held.
inline bool heap_may_hold(uintptr_t addr) {
  const uint8_t* map = g_heap_map.load(std::memory_order_relaxed);
  if (map == nullptr || (addr >> 47) != 0) return true;
  const uintptr_t unit = addr >> kHeapMapShift;
  return (__atomic_load_n(map + (unit >> 3), __ATOMIC_RELAXED) >> (unit & 7)) & 1;
}
// Marks [begin, end) before a block in it is handed out.
void heap_map_mark(uintptr_t begin, uintptr_t end);

// The detached spans' region [begin, begin + size), reserved on the first detached span
// (size 0 until then). A block in it was handed out after the reservation was published
// (under the span lock), so any thread holding the block sees the region.
extern std::atomic<uintptr_t> g_detached_begin;
extern std::atomic<uintptr_t> g_detached_size;
// A detached span's first 64 bytes; the headers follow, one per slot, then (at `first`,
// the span's end minus count slots) the slots.
struct DetachedSpan {
  uint32_t stride;
  uint32_t first;
  uint32_t count;
};
inline constexpr uintptr_t kDetachedHeaders = 64;  // offset of the header array

inline bool detached_block(uintptr_t user) {
  return user - g_detached_begin.load(std::memory_order_relaxed) <
         g_detached_size.load(std::memory_order_relaxed);
}

inline ChunkHeader* header_of(const void* p) {
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  if (PROFKIT_RT_UNLIKELY(detached_block(user))) {
    const uintptr_t span = user & ~(kDetachedSpan - 1);
    const auto* d = reinterpret_cast<const DetachedSpan*>(span);
    const uint32_t i = static_cast<uint32_t>(user - span - d->first) / d->stride;
    return reinterpret_cast<ChunkHeader*>(span + kDetachedHeaders + uint64_t{i} * sizeof(ChunkHeader));
  }
  return reinterpret_cast<ChunkHeader*>(user - sizeof(ChunkHeader));
}
// The user pointer of a small block of class `cls` from its header.
inline uintptr_t heap_user_of(const ChunkHeader* header, uint32_t cls) {
  const uintptr_t h = reinterpret_cast<uintptr_t>(header);
  if (!heap_detached_class(cls)) return h + sizeof(ChunkHeader);
  const uintptr_t span = h & ~(kDetachedSpan - 1);
  const auto* d = reinterpret_cast<const DetachedSpan*>(span);
  return span + d->first + (h - span - kDetachedHeaders) / sizeof(ChunkHeader) * d->stride;
}
// The class of a small block of `size` user bytes (small_block_fits): the detached class of
// its rounded size when that slot is smaller than the class with the header in front
// (granular), or no larger with its header (dense). `detached` is false under sampling,
// whose small blocks must lie in the sample range.
inline uint32_t heap_class_for(const HeapLayout& l, uint64_t size, bool detached) {
  const uint32_t cls = heap_class_of(l, size + sizeof(ChunkHeader));
  if (!detached || size > 1024) return cls;
  if (!heap_granular(l)) {  // dense: a slot and its header, no more bytes
    const uint64_t rounded = (size + 15) & ~uint64_t{15};
    return rounded <= 16 * kDenseDetachedClasses && rounded + sizeof(ChunkHeader) <= heap_stride(l, cls)
               ? l.first_detached + static_cast<uint32_t>(rounded / 16) - 1
               : cls;
  }
  const uint64_t rounded = (size + 63) & ~uint64_t{63};
  return rounded < heap_stride(l, cls) ? kHeapClasses + static_cast<uint32_t>(rounded / 64) - 1 : cls;
}
inline uint32_t heap_class_for(uint64_t size, bool detached) {
  return heap_class_for(g_heap_layout, size, detached);
}
// The detached class for `size` bytes at an `alignment` above the layout's (a power of
// two), or kHeapAllClasses when there is none: the layout is the dense one, or the
// size rounded up to the alignment is above 1 KiB and not the alignment itself (2 or
// 4 KiB, the two classes kept for such blocks). A detached span is 64 KiB-aligned and ends
// with its slots, so with a stride that is a multiple of the alignment (which divides
// 64 KiB) every slot starts aligned. Without it such a block is glibc's, padded by its
// alignment for the header in front; as many small over-aligned blocks came and went,
// those padded blocks drained into glibc's top chunk and were trimmed and faulted back
// every round (355 000 page faults where the plain build had 6 300).
inline uint32_t heap_aligned_class(const HeapLayout& l, uint64_t size, uintptr_t alignment) {
  if (!heap_granular(l) || alignment > 4096 || size > 4096) return kHeapAllClasses;
  const uint64_t stride = (size + alignment - 1) & ~uint64_t{alignment - 1};
  if (stride <= 1024) return kHeapClasses + static_cast<uint32_t>(stride / 64) - 1;
  if (stride == alignment) return kHeapAlignedOnlyClasses + (alignment == 4096 ? 1 : 0);
  return kHeapAllClasses;
}
inline uint32_t heap_aligned_class(uint64_t size, uintptr_t alignment) {
  return heap_aligned_class(g_heap_layout, size, alignment);
}

}  // namespace profkit::rt
