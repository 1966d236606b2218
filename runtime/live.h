// Live bytes per context and the global heap peak (live.cc): what `profkit report
// --view=leaks|peak` and the DHAT export's at-exit / at-peak fields show. docs/runtime.md
// ("Leaks and peak heap") gives the rules and their exactness.
#pragma once

#include <atomic>

#include "runtime/base.h"

namespace profkit::rt {

struct ThreadState;

// Blocks and bytes of one context made live (allocated) minus ended (freed) by one thread
// state; a context's live data is the sum over all states, so a cell goes negative when the
// thread frees more of it than it allocated. Written by the owning thread only (under its
// lock), read by peak snapshots of other threads with relaxed loads.
struct LiveCell {
  int64_t bytes;
  int64_t count;
};
inline constexpr uint32_t kLiveChunkBits = 12;  // 4096 context ids per lazily mapped chunk
inline constexpr uint32_t kLiveChunks = (1u << 22) >> kLiveChunkBits;  // kMaxContextIds

// Each state publishes its change of live bytes to the global total once it reaches this
// much either way, so threads share one cache line only every 32 KiB of allocation; the
// total is then off by less than this per other thread (exact with one thread).
inline constexpr int64_t kLivePublish = 32 << 10;

// The global side, on a line of its own: read on every allocation and free, written only
// when a state publishes, when the heap passes the next snapshot level, and by snapshots.
struct alignas(64) PeakWatch {
  std::atomic<int64_t> total{0};  // published live bytes of all states
  std::atomic<int64_t> level{0};  // allocating past total + own unpublished > level: rising
  std::atomic<bool> pending{false};  // passed the level: snapshot before the next free
};
extern PeakWatch g_peak_watch;

LiveCell* live_chunk_slow(ThreadState* state, uint32_t id);
void live_publish(ThreadState* state);
void peak_rising();
// Takes the pending snapshot; `own_unpublished`: the calling state's unpublished change.
void peak_snapshot(int64_t own_unpublished);
uint64_t peak_snapshots();  // how many were taken (for atexit=1)

inline LiveCell* live_cell(ThreadState* state, LiveCell** chunks, uint32_t id) {
  LiveCell* chunk = __atomic_load_n(&chunks[id >> kLiveChunkBits], __ATOMIC_RELAXED);
  if (PROFKIT_RT_UNLIKELY(chunk == nullptr)) {
    chunk = live_chunk_slow(state, id);
    if (chunk == nullptr) return nullptr;
  }
  return &chunk[id & ((1u << kLiveChunkBits) - 1)];
}

inline void live_change(LiveCell* cell, int64_t bytes, int64_t count) {
  __atomic_store_n(&cell->bytes, cell->bytes + bytes, __ATOMIC_RELAXED);
  __atomic_store_n(&cell->count, cell->count + count, __ATOMIC_RELAXED);
}

// Peak data of the dump: per context id, blocks and bytes live at the snapshot kept as the
// peak; callers hold the dump lock and every thread state's lock.
struct PeakSummary {
  uint64_t time_ms;  // when the snapshot was taken (MIB timestamp clock)
  uint64_t bytes;    // live bytes then (sum over contexts)
  uint64_t blocks;
};
// Takes a pending snapshot (the heap has not fallen since it passed the level, so now is
// its highest point), then locks the peak data for peak_of / peak_summary.
void peak_lock_for_dump();
void peak_unlock_after_dump();
PeakSummary peak_summary();
// Blocks and bytes of context `id` at the peak (0, 0 when none).
void peak_of(uint32_t id, uint64_t* blocks, uint64_t* bytes);

void peak_lock_for_fork();
void peak_unlock_after_fork(bool child);  // the child starts with no live data and no peak

}  // namespace profkit::rt
