// The runtime's own allocator for small blocks: size classes of 64-byte strides carved from
// spans, one free list per class and thread state, and a lock-free remote list per class for
// blocks freed by other threads, which those threads fill a batch at a time. docs/runtime.md
// ("Allocator underneath") says why.
//
// Slot layout (heap.h, HeapLayout): a span starts page aligned. Granular: slot i's 32-byte
// header sits at span + 32 + i * stride and its user memory at span + 64 + i * stride, so
// every user pointer is 64-byte aligned and a block's last shadow granule is shared only
// with the next block's header, which instrumented code never touches. Dense: the header
// at span + i * stride, the user memory right after it (16-byte aligned).
#include <sys/mman.h>

#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/mib_table.h"
#include "runtime/sample.h"
#include "runtime/spin_lock.h"
#include "runtime/thread_state.h"

namespace profkit::rt {
namespace {

// Spans come from 64 MiB reservations (MAP_NORESERVE: only touched pages cost memory).
constexpr size_t kReservation = size_t{64} << 20;
SpinLock g_span_lock;
uintptr_t g_span_cursor = 0;
uintptr_t g_span_end = 0;

// Every span ever handed out, so a dump can find the live blocks without a table of them
// (the allocation and free paths then touch no shared bookkeeping). Written under
// g_span_lock; `g_span_count` is published after the entry.
struct SpanInfo {
  uintptr_t base;
  uint32_t cls;
  uint32_t owner;
};
constexpr size_t kMaxSpans = size_t{1} << 22;  // 4M spans: at least 256 GiB of small blocks
SpanInfo* g_spans = nullptr;
std::atomic<size_t> g_span_count{0};

inline size_t span_bytes(uint32_t cls) {
  return heap_detached_class(cls) ? kDetachedSpan : heap_stride(cls) <= 1024 ? 64 << 10 : 512 << 10;
}
// The header of a span's first slot (the layout above, or a detached span's header array).
inline uintptr_t first_slot(uintptr_t span, uint32_t cls) {
  return heap_detached_class(cls) ? span + kDetachedHeaders : span + g_heap_layout.first_header;
}
// From one header to the next: a slot, or a detached span's next header.
inline uint64_t header_step(uint32_t cls) {
  return heap_detached_class(cls) ? sizeof(ChunkHeader) : heap_stride(cls);
}
// The end of a span's headers (inline classes: of its carvable slots).
inline uintptr_t headers_end(uintptr_t span, uint32_t cls) {
  if (!heap_detached_class(cls)) return span + span_bytes(cls);
  return span + kDetachedHeaders + reinterpret_cast<const DetachedSpan*>(span)->count * sizeof(ChunkHeader);
}

// The heap map (heap.h): 2^47 / 64 KiB bits, reserved on the first mark under g_span_lock
// and tried only once, so no block is ever handed out unmarked while the map exists.
constexpr size_t kHeapMapBytes = (size_t{1} << 47 >> kHeapMapShift) / 8;
bool g_heap_map_tried = false;

// Marks [begin, end) (g_span_lock held on the first call, see heap_map_mark).
void mark_range(uint8_t* map, uintptr_t begin, uintptr_t end) {
  if (end <= begin || ((end - 1) >> 47) != 0) return;  // higher addresses are always counted
  for (uintptr_t unit = begin >> kHeapMapShift; unit <= (end - 1) >> kHeapMapShift; ++unit) {
    uint8_t* byte = map + (unit >> 3);
    const auto bit = static_cast<uint8_t>(1u << (unit & 7));
    // Read first: most marks find the bit set, and a store would pull the line from the
    // CPUs that read it.
    if ((__atomic_load_n(byte, __ATOMIC_RELAXED) & bit) == 0)
      __atomic_fetch_or(byte, bit, __ATOMIC_RELAXED);
  }
}

// The map, reserved if this is the first mark (g_span_lock held); nullptr without one.
uint8_t* heap_map_locked() {
  uint8_t* map = g_heap_map.load(std::memory_order_relaxed);
  if (map != nullptr || g_heap_map_tried || !g.count_libc_accesses) return map;
  g_heap_map_tried = true;
  map = static_cast<uint8_t*>(os_map_noreserve(kHeapMapBytes));
  if (map == nullptr) return nullptr;
  madvise(map, kHeapMapBytes, MADV_DONTDUMP);
  g_heap_map.store(map, std::memory_order_release);
  return map;
}

// Detached spans: one reservation, carved in order (docs/runtime.md, "Peak memory").
constexpr size_t kDetachedRegion = size_t{64} << 30;
uintptr_t g_detached_cursor = 0;

// A detached span (g_span_lock held), its descriptor written; 0 when no memory is left.
uintptr_t new_detached_span(uint32_t cls) {
  static bool unavailable = false;  // tried once; the caller then uses the inline classes
  if (g_detached_size.load(std::memory_order_relaxed) == 0) {
    if (unavailable) return 0;
    void* fresh = os_map_noreserve(kDetachedRegion + kDetachedSpan);
    if (fresh == nullptr) {
      unavailable = true;
      return 0;
    }
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(fresh) + kDetachedSpan - 1) & ~(kDetachedSpan - 1);
    g_detached_cursor = begin;
    g_detached_begin.store(begin, std::memory_order_relaxed);
    g_detached_size.store(kDetachedRegion, std::memory_order_release);
  }
  const uintptr_t end = g_detached_begin.load(std::memory_order_relaxed) + kDetachedRegion;
  if (end - g_detached_cursor < kDetachedSpan) return 0;
  const uintptr_t span = g_detached_cursor;
  g_detached_cursor += kDetachedSpan;
  if (uint8_t* map = heap_map_locked()) mark_range(map, span, span + kDetachedSpan);
  auto* d = reinterpret_cast<DetachedSpan*>(span);
  d->stride = static_cast<uint32_t>(heap_stride(cls));
  d->count = static_cast<uint32_t>((kDetachedSpan - kDetachedHeaders) / (d->stride + sizeof(ChunkHeader)));
  d->first = static_cast<uint32_t>(kDetachedSpan - uint64_t{d->count} * d->stride);
  return span;
}

// A fresh span of `cls` for thread state `owner`, or 0 when no memory is left.
uintptr_t new_span(uint32_t cls, uint32_t owner) {
  const size_t bytes = span_bytes(cls);
  g_span_lock.lock();
  const size_t count = g_span_count.load(std::memory_order_relaxed);
  if (g_spans == nullptr) g_spans = static_cast<SpanInfo*>(os_map_noreserve(sizeof(SpanInfo) * kMaxSpans));
  if (g_spans == nullptr || count == kMaxSpans) {
    g_span_lock.unlock();
    return 0;
  }
  if (heap_detached_class(cls)) {
    const uintptr_t span = new_detached_span(cls);
    if (span != 0) {
      g_spans[count] = SpanInfo{span, cls, owner};
      g_span_count.store(count + 1, std::memory_order_release);
    }
    g_span_lock.unlock();
    return span;
  }
  if (g_span_end - g_span_cursor < bytes) {
    void* fresh = g_sampling ? sample_reserve_spans(kReservation) : os_map_noreserve(kReservation);
    if (fresh == nullptr) {
      g_span_lock.unlock();
      return 0;
    }
    g_span_cursor = reinterpret_cast<uintptr_t>(fresh);
    g_span_end = g_span_cursor + kReservation;
    if (uint8_t* map = heap_map_locked()) mark_range(map, g_span_cursor, g_span_end);
  }
  const uintptr_t span = g_span_cursor;
  g_span_cursor += bytes;
  g_spans[count] = SpanInfo{span, cls, owner};
  g_span_count.store(count + 1, std::memory_order_release);
  g_span_lock.unlock();
  return span;
}

}  // namespace

