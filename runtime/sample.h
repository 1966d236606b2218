// Sampled profiles (sample_interval): a Poisson process over allocated bytes decides which
// blocks are recorded. Sampled blocks live in one reserved address range, so free,
// realloc and malloc_usable_size tell them from plain glibc blocks with one compare
// (docs/runtime.md, "Sampling").
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

struct ChunkHeader;

// Set once during start-up (before anything is allocated), never changed afterwards.
// Hidden, so the fast paths read them directly rather than through the GOT.
PROFKIT_RT_HIDDEN extern bool g_sampling;  // sample_interval > 1 and the range could be reserved
// The blocks with a header: the reserved range [begin, begin + size) while sampling, every
// address otherwise (begin 0, size the maximum), so free needs no test of g_sampling.
PROFKIT_RT_HIDDEN extern uintptr_t g_sample_begin;
PROFKIT_RT_HIDDEN extern uintptr_t g_sample_size;

// The thread's bytes until its next sample point; 0 before its first draw, and always 0
// without sampling, so that an allocation of n bytes is unsampled exactly when
// n < tls_sample_left (the one test on the fast paths).
extern __thread uint64_t tls_sample_left PROFKIT_RT_TLS;

// Where large blocks with a header live in their page classes (sample_big_alloc): the
// second half of the range while sampling, else a reservation of their own (big_pages_init);
// empty when neither could be reserved.
PROFKIT_RT_HIDDEN extern uintptr_t g_big_begin, g_big_end;
inline bool in_big_range(uintptr_t base) { return base - g_big_begin < g_big_end - g_big_begin; }

inline bool in_sample_range(const void* p) {
  return reinterpret_cast<uintptr_t>(p) - g_sample_begin < g_sample_size;
}

// The fast path of an allocation of `size` bytes: true when the thread's countdown passes
// over it (the block is not sampled), with `*n` the bytes to ask glibc for (0 counts as 1).
PROFKIT_RT_ALWAYS_INLINE inline bool take_unsampled(uint64_t size, uint64_t* n) {
  *n = size + (size == 0);
  const uint64_t left = tls_sample_left;
  if (PROFKIT_RT_UNLIKELY(*n >= left)) return false;
  tls_sample_left = left - *n;
  return true;
}

// Turns sampling on from the options (init.cc, right after they are read).
void sample_init();
// Without sampling (and without llvm_compat, which keeps compiler-rt's glibc blocks): the
// reservation for tracked large blocks, before anything is tracked.
void big_pages_init();
// For an allocation of `size` bytes that reached the thread's sample point (or the thread's
// first): true when the block is sampled, with the next countdown drawn.
bool sample_take(uint64_t size);
// The integer weight of a sampled block of `size` bytes, 1 / (1 - exp(-size / interval))
// rounded up or down at random by the calling thread's generator (so its mean is exact).
uint64_t sample_weight(uint64_t size);
// The live and peak counters' view of a sampled block of `size` bytes: the bytes and
// blocks it stands for, 1 / (1 - exp(-size / interval)) times its own, rounded the same way
// at allocation and at free so the counters return to zero (its bytes exactly; its block
// count to the nearest whole number).
void sample_live_weight(uint64_t size, int64_t* bytes, int64_t* blocks);
// glibc's malloc_usable_size for a block not in the range (0 if it cannot be found).
size_t libc_usable_size(void* p);
// An unsampled aligned block: glibc's memalign (the runtime replaces every aligned entry
// point, __libc_memalign included), or, should that be missing, an untracked block from
// the range.
void* plain_memalign(size_t alignment, size_t size);

// heap.cc's span reservations (`bytes` each) while sampling: carved from the range.
// Called under heap.cc's span lock; nullptr when the range is used up.
void* sample_reserve_spans(size_t bytes);
// A block of `size` bytes aligned to `alignment` (>= 64) with a ChunkHeader in front,
// from the range, for sampled blocks too large or too aligned for heap.cc. Sets the
// header's `origin` to (user - base) / 16; returns the user pointer, or 0. `zero`: the
// block reads as zeros.
uintptr_t sample_big_alloc(uint64_t size, uintptr_t alignment, bool zero);
// The block at `base` (from sample_big_alloc), its user pointer `offset` bytes in, made to
// hold `size` bytes there: in place when its class holds them, else its pages moved
// (mremap, no copy) to a block of a larger class. Returns the new user pointer, or 0 (the
// block unchanged) when that cannot be done: the caller copies.
uintptr_t sample_big_resize(uintptr_t base, uint64_t offset, uint64_t size);
void sample_big_free(uintptr_t base);
void sample_lock_for_fork();
void sample_unlock_after_fork(bool child);

}  // namespace profkit::rt
