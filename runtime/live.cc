// Live bytes per context and the global heap peak. Each thread state counts, per context,
// the blocks and bytes it allocated minus those it freed (LiveCell, no shared writes); the
// sum over states is the context's live data. The global total is kept loosely (each state
// publishes every kLivePublish bytes of change), which is enough to notice that the heap
// passed the next snapshot level; the snapshot itself sums every state's cells.
//
// When to snapshot is DHAT's rule, thinned out: once the heap has grown past `level`, the
// first free (anywhere) takes a snapshot of the moment before it, the top of that rise; the
// next level is 1/64 (at least 16 KiB) above that snapshot, so a program makes at most
// about 64 + 64 ln(peak / 1 MiB) snapshots, each costing (context ids x thread states)
// additions. A snapshot is kept only if it holds more bytes than the one kept before.
#include <sys/mman.h>

#include "runtime/arena.h"
#include "runtime/clock.h"
#include "runtime/live.h"
#include "runtime/spin_lock.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"

namespace profkit::rt {

PeakWatch g_peak_watch;

namespace {

constexpr uint32_t kChunkIds = 1u << kLiveChunkBits;
constexpr size_t kChunkBytes = sizeof(LiveCell) * kChunkIds;
constexpr int64_t kLevelFloor = 16 << 10;

SpinLock g_peak_lock;  // the fields below; taken by snapshots (try_lock), dumps and fork
// Two sets of per-context sums: the kept peak and the one being taken, which replaces it if
// it is higher. Chunks are mapped on first use.
LiveCell* g_sums[2][kLiveChunks];
uint32_t g_kept = 0;
PeakSummary g_peak{};
bool g_have_peak = false;

LiveCell* sum_chunk(uint32_t set, uint32_t k) {
  if (g_sums[set][k] == nullptr) g_sums[set][k] = static_cast<LiveCell*>(os_map_noreserve(kChunkBytes));
  return g_sums[set][k];
}

uint64_t g_snapshots = 0;  // taken so far (atexit=1 prints it)
int64_t g_last_level = 0;  // the level the last snapshot set (the watch holds INT64_MAX while pending)

// Sums every state's cells into the spare set; keeps it as the peak if it holds more bytes.
// `seen` is the heap as the level test sees it: the shared total plus the calling thread's
// unpublished change. g_peak_lock held; other states may be changing their cells (their
// relaxed stores are seen as they come, so the sum mixes moments that lie within this loop).
void take_snapshot(int64_t seen) {
  ++g_snapshots;
  const uint32_t spare = g_kept ^ 1;
  const uint32_t ids = depot_size();
  const uint32_t threads = thread_state_count();
  uint64_t bytes = 0, blocks = 0;
  for (uint32_t k = 0; k <= ids >> kLiveChunkBits && k < kLiveChunks; ++k) {
    LiveCell* out = nullptr;
    const uint32_t n = (k + 1) * kChunkIds <= ids ? kChunkIds : ids - k * kChunkIds;
    for (uint32_t t = 0; t < threads; ++t) {
      const LiveCell* in = __atomic_load_n(&thread_state_at(t)->live[k], __ATOMIC_ACQUIRE);
      if (in == nullptr) continue;
      if (out == nullptr) {
        out = sum_chunk(spare, k);
        if (out == nullptr) return;  // no memory: keep the previous peak
        // Only the cells an earlier snapshot can have written: ids only grow, so those past
        // `n` are still the zeros of the mapping (zeroing all 64 KiB faulted in 16 pages
        // per set, ~80 us of a small sampled run's exit).
        __builtin_memset(out, 0, n * sizeof(LiveCell));
      }
      for (uint32_t i = 0; i < n; ++i) {
        out[i].bytes += __atomic_load_n(&in[i].bytes, __ATOMIC_RELAXED);
        out[i].count += __atomic_load_n(&in[i].count, __ATOMIC_RELAXED);
      }
    }
    if (out == nullptr) {
      if (g_sums[spare][k] != nullptr) __builtin_memset(g_sums[spare][k], 0, n * sizeof(LiveCell));
      continue;
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (out[i].bytes < 0 || out[i].count < 0) out[i] = LiveCell{0, 0};  // a racing free
      bytes += static_cast<uint64_t>(out[i].bytes);
      blocks += static_cast<uint64_t>(out[i].count);
    }
  }
  // Cells of ids past the last chunk summed stay as they were: zero, ids only grow.
  if (bytes > g_peak.bytes || !g_have_peak) {
    g_kept = spare;
    g_have_peak = true;
    g_peak = PeakSummary{now_ms(), bytes, blocks};
  }
  const int64_t top = static_cast<int64_t>(g_peak.bytes);
  const int64_t step = top / 64 > kLevelFloor ? top / 64 : kLevelFloor;
  // The level test sees the heap off by the other threads' unpublished changes (up to
  // 32 KiB each, and lasting: a producer publishes its allocations, its consumers' frees
  // wait for their next 32 KiB), and each thread sees it differently. Set from the exact
  // sum alone, a level the biased view had already passed was passed again at once: a
  // snapshot per free, 300,000 in a 16-thread server (each costs thread states x context
  // ids). So the next level is a step above the kept peak in the caller's view, and never
  // less than a step above the last one: levels only rise, by a step or more per snapshot,
  // through a range the views' bias bounds. With one thread the view is exact and both
  // are the kept peak plus a step, as before.
  const int64_t in_view = top + step + (seen - static_cast<int64_t>(bytes));
  g_last_level = in_view > g_last_level + step ? in_view : g_last_level + step;
  g_peak_watch.level.store(g_last_level, std::memory_order_relaxed);
  g_peak_watch.pending.store(false, std::memory_order_relaxed);
}

}  // namespace

LiveCell* live_chunk_slow(ThreadState* state, uint32_t id) {
  if (id >> kLiveChunkBits >= kLiveChunks) return nullptr;
  auto* chunk = static_cast<LiveCell*>(os_map_noreserve(kChunkBytes));
  if (chunk != nullptr) __atomic_store_n(&state->live[id >> kLiveChunkBits], chunk, __ATOMIC_RELEASE);
  return chunk;
}

void live_publish(ThreadState* state) {
  g_peak_watch.total.fetch_add(state->live_unpublished, std::memory_order_relaxed);
  state->live_unpublished = 0;
}

void peak_rising() {
  g_peak_watch.level.store(INT64_MAX, std::memory_order_relaxed);
  g_peak_watch.pending.store(true, std::memory_order_relaxed);
}

void peak_snapshot(int64_t own_unpublished) {
  if (!g_peak_lock.try_lock()) return;  // another thread is taking it: that one covers this
  if (g_peak_watch.pending.load(std::memory_order_relaxed))
    take_snapshot(g_peak_watch.total.load(std::memory_order_relaxed) + own_unpublished);
  g_peak_lock.unlock();
}

void peak_lock_for_dump() {
  g_peak_lock.lock();
  // Still rising since the level was passed: the heap is at its highest now.
  if (g_peak_watch.pending.load(std::memory_order_relaxed))
    take_snapshot(g_peak_watch.total.load(std::memory_order_relaxed));
}
uint64_t peak_snapshots() { return g_snapshots; }
void peak_unlock_after_dump() { g_peak_lock.unlock(); }
PeakSummary peak_summary() { return g_peak; }

void peak_of(uint32_t id, uint64_t* blocks, uint64_t* bytes) {
  const LiveCell* chunk = id >> kLiveChunkBits < kLiveChunks ? g_sums[g_kept][id >> kLiveChunkBits] : nullptr;
  *blocks = chunk ? static_cast<uint64_t>(chunk[id & (kChunkIds - 1)].count) : 0;
  *bytes = chunk ? static_cast<uint64_t>(chunk[id & (kChunkIds - 1)].bytes) : 0;
}

void peak_lock_for_fork() { g_peak_lock.lock(); }

void peak_unlock_after_fork(bool child) {
  if (child) {
    // The child reports only blocks it allocates (heap.h, own_block): nothing is live yet.
    const uint32_t threads = thread_state_count();
    for (uint32_t t = 0; t < threads; ++t) {
      ThreadState* state = thread_state_at(t);
      for (LiveCell*& chunk : state->live)
        if (chunk != nullptr) madvise(chunk, kChunkBytes, MADV_DONTNEED);  // reads as zeros
      state->live_unpublished = 0;
    }
    for (auto& set : g_sums)
      for (LiveCell* chunk : set)
        if (chunk != nullptr) madvise(chunk, kChunkBytes, MADV_DONTNEED);
    g_peak = PeakSummary{};
    g_have_peak = false;
    g_peak_watch.total.store(0, std::memory_order_relaxed);
    g_peak_watch.level.store(0, std::memory_order_relaxed);
    g_last_level = 0;
    g_peak_watch.pending.store(false, std::memory_order_relaxed);
  }
  g_peak_lock.unlock_after_fork(child);
}

}  // namespace profkit::rt
