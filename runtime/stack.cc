// Allocation stacks: capture (unwind tables by default: the runtime's own cached walker,
// unwind.cc, with libunwind for what it cannot follow; frame pointers only, as compiler-rt
// does, with fast_unwind_on_malloc=1 or llvm_compat=1) and a lock-free stack depot that
// gives each distinct stack a stable id for the life of the process.
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/globals.h"
#include "runtime/mib_table.h"
#include "runtime/sample.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"
#include "runtime/walker.h"

namespace profkit::rt {
namespace {

struct DepotNode {
  DepotNode* next;                    // hash chain
  std::atomic<DepotNode*> successor;  // the next node its thread inserted (see intern)
  uint64_t hash;
  uint32_t id;
  uint32_t size;
  // What the walk that inserted it shared with its memo's previous walk (WalkShare, with
  // prev_id 0 when nothing): its frames shared_lo..shared_hi are those of stack `prev_id`,
  // shifted. Fixed before the node is published.
  uint32_t prev_id;
  int32_t shift;
  uint16_t shared_lo, shared_hi;
  uint32_t pad;
  uintptr_t pcs[1];  // `size` entries (flexible)
};

constexpr uint32_t kBucketBits = 20;
// A sampled profile has at most one new stack per sample point: tree's ~190 stacks, at
// random places of the 8 MiB table, cost ~190 page faults (~0.5 ms on this VM, 1% of its
// run); this table is 32 pages. A million distinct sampled stacks (over 500 GB allocated
// at 512 KiB per sample) would make chains of 64, which the successor guess mostly skips.
constexpr uint32_t kSampledBucketBits = 14;
uint64_t g_bucket_mask = 0;
constexpr uint32_t kMaxIds = kMaxContextIds;
std::atomic<DepotNode*>* g_buckets = nullptr;  // g_bucket_mask + 1 chains, from depot_init
// Plain pointers, read and written with __atomic builtins: an array of std::atomic this long
// is no constant initializer (too many elements for the compiler's constant evaluation), and
// the zeroing the compiler then emitted at load time made every process 32 MiB larger.
DepotNode* g_by_id[kMaxIds];
std::atomic<uint32_t> g_next_id{1};

// Nodes are bump-allocated from one reservation backed by transparent huge pages: a
// program with many distinct stacks (a recursive tree builder has 262 144) otherwise pays
// a page walk - under a hypervisor, a nested one - for nearly every lookup.
constexpr size_t kNodeSpace = size_t{16} << 30;
constexpr size_t kHugePage = size_t{2} << 20;
uintptr_t g_node_base = 0;
std::atomic<size_t> g_node_used{0};

// Reserves `bytes` aligned to a huge page and backed by huge pages where the kernel can,
// except the first `small` bytes (a multiple of kHugePage), which are kept on small pages
// even where the kernel gives huge pages unasked (transparent_hugepage=always).
uintptr_t reserve_huge(size_t bytes, size_t small) {
  auto* p = static_cast<char*>(os_map_noreserve(bytes + kHugePage));
  if (p == nullptr) return 0;
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  if (small != 0) madvise(reinterpret_cast<void*>(aligned), small, MADV_NOHUGEPAGE);
  madvise(reinterpret_cast<void*>(aligned + small), bytes - small, MADV_HUGEPAGE);
  return aligned;
}

void* node_alloc(size_t bytes) {
  bytes = (bytes + 15) & ~size_t{15};
  if (g_node_base != 0) {
    const size_t at = g_node_used.fetch_add(bytes, std::memory_order_relaxed);
    if (at + bytes <= kNodeSpace) return reinterpret_cast<void*>(g_node_base + at);
  }
  return arena_alloc(bytes);  // no reservation, or 16 GiB of stacks: the arena serves
}

// Folded from the outermost frame in, as the walker's memo does (walker.h).
uint64_t hash_pcs(const uintptr_t* pcs, uint32_t n) {
  uint64_t h = 0;
  for (uint32_t i = n; i-- > 0;) h = stack_hash_step(h, pcs[i]);
  return stack_hash_final(h, n);
}

bool same(const DepotNode* node, uint64_t hash, const uintptr_t* pcs, uint32_t n) {
  if (node->hash != hash || node->size != n) return false;
  // Eight frames per test, with no branch between them, so the compiler compares them in
  // vector registers: most compares are of equal stacks, hundreds of frames deep.
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uintptr_t diff = 0;
    for (uint32_t k = 0; k < 8; ++k) diff |= node->pcs[i + k] ^ pcs[i + k];
    if (diff != 0) return false;
  }
  for (; i < n; ++i)
    if (node->pcs[i] != pcs[i]) return false;
  return true;
}

// Whether frames [from, to) of the node are `pcs`'s.
inline bool same_frames(const DepotNode* node, const uintptr_t* pcs, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; ++i)
    if (node->pcs[i] != pcs[i]) return false;
  return true;
}

