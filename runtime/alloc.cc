// Allocation entry points (malloc family, operator new/delete) and per-thread state.
// Every block gets a 32-byte header and a 64-byte aligned user pointer. Small tracked blocks
// come from the runtime's own size-class allocator (heap.cc), the rest from glibc's
// (docs/runtime.md explains the choice). With sample_interval, only sampled blocks do; the
// others are glibc's own, without a header (sample.h).
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/abi.h"
#include "runtime/access.h"
#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/clock.h"
#include "runtime/dump.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/line_writer.h"
#include "runtime/live.h"
#include "runtime/mib_table.h"
#include "runtime/sample.h"
#include "runtime/shadow.h"
#include "runtime/spin_lock.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"
#include "runtime/walker.h"

extern "C" void abort(void) noexcept;

namespace profkit::rt {

__thread ThreadState* tls_state PROFKIT_RT_TLS = nullptr;
__thread int tls_in_runtime PROFKIT_RT_TLS = 0;

namespace {
ThreadState* g_threads[kMaxThreads];
std::atomic<uint32_t> g_thread_count{0};
SpinLock g_registry_lock;
pthread_key_t g_thread_key;
std::atomic<bool> g_key_ready{false};
// States whose thread ended, for the next new thread (a stack, under g_registry_lock). A
// new thread used to look for one by trying every state: with 20 000 threads alive, each
// thread start scanned all of them under the lock.
uint32_t g_ended[kMaxThreads];
uint32_t g_ended_count = 0;
// States given back so far: a thread that found none free (max_threads in use) tries again
// only once this has moved, not at each of its allocations (a scan under the lock each).
std::atomic<uint32_t> g_ended_epoch{0};
std::atomic<uint32_t> g_stateless_threads{0};
__thread uint32_t tls_found_none PROFKIT_RT_TLS = 0;  // g_ended_epoch + 1 when it found none

void thread_exit(void* arg) {
  auto* state = static_cast<ThreadState*>(arg);
  if (tls_state == state) tls_state = nullptr;
  {
    RuntimeScope scope;
    state->lock.lock();
    heap_flush_remote(state);  // nothing stays gathered in a state no thread may adopt
    live_publish(state);       // nor unpublished live bytes
    state->lock.unlock();
    g_registry_lock.lock();
    state->alive.store(0, std::memory_order_release);  // may be adopted by a new thread
    g_ended[g_ended_count] = state->index;
    __atomic_store_n(&g_ended_count, g_ended_count + 1, __ATOMIC_RELAXED);
    g_registry_lock.unlock();
  }
  g_ended_epoch.fetch_add(1, std::memory_order_release);
}

// Its walk buffers are page aligned (thread_state.h): the arena gives that to a block of
// its own mapping only.
static_assert(sizeof(ThreadState) > kArenaOwnMappingAbove && alignof(ThreadState) <= 4096,
              "a thread state must be an arena block of its own mapping");
ThreadState* new_thread_state() {
  auto* state = static_cast<ThreadState*>(arena_alloc(sizeof(ThreadState)));
  if (state == nullptr) return nullptr;
  // 256 MiB of address space (MAP_NORESERVE, touched as used); under an address-space
  // limit (`ulimit -v`) such a reservation fails, and no thread got a state (an empty
  // profile): then as many slots as fit, an eighth at a time down to 65 536 (512 KiB); a
  // full table leaves the state's later glibc blocks untracked (take_slot).
  size_t bytes = size_t{kMaxSlots} * sizeof(uintptr_t);
  void* slots = os_map_largest(&bytes, size_t{kMinSlots} * sizeof(uintptr_t), true);
  if (slots == nullptr) {
    arena_free(state, sizeof(ThreadState));
    return nullptr;
  }
  state->slots = static_cast<uintptr_t*>(slots);
  state->slot_capacity = static_cast<uint32_t>(bytes / sizeof(uintptr_t));
  return state;
}
void delete_thread_state(ThreadState* state) {
  munmap(state->slots, size_t{state->slot_capacity} * sizeof(uintptr_t));
  if (state->fold_cache != nullptr)
    munmap(state->fold_cache, kFoldCacheBytes);
  arena_free(state, sizeof(ThreadState));
}
// max_threads (before the options are read, as many as there can be).
uint32_t max_thread_states() {
  const int64_t want = g.options.max_threads.value;
  return want >= 1 && want < kMaxThreads ? static_cast<uint32_t>(want) : kMaxThreads;
}
}  // namespace

ThreadState* thread_state_at(uint32_t index) { return g_threads[index]; }
uint32_t thread_state_count() { return g_thread_count.load(std::memory_order_acquire); }

uint32_t threads_without_state() { return g_stateless_threads.load(std::memory_order_relaxed); }

ThreadState* thread_state_slow() {
  RuntimeScope scope;
  const uint32_t epoch = g_ended_epoch.load(std::memory_order_acquire);
  if (tls_found_none == epoch + 1) return nullptr;  // none given back since it found none
  // A new state is made before the lock is taken: its two mappings wait for the kernel's
  // mmap lock, which threads faulting pages in hold, and 3 000 threads starting at once
  // queued behind one another on the registry lock (7 s for 8 000 threads, compiler-rt 1.5).
  ThreadState* fresh = nullptr;
  if (__atomic_load_n(&g_ended_count, __ATOMIC_RELAXED) == 0 &&
      g_thread_count.load(std::memory_order_relaxed) < max_thread_states())
    fresh = new_thread_state();
  ThreadState* state = nullptr;
  bool adopted = false;
  g_registry_lock.lock();
  const uint32_t count = g_thread_count.load(std::memory_order_relaxed);
  if (g_ended_count > 0) {
    adopted = true;
    __atomic_store_n(&g_ended_count, g_ended_count - 1, __ATOMIC_RELAXED);
    state = g_threads[g_ended[g_ended_count]];
    state->alive.store(1, std::memory_order_relaxed);
  } else if (count < max_thread_states()) {
    if (fresh == nullptr) fresh = new_thread_state();
    if (fresh != nullptr) {
      state = fresh;
      fresh = nullptr;
      state->index = count;
      state->alive.store(1);
      g_threads[count] = state;
      g_thread_count.store(count + 1, std::memory_order_release);
    }
  }
  g_registry_lock.unlock();
  if (fresh != nullptr) delete_thread_state(fresh);  // another thread's state was free after all
  if (state == nullptr) {
    if (tls_found_none == 0) g_stateless_threads.fetch_add(1, std::memory_order_relaxed);
    tls_found_none = epoch + 1;
    return nullptr;
  }
  register_thread_stack(state);
  forget_walks(state, adopted);  // an adopted state's memos point into its old thread's stack
  tls_state = state;
  if (!g_key_ready.load(std::memory_order_acquire)) {
    g_registry_lock.lock();
    if (!g_key_ready.load(std::memory_order_relaxed)) {
      pthread_key_create(&g_thread_key, thread_exit);
      g_key_ready.store(true, std::memory_order_release);
    }
    g_registry_lock.unlock();
  }
  pthread_setspecific(g_thread_key, state);
  return state;
}

// ---- fork ----------------------------------------------------------------------------
// Takes every lock so the child starts with consistent tables; lock order everywhere is
// dump lock -> registry lock -> thread locks -> arena lock.
void fork_prepare() {
  dump_lock_for_fork();
  g_registry_lock.lock();
  const uint32_t count = thread_state_count();
  for (uint32_t i = 0; i < count; ++i) g_threads[i]->lock.lock_other();
  peak_lock_for_fork();
  arena_lock_for_fork();
  heap_lock_for_fork();
  sample_lock_for_fork();
}

void fork_parent() {
  sample_unlock_after_fork(false);
  heap_unlock_after_fork(false);
  arena_unlock_after_fork(false);
  peak_unlock_after_fork(false);
  const uint32_t count = thread_state_count();
  for (uint32_t i = 0; i < count; ++i) g_threads[i]->lock.unlock_other();
  g_registry_lock.unlock();
  dump_unlock_after_fork(false);
}

void fork_child() {
  owner_lock_init();  // the membarrier registration is the parent's
  sample_unlock_after_fork(true);
  heap_unlock_after_fork(true);
  arena_unlock_after_fork(true);
  peak_unlock_after_fork(true);
  const uint32_t count = thread_state_count();
  g_ended_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    g_threads[i]->lock.reset();
    // Only the forking thread exists in the child; the others' states become adoptable.
    if (g_threads[i] != tls_state) {
      g_threads[i]->alive.store(0);
      g_ended[g_ended_count++] = i;
    }
  }
  g_ended_epoch.fetch_add(1, std::memory_order_relaxed);
  tls_found_none = 0;
  g_stateless_threads.store(0, std::memory_order_relaxed);  // the parent's to report
  g_registry_lock.reset();
  dump_unlock_after_fork(true);
  after_fork_child_tables();
}