constinit HeapLayout g_heap_layout = kGranularLayout;
std::atomic<uintptr_t> g_detached_begin{0};
std::atomic<uintptr_t> g_detached_size{0};
std::atomic<uint8_t*> g_heap_map{nullptr};

void heap_map_mark(uintptr_t begin, uintptr_t end) {
  uint8_t* map = g_heap_map.load(std::memory_order_acquire);
  if (map == nullptr) {
    g_span_lock.lock();
    map = heap_map_locked();
    g_span_lock.unlock();
    if (map == nullptr) return;
  }
  mark_range(map, begin, end);
}

ChunkHeader* heap_take(ThreadState* state, uint32_t cls) {
  HeapClass& c = state->heap[cls];
  ChunkHeader* block = c.free;
  if (PROFKIT_RT_UNLIKELY(block == nullptr)) {
    std::atomic<ChunkHeader*>& remote = state->heap_remote[cls].head;
    if (remote.load(std::memory_order_relaxed) != nullptr)
      block = remote.exchange(nullptr, std::memory_order_acquire);
  }
  if (PROFKIT_RT_LIKELY(block != nullptr)) {
    c.free = heap_next(block);
    // The next allocation reads that block's link: a miss when the list is long and old.
    __builtin_prefetch(c.free, 1);
    return block;
  }
  const uint64_t step = header_step(cls);
  if (PROFKIT_RT_UNLIKELY(c.bump_end - c.bump < step)) {
    const uintptr_t span = new_span(cls, state->index);
    if (span == 0) return nullptr;
    c.bump = first_slot(span, cls);
    c.bump_end = headers_end(span, cls);
  }
  block = reinterpret_cast<ChunkHeader*>(c.bump);
  c.bump += step;
  return block;
}