// same() for a walk that shares frames with its memo's previous walk: when the node was
// inserted by a walk that shared the same frames, at the same shift, with the same previous
// stack, those frames are equal on both sides (both are that stack's), and only the others
// are compared: for a deep recursion, a few frames at each end of a node of hundreds.
bool same_sharing(const DepotNode* node, uint64_t hash, const uintptr_t* pcs, uint32_t n,
                  const WalkShare& share) {
  if (node->hash != hash || node->size != n) return false;
  if (share.prev_id != 0 && node->prev_id == share.prev_id && node->shift == share.shift &&
      share.lo <= node->shared_lo && node->shared_hi <= share.hi)
    return same_frames(node, pcs, 0, node->shared_lo) &&
           same_frames(node, pcs, node->shared_hi + 1u, n);
  return same(node, hash, pcs, n);
}

// The node a thread will most likely compare next, loaded into the cache while the program
// runs on: a deep stack's node is kilobytes, and with many such stacks it is not cached.
// Its size is not read (that load would wait for memory): the next stack is most often about
// as deep as this one, of `n` frames.
// With `ends_only` (the next walk will likely share its middle frames with this one), only
// the lines that same_sharing reads: the header and the frames at both ends.
void set_guess(ThreadState* state, DepotNode* guess, uint32_t n, bool ends_only) {
  state->depot_guess = guess;
  if (guess == nullptr) return;
  const char* p = reinterpret_cast<const char*>(guess);
  const char* const end = reinterpret_cast<const char*>(guess->pcs + n);
  if (ends_only && end - p > 4 * 64) {
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(end - 64);
    __builtin_prefetch(end - 1);
    return;
  }
  for (; p < end; p += 64) __builtin_prefetch(p);
}

// Programs repeat their allocation sequences (a loop, a recursion rebuilt each round), so
// the stack after the one a thread just used is most often the one inserted after it the
// first time. Each node links to the next node its thread inserted; a lookup tries the
// previous hit's successor first, which needs no bucket access (a cache and TLB miss per
// allocation when a program has many stacks: 262 144 in the tree builder).
// `hash` is hash_pcs(pcs, n) when the caller knows it, else 0; `share` is the walk's
// (WalkShare), when `pcs` is that walk's frames as they are.
uint32_t intern(ThreadState* state, const uintptr_t* pcs, uint32_t n, uint64_t hash,
                const WalkShare& share) {
  if (PROFKIT_RT_UNLIKELY(g_buckets == nullptr)) return 0;
  if (hash == 0) hash = hash_pcs(pcs, n);
  if (state != nullptr) ++state->walk_stats.interned;
  const bool sharing = share.prev_id != 0;
  DepotNode* const guess = state != nullptr ? static_cast<DepotNode*>(state->depot_guess) : nullptr;
  if (guess != nullptr && same_sharing(guess, hash, pcs, n, share)) {
    ++state->walk_stats.guess_hits;
    set_guess(state, guess->successor.load(std::memory_order_acquire), n, sharing);
    return guess->id;
  }
  std::atomic<DepotNode*>& bucket = g_buckets[hash & g_bucket_mask];
  DepotNode* head = bucket.load(std::memory_order_acquire);
  for (DepotNode* node = head; node != nullptr; node = node->next)
    if (same_sharing(node, hash, pcs, n, share)) {
      if (state != nullptr)
        set_guess(state, node->successor.load(std::memory_order_acquire), n, sharing);
      return node->id;
    }
  const size_t bytes = sizeof(DepotNode) + sizeof(uintptr_t) * (n ? n - 1 : 0);
  auto* fresh = static_cast<DepotNode*>(node_alloc(bytes));
  if (fresh == nullptr) return 0;
  fresh->hash = hash;
  fresh->size = n;
  fresh->successor.store(nullptr, std::memory_order_relaxed);
  fresh->prev_id = share.prev_id;
  fresh->shift = share.shift;
  fresh->shared_lo = static_cast<uint16_t>(share.lo);
  fresh->shared_hi = static_cast<uint16_t>(share.hi);
  fresh->pad = 0;
  for (uint32_t i = 0; i < n; ++i) fresh->pcs[i] = pcs[i];
  // The id is fixed before the node is published; a lost race wastes one id (ids need
  // not be dense, only unique).
  const uint32_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  fresh->id = id < kMaxIds ? id : 0;  // depot full: later new stacks stay untracked
  for (;;) {
    fresh->next = head;
    if (bucket.compare_exchange_weak(head, fresh, std::memory_order_release,
                                     std::memory_order_acquire))
      break;
    // Someone else pushed first: they may have pushed this very stack.
    for (DepotNode* node = head; node != fresh->next; node = node->next)
      if (same(node, hash, pcs, n)) {
        // A lost race wastes the node's bytes (rare: two threads, one new stack).
        return node->id;
      }
  }
  if (fresh->id != 0) __atomic_store_n(&g_by_id[fresh->id], fresh, __ATOMIC_RELEASE);
  if (state != nullptr) {
    ++state->walk_stats.inserted;
    // Published (in its chain) before it becomes anyone's successor.
    if (state->depot_last != nullptr)
      static_cast<DepotNode*>(state->depot_last)->successor.store(fresh, std::memory_order_release);
    state->depot_last = fresh;
    state->depot_guess = nullptr;
  }
  return fresh->id;
}