namespace {

// A tracked block of `size` bytes of context `id` became live in `state` (its lock held).
// With sampling a block stands for several (sample_live_weight), so the live and peak
// figures are estimates of the whole heap like the MIBs.
inline void live_weight(uint64_t size, int64_t* bytes, int64_t* blocks) {
  *bytes = static_cast<int64_t>(size);
  *blocks = 1;
  if (g_sampling) sample_live_weight(size, bytes, blocks);
}

inline void live_alloc(ThreadState* state, uint32_t id, uint64_t size) {
  int64_t bytes, blocks;
  live_weight(size, &bytes, &blocks);
  if (LiveCell* cell = live_cell(state, state->live, id)) live_change(cell, bytes, blocks);
  state->live_unpublished += bytes;
  if (PROFKIT_RT_UNLIKELY(state->live_unpublished >= kLivePublish)) live_publish(state);
  if (PROFKIT_RT_UNLIKELY(g_peak_watch.total.load(std::memory_order_relaxed) + state->live_unpublished >
                          g_peak_watch.level.load(std::memory_order_relaxed)))
    peak_rising();
}

// The same block ended, freed by `state` (its lock held). The first free after the heap
// passed the snapshot level takes the snapshot, before this block leaves.
inline void live_free(ThreadState* state, uint32_t id, uint64_t size) {
  if (PROFKIT_RT_UNLIKELY(g_peak_watch.pending.load(std::memory_order_relaxed)))
    peak_snapshot(state->live_unpublished);
  int64_t bytes, blocks;
  live_weight(size, &bytes, &blocks);
  if (LiveCell* cell = live_cell(state, state->live, id)) live_change(cell, -bytes, -blocks);
  state->live_unpublished -= bytes;
  if (PROFKIT_RT_UNLIKELY(state->live_unpublished <= -kLivePublish)) live_publish(state);
}

PROFKIT_RT_NOINLINE void* allocation_failed() {
  errno = ENOMEM;
  return nullptr;
}

// Takes a live slot for `header` in `state` (its lock held); false when the table is full.
inline bool take_slot(ThreadState* state, ChunkHeader* header) {
  uint32_t slot;
  if (state->free_slot == 0 && state->remote_free.load(std::memory_order_relaxed) != 0)
    state->free_slot = state->remote_free.exchange(0, std::memory_order_acquire);
  if (state->free_slot != 0) {
    slot = state->free_slot - 1;
    state->free_slot = static_cast<uint32_t>(state->slots[slot] >> 1);
  } else if (state->slots_used < state->slot_capacity) {
    slot = state->slots_used++;
  } else {
    return false;
  }
  header->slot = slot;
  state->slots[slot] = reinterpret_cast<uintptr_t>(header);
  ++state->allocs;
  return true;
}

// A small block from the runtime's own allocator (heap.cc), tracked. The stack, time and
// CPU are taken before the lock; the block is carved, described and published under it, so
// a dump never sees a half-written header. nullptr sends the caller to glibc. `cls`:
// kHeapAllClasses for the class of `size` (small_block_fits), else a class whose slots
// are aligned as the caller needs (heap_aligned_class), with no other to fall back on.
PROFKIT_RT_NOINLINE void* allocate_small(uint64_t size, bool zero, uintptr_t caller_return,
                                         uintptr_t caller_frame, uint32_t cls = kHeapAllClasses) {
  RuntimeScope scope;
  ThreadState* state = current_thread_state();
  if (state == nullptr) return nullptr;
  const bool aligned = cls != kHeapAllClasses;
  if (!aligned)
    cls = heap_class_for(size, !g_sampling);
  const uint32_t context_id = capture_stack(caller_return, caller_frame);
  const uint32_t cpu = current_cpu();
  const uint32_t timestamp = now_ms();
  state->lock.lock();
  ChunkHeader* header = heap_take(state, cls);
  if (PROFKIT_RT_UNLIKELY(header == nullptr) && heap_detached_class(cls) && !aligned) {
    cls = heap_class_of(size + sizeof(ChunkHeader));  // no detached region (ulimit -v)
    header = heap_take(state, cls);
  }
  if (PROFKIT_RT_UNLIKELY(header == nullptr)) {
    state->lock.unlock();
    return nullptr;
  }
  const uintptr_t user = heap_user_of(header, cls);
  header->size = size;
  header->context_id = context_id;
  header->cpu = header_cpu(cpu, g.fork_generation);
  header->timestamp_ms = timestamp;
  header->owner = state->index;
  header->origin = kSmallBlock | cls;
  if (g.instrumented || g.histogram) clear_shadow(user, size);
  // No live-slot table: a dump finds live small blocks by walking the spans (heap.cc).
  if (context_id != 0) {
    ++state->allocs;
    live_alloc(state, context_id, size);
  }
  state->lock.unlock();
  if (zero) __builtin_memset(reinterpret_cast<void*>(user), 0, size);  // not counted (scope)
  return reinterpret_cast<void*>(user);
}

// Records a new glibc block: stack, time, cpu, a cleared shadow and a live slot.
// Kept out of line so the untracked path stays small.
PROFKIT_RT_NOINLINE void track(ChunkHeader* header, uintptr_t user, uintptr_t caller_return,
                               uintptr_t caller_frame) {
  RuntimeScope scope;
  ThreadState* state = current_thread_state();
  if (state == nullptr) return;
  if (g.count_libc_accesses) heap_map_mark(user, user + header->size);
  header->context_id = capture_stack(caller_return, caller_frame);
  header->cpu = header_cpu(current_cpu(), g.fork_generation);
  header->timestamp_ms = now_ms();
  header->owner = state->index;
  if (g.instrumented || g.histogram) clear_shadow(user, header->size);
  state->lock.lock();
  if (header->context_id == 0 || !take_slot(state, header))
    header->context_id = 0;
  else
    live_alloc(state, header->context_id, header->size);
  state->lock.unlock();
}

inline bool small_block_fits(uint64_t size, uintptr_t alignment) {
  // The first test decides malloc's (alignment 0) at compile time.
  return (alignment <= 16 || alignment <= g_heap_layout.min_alignment) &&
         size <= kHeapMaxStride - sizeof(ChunkHeader);
}

// A block of glibc's own, no header: what an unsampled allocation gets.
inline void* allocate_plain(uint64_t size, uintptr_t alignment, bool zero) {
  if (alignment <= 16) return zero ? __libc_calloc(1, size) : __libc_malloc(size);
  void* p = plain_memalign(alignment, size);
  if (p != nullptr && zero) __builtin_memset(p, 0, size);
  return p;
}

// A tracked block from the page classes (sample.cc): the header filled in and the block
// tracked; nullptr when the range has no room. Always called in a test of its result, so
// never as a tail call (the stack walk starts from the caller's frame).
inline void* allocate_big(uint64_t size, uintptr_t alignment, bool zero, uintptr_t caller_return,
                          uintptr_t caller_frame) {
  const uintptr_t user = sample_big_alloc(size, alignment < kChunkAlignment ? kChunkAlignment : alignment, zero);
  if (user == 0) return nullptr;
  ChunkHeader* header = header_of(reinterpret_cast<void*>(user));
  header->size = size;
  header->context_id = 0;
  track(header, user, caller_return, caller_frame);
  return reinterpret_cast<void*>(user);
}

// A block whose allocation reached the thread's sample point: recorded if sampled, from the
// sample range (heap.cc's spans, or sample.cc's larger blocks); else a plain glibc block.
PROFKIT_RT_NOINLINE void* allocate_sampled(uint64_t size, uintptr_t alignment, bool zero,
                                           uintptr_t caller_return, uintptr_t caller_frame) {
  if (tls_in_runtime != 0 || !g.tracking.load(std::memory_order_relaxed) || !sample_take(size))
    return allocate_plain(size, alignment, zero);
  if (PROFKIT_RT_UNLIKELY(size > g.max_size || alignment > (uint64_t{1} << 34)))
    return allocation_failed();
  if (small_block_fits(size, alignment))
    if (void* p = allocate_small(size, zero, caller_return, caller_frame)) return p;
  if (void* p = allocate_big(size, alignment, zero, caller_return, caller_frame)) return p;
  return allocate_plain(size, alignment, zero);
}

// Keeps a call out of tail position: the caller's frame, whose address the stack walk
// starts from, must still exist during the call. Every call that passes PROFKIT_CALLER on
// to a function that may not be inlined needs it.
template <class T>
inline T* no_tail_call(T* p) {
  asm volatile("" : "+r"(p));
  return p;
}

// Everything but an unsampled block: the full profile's path, start-up, and sampled blocks.
// Out of line so the unsampled path stays a few instructions with no registers to save.
PROFKIT_RT_NOINLINE void* allocate_slow(uint64_t size, uintptr_t alignment, bool zero,
                                        uintptr_t caller_return, uintptr_t caller_frame) {
  if (PROFKIT_RT_UNLIKELY(g.init_state.load(std::memory_order_relaxed) != 2) && tls_in_runtime == 0)
    ensure_init();
  if (size == 0) size = 1;
  if (g_sampling) {
    uint64_t n;  // the thread's first allocation, or one right after start-up
    if (take_unsampled(size, &n)) return allocate_plain(n, alignment, zero);
    return no_tail_call(allocate_sampled(size, alignment, zero, caller_return, caller_frame));
  }
  // Small blocks come from heap.cc whenever they are tracked, over-aligned ones too where a
  // detached class holds them aligned; large tracked ones from the page classes (below);
  // the rest (over-aligned ones below a page, and blocks made inside the runtime or before
  // it started) from glibc.
  const bool tracked = PROFKIT_RT_LIKELY(tls_in_runtime == 0) && PROFKIT_RT_LIKELY(g.tracking.load(std::memory_order_relaxed));
  if (tracked) {
    if (PROFKIT_RT_LIKELY(small_block_fits(size, alignment))) {
      if (void* p = allocate_small(size, zero, caller_return, caller_frame)) return p;
    } else if (alignment > g_heap_layout.min_alignment) {
      const uint32_t cls = heap_aligned_class(size, alignment);
      if (cls != kHeapAllClasses)
        if (void* p = allocate_small(size, zero, caller_return, caller_frame, cls)) return p;
    }
  }
  if (alignment < g_heap_layout.min_alignment) alignment = g_heap_layout.min_alignment;
  // glibc returns 16-byte aligned blocks, so the aligned user pointer with its header in
  // front needs at most header + alignment - 16 extra bytes.
  const uint64_t extra = sizeof(ChunkHeader) + alignment - 16;
  if (PROFKIT_RT_UNLIKELY(size > g.max_size || alignment > (uint64_t{1} << 34)))
    return allocation_failed();
  // A tracked large or over-aligned block: from the page classes (sample.cc), whose freed
  // blocks keep their pages for the next of their class. From glibc with a header, a
  // program whose small blocks the runtime keeps left glibc's heap with large blocks only,
  // which coalesced into its top chunk at each round of frees, were trimmed and faulted
  // back: 58 000 page faults against plain's 7 000 (bench/runtime/shapes/usable.c).
  // Not below a page: an over-aligned small block (the dense layout has no aligned classes)
  // would take a page or two where glibc pads it by its alignment.
  if (tracked && size >= 4096 && !small_block_fits(size, alignment))
    if (void* p = allocate_big(size, alignment, zero, caller_return, caller_frame)) return p;
  void* raw = zero ? __libc_calloc(1, size + extra) : __libc_malloc(size + extra);
  if (PROFKIT_RT_UNLIKELY(raw == nullptr)) return allocation_failed();
  const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t user = (base + sizeof(ChunkHeader) + alignment - 1) & ~(alignment - 1);
  ChunkHeader* header = header_of(reinterpret_cast<void*>(user));
  header->size = size;
  header->context_id = 0;
  header->origin = static_cast<uint32_t>((user - base) >> 4);
  if (tracked) track(header, user, caller_return, caller_frame);
  return reinterpret_cast<void*>(user);
}

// `alignment` 0: malloc's (16 bytes from glibc, g_heap_layout.min_alignment from the runtime). With sampling on, an
// unsampled block costs a subtraction (the countdown is 0 without sampling, so the full
// profile always takes the slow path).
PROFKIT_RT_ALWAYS_INLINE inline void* allocate(uint64_t size, uintptr_t alignment, bool zero,
                                               uintptr_t caller_return, uintptr_t caller_frame) {
  uint64_t n;
  if (PROFKIT_RT_LIKELY(take_unsampled(size, &n))) return allocate_plain(n, alignment, zero);
  return no_tail_call(allocate_slow(size, alignment, zero, caller_return, caller_frame));
}

// Ends a block that is tracked or small: its live slot goes back to the owner, its MIB into
// the freeing thread's table, and a small block's memory to its owner's free list.
PROFKIT_RT_NOINLINE void release(ChunkHeader* header, uintptr_t user) {
  // Inside the runtime (a signal handler that frees while this thread holds its own lock,
  // or the runtime freeing) no lock may be taken: the block is handed back lock-free and
  // its MIB is not recorded.
  const bool in_runtime = tls_in_runtime != 0;
  RuntimeScope scope;
  const bool tracked = header->context_id != 0;
  // A block inherited at fork is the parent's to report: its slot and memory are given
  // back, but the child records no MIB for it.
  const bool own = own_block(header, g.fork_generation);
  const bool small = (header->origin & kSmallBlock) != 0;
  const uint32_t cls = header->origin & ~kSmallBlock;
  ThreadState* owner = thread_state_at(header->owner);
  ThreadState* self = !in_runtime && g.tracking.load(std::memory_order_relaxed)
                          ? current_thread_state()
                          : nullptr;
  uint32_t ts = 0, cpu = 0;
  if (tracked) {
    ts = now_ms();
    cpu = current_cpu();
  }
  const uint32_t slot = header->slot;  // glibc blocks only
  if (self == owner && self != nullptr) {
    owner->lock.lock();
    if (tracked) {
      if (!small) {
        owner->slots[slot] = (uintptr_t{owner->free_slot} << 1) | 1;
        owner->free_slot = slot + 1;
      }
      if (own) {
        live_free(self, header->context_id, header->size);
        record_block(&self->mibs, header, user, ts, cpu);
      }
      ++self->frees;
    }
    if (small) {
      header->context_id = 0;  // no longer live for a dump's span walk
      heap_give(owner->heap[cls], header);
    }
    owner->lock.unlock();
    return;
  }
  // A cross-thread free never takes the owner's lock. It holds its own lock while the
  // block stops being live and is recorded, so a dump (which holds every thread's lock)
  // sees it either live or freed, never both.
  if (self != nullptr) self->lock.lock();
  if (tracked) {
    if (!small) {
      uint32_t head = owner->remote_free.load(std::memory_order_relaxed);
      do {
        owner->slots[slot] = (uintptr_t{head} << 1) | 1;
      } while (!owner->remote_free.compare_exchange_weak(
          head, slot + 1, std::memory_order_release, std::memory_order_relaxed));
    }
    if (self != nullptr) {
      if (own) {
        live_free(self, header->context_id, header->size);
        record_block(&self->mibs, header, user, ts, cpu);
      }
      ++self->frees;
    }
  }
  if (small) {  // after the record: the owner may reuse the block at once
    header->context_id = 0;
    if (self != nullptr)
      heap_give_remote_batched(self, header->owner, cls, header);
    else
      heap_give_remote(owner, cls, header);
  }
  if (self != nullptr) self->lock.unlock();
}

// A block with a header: the full profile's, or a sampled one (or made while tracking was
// off) in the sample range.
PROFKIT_RT_NOINLINE void deallocate_headed(void* p) {
  ChunkHeader* header = header_of(p);
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  const uint32_t origin = header->origin;
  if (origin & kSmallBlock) {
    release(header, user);
    return;
  }
  if (header->context_id != 0) release(header, user);
  const uintptr_t base = user - (uintptr_t{origin} << 4);
  if (in_big_range(base))  // every large block with a header while sampling
    sample_big_free(base);
  else
    __libc_free(reinterpret_cast<void*>(base));
}

// Outside the range (which is every address without sampling): an unsampled block, or
// nullptr, which glibc's free ignores.
PROFKIT_RT_ALWAYS_INLINE inline void deallocate(void* p) {
  if (PROFKIT_RT_LIKELY(!in_sample_range(p))) return __libc_free(p);
  if (p == nullptr) return;
  deallocate_headed(p);
}

inline bool is_power_of_two(uintptr_t x) { return x != 0 && (x & (x - 1)) == 0; }

char* duplicate(const char* s, uint64_t limit, bool bounded, uintptr_t ret, uintptr_t frame) {
  // libc's length and copy (byte loops cost strdup of 100-290 byte lines 0.81 of
  // compiler-rt's overhead), which count nothing: the read is counted here.
  const uint64_t n = bounded ? libc_strnlen(s, limit) : libc_strlen(s);
  if (g.count_libc_accesses && tls_in_runtime == 0 && heap_may_hold(reinterpret_cast<uintptr_t>(s)))
    record_range(reinterpret_cast<uintptr_t>(s), n + (bounded && n == limit ? 0 : 1));
  char* p = static_cast<char*>(allocate(n + 1, 0, false, ret, frame));
  if (p == nullptr) return nullptr;
  libc_memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

}  // namespace

size_t live_block_size(const void* p) {
  if (p == nullptr) return 0;
  if (!in_sample_range(p)) return libc_usable_size(const_cast<void*>(p));
  return header_of(p)->size;
}

}  // namespace profkit::rt

