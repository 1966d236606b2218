// The runtime's own allocator for small blocks: size classes of 64-byte strides carved from
// spans, one free list per class and thread state, and a lock-free remote list per class for
// blocks freed by other threads. docs/runtime.md ("Allocator underneath") says why.
//
// Slot layout: a span starts 64-byte aligned; slot i's 32-byte header sits at
// span + 32 + i * stride and its user memory at span + 64 + i * stride, so every user
// pointer is 64-byte aligned and a block's last shadow granule is shared only with the next
// block's header, which instrumented code never touches.
#include "runtime/rt.h"

namespace profkit::rt {
namespace {

// Spans come from 64 MiB reservations (MAP_NORESERVE: only touched pages cost memory).
constexpr size_t kReservation = size_t{64} << 20;
SpinLock g_span_lock;
uintptr_t g_span_cursor = 0;
uintptr_t g_span_end = 0;

inline size_t span_bytes(uint32_t cls) { return heap_stride(cls) <= 1024 ? 64 << 10 : 512 << 10; }

// A fresh span for `cls`, or 0 when the address space is exhausted.
uintptr_t new_span(uint32_t cls) {
  const size_t bytes = span_bytes(cls);
  g_span_lock.lock();
  if (g_span_end - g_span_cursor < bytes) {
    void* fresh = os_map_noreserve(kReservation);
    if (fresh == nullptr) {
      g_span_lock.unlock();
      return 0;
    }
    g_span_cursor = reinterpret_cast<uintptr_t>(fresh);
    g_span_end = g_span_cursor + kReservation;
  }
  const uintptr_t span = g_span_cursor;
  g_span_cursor += bytes;
  g_span_lock.unlock();
  return span;
}

}  // namespace

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
    return block;
  }
  const uint64_t stride = heap_stride(cls);
  if (PROFKIT_RT_UNLIKELY(c.bump_end - c.bump < stride)) {
    const uintptr_t span = new_span(cls);
    if (span == 0) return nullptr;
    c.bump = span + kChunkAlignment - sizeof(ChunkHeader);
    c.bump_end = span + span_bytes(cls);
  }
  block = reinterpret_cast<ChunkHeader*>(c.bump);
  c.bump += stride;
  return block;
}

void heap_give_remote(ThreadState* owner, uint32_t cls, ChunkHeader* block) {
  std::atomic<ChunkHeader*>& remote = owner->heap_remote[cls].head;
  ChunkHeader* head = remote.load(std::memory_order_relaxed);
  do {
    heap_set_next(block, head);
  } while (!remote.compare_exchange_weak(head, block, std::memory_order_release,
                                         std::memory_order_relaxed));
}

void heap_lock_for_fork() { g_span_lock.lock(); }
void heap_unlock_after_fork(bool child) {
  if (child)
    g_span_lock.reset();
  else
    g_span_lock.unlock();
}

}  // namespace profkit::rt