// Walks the frame-pointer chain from the entry point's frame. Stops at the first frame
// outside the thread's stack or not strictly above the previous one.
uint32_t walk_frame_pointers(uintptr_t caller_return, uintptr_t caller_frame, uintptr_t* out,
                             uint32_t max) {
  const ThreadState* state = tls_state;
  uint32_t n = 0;
  out[n++] = caller_return;
  uintptr_t low = state ? state->stack_low : 0, high = state ? state->stack_high : 0;
  if (high == 0) return n;
  uintptr_t fp = caller_frame;
  if (fp < low || fp + 16 > high || (fp & 7) != 0) return n;
  fp = *reinterpret_cast<const uintptr_t*>(fp);
  while (n < max) {
    if (fp < low || fp + 16 > high || (fp & 7) != 0) break;
    const uintptr_t ret = reinterpret_cast<const uintptr_t*>(fp)[1];
    if (ret < 4096) break;
    out[n++] = ret;
    const uintptr_t next = *reinterpret_cast<const uintptr_t*>(fp);
    if (next <= fp) break;
    fp = next;
  }
  return n;
}

// fold_recursion (mode 1 or 2), then the depth limit. Out of line, so that the 4 KiB
// fold_cycles needs is on the stack only while it runs, not in every capture's frame.
PROFKIT_RT_NOINLINE uint32_t fold_and_cut(int mode, uintptr_t* pcs, uint32_t n, uint32_t depth) {
  n = mode == 1 ? fold_recursion(pcs, n) : fold_cycles(pcs, n);
  return n < depth ? n : depth;
}

}  // namespace

bool depot_init() {
  // The first 2 MiB of nodes are on small pages: most programs, and every sampled
  // profile, have a few thousand stacks at most (tree sampled: ~80 points, 20 KB of
  // nodes), and the kernel zeroing a whole huge page at the first stack cost more than
  // the small-page faults: ~0.1 ms of a sampled run, and 0.3 ms (8% of its CPU) of a
  // process that allocates a few blocks and exits under the full profile, which every
  // program a shell script or a build starts under `profkit run` is (docs/runtime.md).
  g_node_base = reserve_huge(kNodeSpace, kHugePage);
  // Chains stay on small pages: a program with a handful of stacks would otherwise hold
  // a huge page per chain it touches (measured: no speed gain on 262 144 stacks).
  const uint32_t bits = g_sampling ? kSampledBucketBits : kBucketBits;
  g_bucket_mask = (uint64_t{1} << bits) - 1;
  const size_t bucket_bytes = sizeof(std::atomic<DepotNode*>) << bits;
  g_buckets = static_cast<std::atomic<DepotNode*>*>(os_map_noreserve(bucket_bytes));
  if (g_buckets != nullptr) madvise(g_buckets, bucket_bytes, MADV_NOHUGEPAGE);
  return g_buckets != nullptr;
}