using namespace profkit::rt;

#define PROFKIT_CALLER                                             \
  reinterpret_cast<uintptr_t>(__builtin_return_address(0)),        \
      reinterpret_cast<uintptr_t>(__builtin_frame_address(0))

// The hot entry points (malloc, calloc, realloc, the plain operator new) reach their slow
// paths by a tail call the compiler must make (clang's musttail): the slow path's frame then
// stands where the entry point's would, with the caller's return address above it, so the
// stack walk starts there and the fast paths need no frame (alloc.cc is built with
// -fomit-frame-pointer; __builtin_frame_address keeps the slow paths' frames): an
// unsampled malloc or free is then ten instructions or fewer before glibc's. Without musttail the entry point passes its caller on, as the other entry
// points do, and keeps its frame alive during the call.
#if defined(__clang__)
#define PROFKIT_SLOW_PARAMS
#define PROFKIT_SLOW_ARGS
#define PROFKIT_SLOW_CALLER PROFKIT_CALLER
#define PROFKIT_SLOW_RETURN(call) [[clang::musttail]] return call
#else
#define PROFKIT_SLOW_PARAMS , uintptr_t caller_return, uintptr_t caller_frame
#define PROFKIT_SLOW_ARGS , PROFKIT_CALLER
#define PROFKIT_SLOW_CALLER caller_return, caller_frame
#define PROFKIT_SLOW_RETURN(call) return no_tail_call(call)
#endif