namespace {
// Pushes the chain first..last (linked through their headers) onto `owner`'s remote list.
void push_chain(ThreadState* owner, uint32_t cls, ChunkHeader* first, ChunkHeader* last) {
  std::atomic<ChunkHeader*>& remote = owner->heap_remote[cls].head;
  ChunkHeader* head = remote.load(std::memory_order_relaxed);
  do {
    heap_set_next(last, head);
  } while (!remote.compare_exchange_weak(head, first, std::memory_order_release,
                                         std::memory_order_relaxed));
}
void flush_batch(RemoteBatch& b, uint32_t cls) {
  push_chain(thread_state_at(b.owner), cls, b.head, b.tail);
  b.count = 0;
}
// Blocks of class `cls` in a full batch.
uint32_t batch_limit(uint32_t cls) {
  const uint64_t by_bytes = kRemoteBatchBytes / heap_stride(cls);
  return by_bytes == 0 ? 1 : by_bytes < kRemoteBatch ? static_cast<uint32_t>(by_bytes) : kRemoteBatch;
}
}  // namespace

void heap_give_remote(ThreadState* owner, uint32_t cls, ChunkHeader* block) {
  push_chain(owner, cls, block, block);
}

void heap_give_remote_batched(ThreadState* self, uint32_t owner, uint32_t cls,
                              ChunkHeader* block) {
  RemoteBatch& b = self->remote_out[cls];
  if (b.count != 0 && b.owner != owner) flush_batch(b, cls);
  if (b.count == 0) {
    b.tail = block;
    b.owner = owner;
  } else {
    heap_set_next(block, b.head);
  }
  b.head = block;
  if (++b.count == batch_limit(cls)) flush_batch(b, cls);
}

void heap_flush_remote(ThreadState* self) {
  for (uint32_t cls = 0; cls < kHeapAllClasses; ++cls)
    if (self->remote_out[cls].count != 0) flush_batch(self->remote_out[cls], cls);
}

void heap_record_live(MibTable* table, uint32_t dealloc_ts, uint32_t dealloc_cpu, uint64_t at_most) {
  const size_t count = g_span_count.load(std::memory_order_acquire);
  uint64_t found = 0;
  for (size_t i = 0; i < count && found < at_most; ++i) {
    const SpanInfo& span = g_spans[i];
    const uint64_t step = header_step(span.cls);
    const uint64_t capacity = heap_detached_class(span.cls) ? heap_stride(span.cls) : step - sizeof(ChunkHeader);
    const HeapClass& c = thread_state_at(span.owner)->heap[span.cls];
    const uintptr_t end = headers_end(span.base, span.cls);
    // The owner's current span is carved only up to its bump pointer.
    const uintptr_t carved = c.bump > span.base && c.bump <= end ? c.bump : end;
    for (uintptr_t at = first_slot(span.base, span.cls); at + step <= end && at < carved; at += step) {
      const auto* header = reinterpret_cast<const ChunkHeader*>(at);
      // Live and tracked; the size check guards against a block being freed without a lock
      // (inside the runtime) whose free-list link has replaced its size.
      if (header->context_id == 0 || header->size > capacity) continue;
      // Inherited at fork: live, so counted towards `at_most`, but the parent reports it.
      if (own_block(header, g.fork_generation))
        record_block(table, header, heap_user_of(header, span.cls), dealloc_ts, dealloc_cpu);
      ++found;
    }
  }
}

void heap_lock_for_fork() { g_span_lock.lock(); }
void heap_unlock_after_fork(bool child) {
  g_span_lock.unlock_after_fork(child);
}

}  // namespace profkit::rt