void register_thread_stack(ThreadState* state) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    state->stack_low = reinterpret_cast<uintptr_t>(addr);
    state->stack_high = state->stack_low + size;
  }
  pthread_attr_destroy(&attr);
}

uint32_t fold_recursion(uintptr_t* pcs, uint32_t n) {
  // Frames are appended one at a time; a repeat can only end at the frame just appended,
  // and dropping it leaves a prefix of the frames kept before, which had no repeat: so one
  // check per frame leaves none.
  uint32_t out = 0;
  for (uint32_t i = 0; i < n; ++i) {
    pcs[out++] = pcs[i];
    for (uint32_t p = 1; p <= kFoldMaxPeriod && 2 * p <= out; ++p) {
      uint32_t k = 0;
      while (k < p && pcs[out - 1 - k] == pcs[out - 1 - p - k]) ++k;
      if (k == p) {
        out -= p;
        break;
      }
    }
  }
  return out;
}

uint32_t fold_cycles(uintptr_t* pcs, uint32_t n) {
  // One slot per distinct address, open addressing over twice as many slots as frames: the
  // address (as the input frame `in` that last kept it) and where it was kept. Keyed by the
  // address itself, so an address kept, cut and kept again reuses its slot (keying on
  // positions made recursions re-insert the same few addresses into one ever longer probe
  // chain: quadratic, 10x slower on the parser workload).
  constexpr uint32_t kSlots = 512;
  constexpr uint16_t kEmpty = 0xffff;
  struct Slot {
    uint16_t in, kept_at;
  };
  Slot slots[kSlots];
  for (Slot& slot : slots) slot.in = kEmpty;
  if (n > kSlots / 2) n = kSlots / 2;
  uintptr_t kept[kSlots / 2];
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uintptr_t pc = pcs[i];
    uint32_t s = static_cast<uint32_t>((pc * 0x9E3779B97F4A7C15ull) >> 55);  // 9 bits
    while (slots[s].in != kEmpty && pcs[slots[s].in] != pc) s = (s + 1) & (kSlots - 1);
    Slot& slot = slots[s];
    if (slot.in != kEmpty && slot.kept_at < count && kept[slot.kept_at] == pc) {
      count = slot.kept_at + 1u;  // the cycle since its first occurrence goes
      continue;
    }
    slot.in = static_cast<uint16_t>(i);
    slot.kept_at = static_cast<uint16_t>(count);
    kept[count++] = pc;
  }
  for (uint32_t i = 0; i < count; ++i) pcs[i] = kept[i];
  return count;
}

namespace {

// libunwind's unw_backtrace keeps what it learns per return address in a cache of each
// thread's that nothing empties (unw_flush_cache does not reach it), so once code has been
// unloaded (dlclose, below), frames are stepped one by one instead, through the unwind
// table caches unw_flush_cache does empty. The same frames, each its instruction pointer.
int libunwind_backtrace(void** frames, int max) {
  if (PROFKIT_RT_LIKELY(g_code_generation.load(std::memory_order_relaxed) == 0))
    return unw_backtrace(frames, max);
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) return 0;
  int n = 0;
  do {
    unw_word_t ip;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0) break;
    frames[n++] = reinterpret_cast<void*>(ip);
  } while (n < max && unw_step(&cursor) > 0);
  return n;
}

// A second hash of a walk's frames, independent of the walker's polynomial one: four lanes
// of xor, multiply and shift, so that the chain of dependent multiplies is a quarter of the
// frames long (a fold of a 160-frame walk costs ~700 ns; this, ~60).
uint64_t fold_check(const uintptr_t* pcs, uint32_t n) {
  constexpr uint64_t kMul = 0xD6E8FEB86659FD93ull;
  uint64_t lane[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                      0x082EFA98EC4E6C89ull};
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (uint32_t k = 0; k < 4; ++k) {
      const uint64_t x = (lane[k] ^ pcs[i + k]) * kMul;
      lane[k] = x ^ (x >> 32);
    }
  for (uint32_t k = 0; i < n; ++i, ++k) {
    const uint64_t x = (lane[k] ^ pcs[i]) * kMul;
    lane[k] = x ^ (x >> 32);
  }
  uint64_t h = n;
  for (uint64_t x : lane) {
    h = (h ^ x) * kMul;
    h ^= h >> 29;
  }
  return h;
}