namespace {
PROFKIT_RT_NOINLINE void* malloc_slow(size_t size PROFKIT_SLOW_PARAMS) {
  return no_tail_call(allocate_slow(size, 0, false, PROFKIT_SLOW_CALLER));
}
PROFKIT_RT_NOINLINE void* calloc_slow(size_t count, size_t size PROFKIT_SLOW_PARAMS) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) return allocation_failed();
  return no_tail_call(allocate_slow(total, 0, true, PROFKIT_SLOW_CALLER));
}
}  // namespace

void* malloc(size_t size) noexcept {
  uint64_t n;
  if (PROFKIT_RT_LIKELY(take_unsampled(size, &n))) return __libc_malloc(n);
  PROFKIT_SLOW_RETURN(malloc_slow(size PROFKIT_SLOW_ARGS));
}
void free(void* p) noexcept { deallocate(p); }
void cfree(void* p) noexcept { deallocate(p); }

void* calloc(size_t count, size_t size) noexcept {
  size_t total;
  uint64_t n;
  if (PROFKIT_RT_LIKELY(!__builtin_mul_overflow(count, size, &total) && take_unsampled(total, &n)))
    return __libc_calloc(1, n);
  PROFKIT_SLOW_RETURN(calloc_slow(count, size PROFKIT_SLOW_ARGS));
}

