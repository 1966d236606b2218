// Per-thread state: its lock, tracked-block slots, MIB table, small-block heap, walker
// caches; and the thread-local pointer to it.
#pragma once

#include <atomic>

#include "runtime/base.h"
#include "runtime/heap.h"
#include "runtime/live.h"
#include "runtime/mib_table.h"
#include "runtime/spin_lock.h"
#include "runtime/walker.h"

namespace profkit::rt {

// With fold_recursion, the folded stack's id for an unfolded walk, found by the walk's two
// 64-bit hashes and its length (stack.cc, intern_folded).
struct FoldCacheEntry {
  uint64_t hash = 0;   // the walker's stack hash of the unfolded frames (0: empty)
  uint64_t check = 0;  // fold_check of the same frames, computed independently
  uint32_t frames = 0;
  uint32_t id = 0;     // the depot id of the folded and cut stack
};
inline constexpr uint32_t kFoldCacheBits = 16;
inline constexpr size_t kFoldCacheBytes = sizeof(FoldCacheEntry) << kFoldCacheBits;

struct ThreadState {
  OwnerLock lock;                // guards everything below (lock_other: not the owner)
  uint32_t index = 0;            // position in the registry (stored in chunk headers)
  std::atomic<uint32_t> alive{0};
  uintptr_t* slots = nullptr;    // live tracked glibc chunks: header pointer, or free-list link
  uint32_t slots_used = 0;       // high-water mark
  uint32_t slot_capacity = 0;    // slots reserved: kMaxSlots, fewer under an address-space limit
  uint32_t free_slot = 0;        // head of the free-slot list, index + 1 (0 = empty)
  // Slots freed by other threads: a lock-free stack (same links as the free list) that
  // those threads push onto without taking `lock`; the owner takes it whole when its own
  // free list runs dry. Only push and take-all happen, so there is no ABA. On a line of its
  // own: other threads write it, the owner writes `lock` on every allocation.
  alignas(64) std::atomic<uint32_t> remote_free{0};
  alignas(64) MibTable mibs;     // freed allocations merged here, by context id
  uintptr_t stack_low = 0, stack_high = 0;  // for frame-pointer walks
  uint64_t allocs = 0, frees = 0;
  HeapClass heap[kHeapAllClasses];  // small blocks owned by this state (under `lock`)
  HeapRemote heap_remote[kHeapAllClasses];  // small blocks freed by other threads (lock-free)
  RemoteBatch remote_out[kHeapAllClasses];  // blocks this thread freed for others (under `lock`)
  // What every thread writes on its first captures, together on the state's second page:
  // a new state costs the pages it touches (1 000 threads alive at once), and these words
  // after the 680 KiB of walk buffers and exact sets made two more pages per thread.
  uint32_t code_generation = 0;  // g_code_generation when the walker caches were last valid
  uint32_t walk_spare = 0;       // the walk buffer no memo holds: a new walk's steps
  uint32_t exact_clock = 0;      // ticks at every answer and write of the exact-stack cache
  WalkStats walk_stats;          // how stacks were captured (atexit=1)
  FoldCacheEntry* fold_cache = nullptr;  // stack.cc: folded ids of unfolded walks (mapped on first use)
  void* depot_guess = nullptr;  // stack.cc: the depot node this thread probably needs next
  void* depot_last = nullptr;   // stack.cc: the last depot node this thread inserted
  int64_t live_unpublished = 0;  // live.cc: change of live bytes not yet in g_peak_watch.total
  WalkMemo walk_memo[kWalkMemos];  // unwind.cc's last walks (only on this stack)
  // live.cc: this state's live blocks and bytes per context (chunks of kLiveChunkBits ids,
  // mapped on first use); the first chunks' pointers share the page above.
  LiveCell* live[kLiveChunks] = {};
  FrameCacheSet frame_cache[kFrameCacheSets];  // unwind.cc's rules, by return address
  // Page aligned: a short walk's steps then fill one page of checks and one of steps (at an
  // arbitrary offset its 5 steps straddled two pages).
  alignas(4096) WalkBuf walk_buf[kWalkMemos + 1];
  ExactSet exact[kExactSets];  // unwind.cc's whole short walks
};

// Thread states: one per thread alive at once (a state whose thread ended is adopted by the
// next new thread), up to max_threads (at most kMaxThreads; options.h's kMaxThreadsLimit).
inline constexpr uint32_t kMaxThreads = 1 << 17;
inline constexpr uint32_t kMaxSlots = 1 << 25;  // live tracked blocks per thread state
inline constexpr uint32_t kMinSlots = 1 << 16;  // the fewest, under an address-space limit

ThreadState* thread_state_slow();
uint32_t threads_without_state();  // threads that found max_threads states in use
ThreadState* thread_state_at(uint32_t index);
uint32_t thread_state_count();

extern __thread ThreadState* tls_state PROFKIT_RT_TLS;
extern __thread int tls_in_runtime PROFKIT_RT_TLS;

inline ThreadState* current_thread_state() {
  ThreadState* state = tls_state;
  return PROFKIT_RT_LIKELY(state != nullptr) ? state : thread_state_slow();
}

// How many times code was unloaded (stack.cc's dlclose): a thread whose walker caches are of
// an older generation drops them before it walks.
extern std::atomic<uint32_t> g_code_generation;

// A dump requested by signal while some thread was inside the runtime (init.cc): taken by
// the first thread to leave it.
extern std::atomic<bool> g_dump_pending;
void run_pending_dump();

// Marks the runtime busy on this thread for a scope (re-entry guard). Inline: every
// allocation and free leaves a scope, and the call to an out-of-line destructor was 0.5-0.8%
// of the samples on the bench workloads.
struct RuntimeScope {
  RuntimeScope() { ++tls_in_runtime; }
  ~RuntimeScope() {
    if (--tls_in_runtime == 0 && PROFKIT_RT_UNLIKELY(g_dump_pending.load(std::memory_order_relaxed)))
      run_pending_dump();
  }
};

}  // namespace profkit::rt