// fold_recursion folds every walk the walker's memo does not answer whole; in a recursion
// (a different leaf depth at nearly every allocation) that is most walks, and folding 160
// frames was two thirds of the run, more than the walk itself. The same unfolded stack
// recurs (24 265 distinct ones in 4.9 M walks of bench/runtime/recursive.cpp), so each
// thread keeps the folded id of the unfolded stacks it saw last: kFoldCacheEntries in sets
// of two, the newer first (1.5 MiB of address space, mapped on first use and touched as
// used; no cache where the mapping fails), keyed by the walker's hash and a second,
// independent one (fold_check) with the length. A wrong answer needs two unrelated 64-bit
// hashes of two different stacks to agree at once. On recursive.cpp 73% of the walks are
// answered (half the sets held too few: 2^13 direct-mapped entries answered 31%).
FoldCacheEntry* fold_cache_set(ThreadState* state, uint64_t hash) {
  if (PROFKIT_RT_UNLIKELY(state->fold_cache == nullptr)) {
    state->fold_cache = static_cast<FoldCacheEntry*>(os_map_noreserve(kFoldCacheBytes));
    if (state->fold_cache == nullptr) return nullptr;
  }
  return &state->fold_cache[(hash >> (64 - kFoldCacheBits)) & ~uint64_t{1}];
}

// The depot id of the walk pcs[0, n) (walker hash `hash`; 0: none) folded and cut to
// `depth`: from the thread's fold cache, else folded, interned and kept there.
uint32_t intern_folded(ThreadState* state, int fold, uint32_t depth, uintptr_t* pcs, uint32_t n,
                       uint64_t hash) {
  FoldCacheEntry* set = hash != 0 ? fold_cache_set(state, hash) : nullptr;
  const uint64_t check = set != nullptr ? fold_check(pcs, n) : 0;
  if (set != nullptr)
    for (int w = 0; w < 2; ++w)
      if (set[w].hash == hash && set[w].check == check && set[w].frames == n && set[w].id != 0) {
        ++state->walk_stats.fold_hits;
        return set[w].id;
      }
  const uint32_t kept = fold_and_cut(fold, pcs, n, depth);
  // The walker's hash is the unfolded stack's, and the memo's ids are of folded stacks:
  // neither helps the depot with the folded frames.
  const uint32_t id = intern(state, pcs, kept, kept == n ? hash : 0, WalkShare{});
  if (set != nullptr && id != 0) {
    set[1] = set[0];
    set[0] = FoldCacheEntry{hash, check, n, id};
  }
  return id;
}

}  // namespace

uint32_t capture_stack(uintptr_t caller_return, uintptr_t caller_frame) {
  constexpr uint32_t kSkipMax = 16;  // runtime frames above the entry point's caller
  uintptr_t pcs[256 + kSkipMax];
  const uint32_t depth = g.stack_depth;
  // Folding walks as deep as the walker goes and cuts after folding, so that a recursion
  // deeper than the depth limit still keeps the frames that called it.
  const int fold = g.options.fold_recursion.value;
  const uint32_t walk_depth = fold ? kWalkMemoSteps - 1 : depth;
  uint32_t n = 0;
  if (!g.options.fast_unwind_on_malloc.value && !g.compat) {
    if (!g.options.use_libunwind.value && tls_state != nullptr) {
      ThreadState* const state = tls_state;
      const uint32_t generation = g_code_generation.load(std::memory_order_acquire);
      if (PROFKIT_RT_UNLIKELY(state->code_generation != generation)) {
        forget_code(state);
        state->code_generation = generation;
      }
      WalkStats& stats = state->walk_stats;
      ++stats.captures;
      if (caller_frame >= state->stack_low && caller_frame < state->stack_high) {
        if (const uint32_t id = exact_stack(state, caller_return, caller_frame, walk_depth)) {
          ++stats.exact_hits;
          return id;
        }
        WalkMemo* memo = nullptr;
        uint64_t hash = 0;
        WalkShare share;
        ++stats.walks;
        n = walk_unwind_tables(state, caller_return, caller_frame, pcs, walk_depth, &memo, &hash,
                               &share);
        stats.frames += n;
        if (n != 0) {
          stats.whole_replays += memo->context_id != 0;
          // A whole replay is the memo's own stack: its id needs no hash and no depot lookup.
          // The option is fixed for the process, so the id a memo keeps (and the exact-stack
          // cache) is always folded or always not.
          if (memo->context_id == 0)
            memo->context_id = fold ? intern_folded(state, fold, depth, pcs, n, hash)
                                    : intern(state, pcs, n, hash, share);
          remember_exact_stack(state, caller_return, caller_frame, walk_depth, memo,
                               memo->context_id);
          return memo->context_id;
        }
      } else {
        // A coroutine's or fiber's stack (or a thread whose stack is unknown): walked afresh
        // each time, then folded and interned below as libunwind's frames would be.
        n = walk_other_stack(state, caller_return, caller_frame, pcs, walk_depth);
        stats.frames += n;
      }
      if (n == 0) ++stats.by_libunwind;
    }
    if (n == 0) {
      void* frames[256 + kSkipMax];
      const int got = libunwind_backtrace(frames, static_cast<int>(walk_depth + kSkipMax));
      int start = -1;
      for (int i = 0; i < got && i < static_cast<int>(kSkipMax); ++i)
        if (reinterpret_cast<uintptr_t>(frames[i]) == caller_return) {
          start = i;
          break;
        }
      if (start >= 0) {
        for (int i = start; i < got && n < walk_depth; ++i)
          pcs[n++] = reinterpret_cast<uintptr_t>(frames[i]);
      }
    }
  }
  if (n == 0) n = walk_frame_pointers(caller_return, caller_frame, pcs, walk_depth);
  return fold ? intern_folded(tls_state, fold, depth, pcs, n, 0)
              : intern(tls_state, pcs, n, 0, WalkShare{});
}