namespace {
// A block with a header outside the small classes, resized to a size outside them too,
// without copying it where a new block and a copy would touch every page again (a buffer
// grown by an eighth at a time to 16 MiB cost 2.5 ms a step that way). To the profile it is
// still a free and a new allocation: the old block's MIB is recorded before it moves.
// - Full profile: glibc's realloc of the whole block, header included (in place, or its
//   pages moved by mremap); only the data moves if the user pointer would lose its alignment
//   (g_heap_layout.min_alignment).
// - Sampling, and full-profile blocks of the page classes (allocate_slow): the block stays
//   in its range, resized in place or its pages moved (sample_big_resize), and is tracked
//   (while sampling: if the sampler takes its new size). Copying there
//   made every step a copy, since a big block is nearly always sampled (a buffer grown to
//   16 MiB 200 times: 38 s, against none).
void* reallocate_big(void* p, ChunkHeader* header, uint64_t size, uintptr_t ret, uintptr_t frame) {
  if (PROFKIT_RT_UNLIKELY(size > g.max_size)) return allocation_failed();  // p stays valid
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  const uint64_t offset = uint64_t{header->origin} << 4;
  const uint64_t kept = header->size < size ? header->size : size;
  bool tracked = g.tracking.load(std::memory_order_relaxed) && tls_in_runtime == 0;
  uint64_t n;  // with sampling, the new size is an allocation to the sampler
  if (g_sampling) tracked = tracked && !take_unsampled(size, &n) && sample_take(size);
  if (header->context_id != 0) release(header, user);
  uintptr_t moved;
  if (in_big_range(user - offset)) {
    moved = sample_big_resize(user - offset, offset, size);
    if (moved == 0) {  // below the size pages move from, the range used up, or no moves: copy
      moved = sample_big_alloc(size, kChunkAlignment, false);
      // Else while sampling an unsampled glibc block; in a full profile glibc's, with a
      // header and tracked (allocate_slow, which fails the allocation itself).
      void* q = moved != 0  ? reinterpret_cast<void*>(moved)
                : g_sampling ? __libc_malloc(size)
                             : allocate_slow(size, 0, false, ret, frame);
      if (q == nullptr) {
        header->context_id = 0;  // the old block lives on, untracked
        return g_sampling ? allocation_failed() : nullptr;
      }
      {
        RuntimeScope scope;  // not the program's access
        __builtin_memcpy(q, p, kept);
      }
      sample_big_free(user - offset);
      if (moved == 0) return q;
    }
  } else {
    // Room for the data at its old offset, and for the header and an aligned user pointer
    // at the new one (as allocate_slow asks).
    const uintptr_t align = g_heap_layout.min_alignment;
    const uint64_t extra = sizeof(ChunkHeader) + align - 16;
    char* raw = static_cast<char*>(
        __libc_realloc(reinterpret_cast<void*>(user - offset), (offset > extra ? offset : extra) + size));
    if (PROFKIT_RT_UNLIKELY(raw == nullptr)) {
      // glibc kept the old block, which is no longer tracked: it counts anew from here.
      header->context_id = 0;
      if (tracked) track(header, user, ret, frame);
      return allocation_failed();
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
    moved = (base + sizeof(ChunkHeader) + align - 1) & ~(align - 1);
    if (moved != base + offset) {
      RuntimeScope scope;  // not the program's access
      __builtin_memmove(reinterpret_cast<void*>(moved), raw + offset, kept);
    }
    header_of(reinterpret_cast<void*>(moved))->origin = static_cast<uint32_t>((moved - base) >> 4);
  }
  ChunkHeader* fresh = header_of(reinterpret_cast<void*>(moved));
  fresh->size = size;
  fresh->context_id = 0;
  if (tracked) track(fresh, moved, ret, frame);
  return reinterpret_cast<void*>(moved);
}

void* reallocate(void* p, size_t size, uintptr_t ret, uintptr_t frame) {
  if (p == nullptr) return allocate(size, 0, false, ret, frame);
  if (size == 0 && g.options.allocator_frees_and_returns_null_on_realloc_zero.value) {
    deallocate(p);
    return nullptr;
  }
  // llvm_compat keeps compiler-rt's order (the new block made before the old one ends).
  if (!g.compat && !small_block_fits(size, 0) && in_sample_range(p)) {
    ChunkHeader* header = header_of(p);
    if (!(header->origin & kSmallBlock)) return reallocate_big(p, header, size, ret, frame);
  }
  void* q;
  if (!in_sample_range(p)) {
    // An unsampled block to an unsampled one: glibc's realloc, which may grow in place.
    uint64_t n;
    if (take_unsampled(size, &n)) return __libc_realloc(p, n);
    q = no_tail_call(allocate_sampled(n, 0, false, ret, frame));
  } else {
    q = allocate(size, 0, false, ret, frame);
  }
  if (q == nullptr) return nullptr;
  const uint64_t old_size = live_block_size(p);
  {
    RuntimeScope scope;  // the copy is the runtime's, not the program's: not counted
    __builtin_memcpy(q, p, old_size < size ? old_size : size);
  }
  deallocate(p);
  return q;
}

PROFKIT_RT_NOINLINE void* realloc_slow(void* p, size_t size PROFKIT_SLOW_PARAMS) {
  return no_tail_call(reallocate(p, size, PROFKIT_SLOW_CALLER));
}
}  // namespace

// An unsampled block (or nullptr, while sampling) to an unsampled one stays glibc's; size 0
// takes the slow path, where allocator_frees_and_returns_null_on_realloc_zero is decided.
void* realloc(void* p, size_t size) noexcept {
  uint64_t n;
  if (PROFKIT_RT_LIKELY(!in_sample_range(p) && size != 0 && take_unsampled(size, &n)))
    return __libc_realloc(p, n);
  PROFKIT_SLOW_RETURN(realloc_slow(p, size PROFKIT_SLOW_ARGS));
}

void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) return allocation_failed();
  return no_tail_call(reallocate(p, total, PROFKIT_CALLER));
}