uint32_t depot_intern(const uintptr_t* pcs, uint32_t n, const WalkShare& share) {
  return intern(tls_state, pcs, n, 0, share);
}

const uintptr_t* depot_stack(uint32_t id, uint32_t* size) {
  if (id == 0 || id >= kMaxIds) return nullptr;
  const DepotNode* node = __atomic_load_n(&g_by_id[id], __ATOMIC_ACQUIRE);
  if (node == nullptr) return nullptr;
  *size = node->size;
  return node->pcs;
}

void depot_prefetch(uint32_t id) {
  if (id == 0 || id >= kMaxIds) return;
  const DepotNode* node = __atomic_load_n(&g_by_id[id], __ATOMIC_RELAXED);
  if (node == nullptr) return;
  __builtin_prefetch(node);
  __builtin_prefetch(reinterpret_cast<const char*>(node) + 128);
}

uint32_t depot_size() {
  const uint32_t next = g_next_id.load(std::memory_order_relaxed);
  return next > kMaxIds ? kMaxIds : next;
}

// Unloaded code. The walkers keep what they learnt by return address (frame rules, whole
// walks, and libunwind its own cache), and after a dlclose the loader may put another object
// at the same addresses: a plugin host that unloads one plugin and loads the next got the
// old plugin's frame sizes for the new one's frames (wrong stacks, from either walker).
// dlclose is wrapped: when the loader removed an object, a new code generation is counted
// and libunwind's caches emptied; the process's rules are kept by generation (unwind.cc)
// and each thread drops its own rules and walks before its next walk.
std::atomic<uint32_t> g_code_generation{0};

namespace {

using DlcloseFn = int (*)(void*);
std::atomic<DlcloseFn> g_real_dlclose{nullptr};

DlcloseFn real_dlclose() {
  DlcloseFn f = g_real_dlclose.load(std::memory_order_acquire);
  if (PROFKIT_RT_UNLIKELY(f == nullptr)) {
    f = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
    g_real_dlclose.store(f, std::memory_order_release);
  }
  return f;
}

// How many objects the loader has removed since the process started.
uint64_t objects_removed() {
  uint64_t subs = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
          *static_cast<uint64_t*>(out) = info->dlpi_subs;
        return 1;  // the first object has the count
      },
      &subs);
  return subs;
}

}  // namespace
}  // namespace profkit::rt

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
  using namespace profkit::rt;
  const DlcloseFn real = real_dlclose();
  if (real == nullptr) return -1;  // no loader to forward to; cannot happen with glibc
  const uint64_t removed = objects_removed();
  const int result = real(handle);
  const int saved_errno = errno;
  if (objects_removed() != removed) {  // not just a reference dropped
    unw_flush_cache(unw_local_addr_space, 0, 0);
    const uint32_t generation = g_code_generation.fetch_add(1, std::memory_order_acq_rel) + 1;
    if ((generation & 0xffff) == 0) forget_shared_rules();  // its keys' generations wrap
  }
  errno = saved_errno;
  return result;
}