namespace {
inline uintptr_t round_alignment(uintptr_t alignment) {
  if (is_power_of_two(alignment)) return alignment;
  uintptr_t a = 1;
  while (a < alignment) a <<= 1;
  return a;
}
}  // namespace

void* memalign(size_t alignment, size_t size) noexcept {
  return allocate(size, round_alignment(alignment), false, PROFKIT_CALLER);
}
void* __libc_memalign(size_t alignment, size_t size) noexcept {
  return allocate(size, round_alignment(alignment), false, PROFKIT_CALLER);
}
namespace {
// glibc before 2.38 takes any alignment in aligned_alloc, as memalign does; 2.38 and later
// fail with EINVAL when it is not a power of two. The program gets what its libc gives.
bool libc_rejects_odd_alignment() {
  static std::atomic<int> known{0};  // 0: not yet asked, 1: accepts, 2: rejects
  int k = known.load(std::memory_order_relaxed);
  if (k == 0) {
    unsigned major = 0, minor = 0;
    const char* v = gnu_get_libc_version();
    while (*v >= '0' && *v <= '9') major = major * 10 + static_cast<unsigned>(*v++ - '0');
    if (*v == '.') ++v;
    while (*v >= '0' && *v <= '9') minor = minor * 10 + static_cast<unsigned>(*v++ - '0');
    k = major > 2 || (major == 2 && minor >= 38) ? 2 : 1;
    known.store(k, std::memory_order_relaxed);
  }
  return k == 2;
}
}  // namespace

void* aligned_alloc(size_t alignment, size_t size) noexcept {
  if (!is_power_of_two(alignment)) {
    if (libc_rejects_odd_alignment()) {
      errno = EINVAL;
      return nullptr;
    }
    alignment = round_alignment(alignment);
  }
  return allocate(size, alignment, false, PROFKIT_CALLER);
}
int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (!is_power_of_two(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  void* p = allocate(size, alignment, false, PROFKIT_CALLER);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void* valloc(size_t size) noexcept {
  return allocate(size, static_cast<uintptr_t>(getpagesize()), false, PROFKIT_CALLER);
}
void* pvalloc(size_t size) noexcept {
  const size_t page = static_cast<size_t>(getpagesize());
  size = size == 0 ? page : (size + page - 1) & ~(page - 1);
  return allocate(size, page, false, PROFKIT_CALLER);
}
size_t malloc_usable_size(void* p) noexcept { return live_block_size(p); }

char* strdup(const char* s) noexcept { return no_tail_call(duplicate(s, 0, false, PROFKIT_CALLER)); }
char* __strdup(const char* s) noexcept { return no_tail_call(duplicate(s, 0, false, PROFKIT_CALLER)); }
char* strndup(const char* s, size_t n) noexcept { return no_tail_call(duplicate(s, n, true, PROFKIT_CALLER)); }
char* __strndup(const char* s, size_t n) noexcept { return no_tail_call(duplicate(s, n, true, PROFKIT_CALLER)); }

size_t __sanitizer_get_allocated_size(const volatile void* p) {
  return live_block_size(const_cast<const void*>(p));
}
int __sanitizer_get_ownership(const volatile void* p) { return p != nullptr; }

// ---- operator new / delete -----------------------------------------------------------
// Defined by their mangled names so no C++ library header is needed; the runtime is built
// without exceptions, so failures go through libstdc++'s own thrower when it is loaded.
extern "C" __attribute__((weak)) void* _ZSt15get_new_handlerv();   // std::get_new_handler
extern "C" __attribute__((weak, noreturn)) void _ZSt17__throw_bad_allocv();  // std::__throw_bad_alloc

namespace {
// The C++ library's get_new_handler and __throw_bad_alloc. The runtime does not load a C++
// library of its own, so the weak references are null in a C program; one whose C++
// plugin brought libstdc++ (or libc++) with RTLD_LOCAL has it outside the global scope, and
// it is looked up there, once an operator new has failed.
struct CxxAbi {
  void* (*get_new_handler)() = nullptr;
  void (*throw_bad_alloc)() = nullptr;
};
CxxAbi cxx_abi() {
  CxxAbi abi{_ZSt15get_new_handlerv, _ZSt17__throw_bad_allocv};
  if (abi.get_new_handler != nullptr && abi.throw_bad_alloc != nullptr) return abi;
  for (const char* name : {"libstdc++.so.6", "libc++.so.1"}) {
    void* lib = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) continue;
    abi.get_new_handler = reinterpret_cast<void* (*)()>(dlsym(lib, "_ZSt15get_new_handlerv"));
    abi.throw_bad_alloc = reinterpret_cast<void (*)()>(dlsym(lib, "_ZSt17__throw_bad_allocv"));
    dlclose(lib);  // NOLOAD took a reference; the plugin keeps the library loaded
    break;
  }
  return abi;
}

PROFKIT_RT_NOINLINE void* new_failed(size_t size, uintptr_t alignment, bool nothrow,
                                     uintptr_t ret, uintptr_t frame) {
  const CxxAbi abi = cxx_abi();
  for (;;) {
    using Handler = void (*)();
    Handler handler = abi.get_new_handler != nullptr
                          ? reinterpret_cast<Handler>(abi.get_new_handler())
                          : nullptr;
    if (handler == nullptr) break;
    handler();
    if (void* p = allocate(size, alignment, false, ret, frame)) return p;
  }
  if (nothrow) return nullptr;
  if (abi.throw_bad_alloc != nullptr) {
    abi.throw_bad_alloc();
    __builtin_unreachable();
  }
  LineWriter().str("profkit-memprof: error: operator new: out of memory").flush_to(2);
  abort();
}

// new_failed retries with `frame`, which must stay alive: no tail call.
inline void* new_impl(size_t size, uintptr_t alignment, bool nothrow, uintptr_t ret,
                      uintptr_t frame) {
  void* p = allocate(size, alignment, false, ret, frame);
  if (PROFKIT_RT_UNLIKELY(p == nullptr))
    return no_tail_call(new_failed(size, alignment, nothrow, ret, frame));
  return p;
}

PROFKIT_RT_NOINLINE void* new_slow(size_t size PROFKIT_SLOW_PARAMS) {
  return no_tail_call(new_impl(size, 0, false, PROFKIT_SLOW_CALLER));
}
PROFKIT_RT_NOINLINE void* new_nothrow_slow(size_t size, const void* PROFKIT_SLOW_PARAMS) {
  return no_tail_call(new_impl(size, 0, true, PROFKIT_SLOW_CALLER));
}
}  // namespace

#define PROFKIT_NEW(name, ...) PROFKIT_ABI void* name(__VA_ARGS__)
#define PROFKIT_DELETE(name, ...) \
  PROFKIT_ABI void name(__VA_ARGS__) noexcept { deallocate(p); }

// Unsampled: glibc's block, unless it fails (the slow path then runs the new-handler loop).
#define PROFKIT_NEW_PLAIN(name)                                                        \
  PROFKIT_NEW(name, size_t n) {                                                        \
    uint64_t bytes;                                                                    \
    if (PROFKIT_RT_LIKELY(take_unsampled(n, &bytes)))                                  \
      if (void* p = __libc_malloc(bytes); PROFKIT_RT_LIKELY(p != nullptr)) return p;   \
    PROFKIT_SLOW_RETURN(new_slow(n PROFKIT_SLOW_ARGS));                                \
  }
#define PROFKIT_NEW_NOTHROW(name)                                                      \
  PROFKIT_NEW(name, size_t n, const void* tag) noexcept {                              \
    uint64_t bytes;                                                                    \
    if (PROFKIT_RT_LIKELY(take_unsampled(n, &bytes)))                                  \
      if (void* p = __libc_malloc(bytes); PROFKIT_RT_LIKELY(p != nullptr)) return p;   \
    PROFKIT_SLOW_RETURN(new_nothrow_slow(n, tag PROFKIT_SLOW_ARGS));                   \
  }
PROFKIT_NEW_PLAIN(_Znwm)
PROFKIT_NEW_PLAIN(_Znam)
PROFKIT_NEW_NOTHROW(_ZnwmRKSt9nothrow_t)
PROFKIT_NEW_NOTHROW(_ZnamRKSt9nothrow_t)
PROFKIT_NEW(_ZnwmSt11align_val_t, size_t n, size_t a) { return no_tail_call(new_impl(n, a, false, PROFKIT_CALLER)); }
PROFKIT_NEW(_ZnamSt11align_val_t, size_t n, size_t a) { return no_tail_call(new_impl(n, a, false, PROFKIT_CALLER)); }
PROFKIT_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, size_t n, size_t a, const void*) noexcept {
  return no_tail_call(new_impl(n, a, true, PROFKIT_CALLER));
}
PROFKIT_NEW(_ZnamSt11align_val_tRKSt9nothrow_t, size_t n, size_t a, const void*) noexcept {
  return no_tail_call(new_impl(n, a, true, PROFKIT_CALLER));
}
PROFKIT_DELETE(_ZdlPv, void* p)
PROFKIT_DELETE(_ZdaPv, void* p)
PROFKIT_DELETE(_ZdlPvRKSt9nothrow_t, void* p, const void*)
PROFKIT_DELETE(_ZdaPvRKSt9nothrow_t, void* p, const void*)
PROFKIT_DELETE(_ZdlPvm, void* p, size_t)
PROFKIT_DELETE(_ZdaPvm, void* p, size_t)
PROFKIT_DELETE(_ZdlPvSt11align_val_t, void* p, size_t)
PROFKIT_DELETE(_ZdaPvSt11align_val_t, void* p, size_t)
PROFKIT_DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, void* p, size_t, const void*)
PROFKIT_DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, void* p, size_t, const void*)
PROFKIT_DELETE(_ZdlPvmSt11align_val_t, void* p, size_t, size_t)
PROFKIT_DELETE(_ZdaPvmSt11align_val_t, void* p, size_t, size_t)
