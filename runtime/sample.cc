// Sampled profiles: the per-thread Poisson countdown, block weights, and the reserved range
// that holds every sampled block (small ones through heap.cc's spans, the rest here).
#include "runtime/sample.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#ifndef MREMAP_DONTUNMAP  // Linux 5.7; older kernels refuse it and blocks are copied
#define MREMAP_DONTUNMAP 4
#endif

#include "runtime/arena.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/line_writer.h"
#include "runtime/spin_lock.h"
#include "runtime/thread_state.h"

namespace profkit::rt {

bool g_sampling = false;
uintptr_t g_big_begin = 0, g_big_end = 0;
uintptr_t g_sample_begin = 0;
uintptr_t g_sample_size = ~uintptr_t{0};
__thread uint64_t tls_sample_left PROFKIT_RT_TLS = 0;

namespace {

__thread uint64_t tls_rng PROFKIT_RT_TLS = 0;  // splitmix64 state; 0 = not seeded
double g_interval = 0;
uint64_t g_seed = 0;
std::atomic<uint64_t> g_thread_seeds{0};
using UsableSize = size_t (*)(void*);
UsableSize g_libc_usable = nullptr;
using Memalign = void* (*)(size_t, size_t);
Memalign g_libc_memalign = nullptr;

// 1 TiB of address space (PROT_NONE, so nothing is committed until carved): the first
// half for heap.cc's spans, the second for larger blocks. Under an address-space limit
// (`ulimit -v`, valgrind) an eighth at a time down to 256 MiB: a sampled block that finds
// no room is served unsampled (its weight is lost), where failing to reserve any range
// profiled every allocation, 10x the cost of the sampled run the user asked for.
constexpr uintptr_t kRangeBytes = uintptr_t{1} << 40;
constexpr uintptr_t kMinRangeBytes = uintptr_t{1} << 28;
constexpr uintptr_t kPage = 4096;
uintptr_t g_span_cursor = 0;  // under heap.cc's span lock
SpinLock g_big_lock;          // the rest: larger blocks' cursor and free lists
uintptr_t g_big_cursor = 0;
// Larger blocks come in page-count classes, four per doubling; a freed block keeps its
// first page (its link and size) and waits on one of its class's two lists for the next
// of that class: `clean` ones had their other pages given back to the kernel (they read as
// zeros), `dirty` ones keep them. A program that allocates and frees vectors of 40-800 KiB
// has nearly every one sampled at the default interval; giving every freed block's pages
// back made each next block fault them in again (600 000 page faults against plain's
// 130 000, twice plain's time), where glibc reuses its freed memory as it is. Dirty blocks
// are kept while they add up to no more than the most bytes live blocks here ever held,
// within [kDirtyFloor, kDirtyCap]: what the range holds beyond its live blocks is bounded
// by the program's own peak, and by 64 MiB (glibc's largest trim threshold). A floor of 4
// MiB left that vector program with 220 000 faults, 8 MiB with 97 000 (16 MiB: 72 000); a
// bound of the bytes live at the time (instead of the peak) gave back half of 400 buffers
// freed at the end of each round of bench/runtime/shapes/usable.c, which the next round
// faulted in again (46 000 faults against plain's 7 000).
constexpr uint32_t kBigClasses = 4 + 4 * 40;
constexpr uint64_t kDirtyFloor = uint64_t{8} << 20, kDirtyCap = uint64_t{64} << 20;
constexpr uint64_t kMoveFrom = uint64_t{256} << 10;  // sample_big_resize
// Blocks up to kKeepAlways are kept whenever there is room; larger ones, up to kKeepAtMost,
// only in a class the program has come back to: one whose block was given back and then
// asked for again (g_big_regret). A buffer that grows by doubling (open_memstream's, to 12
// MiB) frees each size once, and kept they raised that program's peak RSS from 27 to 49 MiB
// (compiler-rt's: 34); work buffers of 64 KiB-4 MiB made and freed at random (shapes/
// bigchurn.c) ask for every class again and again, and with blocks above 2 MiB always
// given back faulted in 2 million pages, 8x plain's time and 0.75x compiler-rt's overhead.
constexpr uint64_t kKeepAlways = uint64_t{2} << 20;
constexpr uint64_t kKeepAtMost = uint64_t{32} << 20;
// Per class above kKeepAlways: 1 once a block of it was given back, 2 once a block of it
// was asked for after that and none was kept (its blocks are kept from then on).
uint8_t g_big_regret[kBigClasses];
uintptr_t g_big_clean[kBigClasses];
uintptr_t g_big_dirty[kBigClasses];
uint64_t g_big_dirty_bytes = 0;  // on the dirty lists
uint64_t g_big_live_bytes = 0;   // taken and not given back
uint64_t g_big_peak_bytes = 0;   // the most g_big_live_bytes has been
struct BigBlock {
  uintptr_t next;
  uint64_t bytes;
};

inline uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Natural logarithm of x > 0 (normal numbers), ~1e-13 relative: no libm in the runtime.
double log_of(double x) {
  uint64_t bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1023} << 52);
  double m;
  __builtin_memcpy(&m, &bits, sizeof m);
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double z = (m - 1) / (m + 1), z2 = z * z;  // ln m = 2 atanh z, |z| < 0.172
  double series = 0;
  for (int k = 17; k >= 1; k -= 2) series = series * z2 + 1.0 / k;
  return e * 0.6931471805599453 + 2 * z * series;
}

// 1 - exp(-x) for x >= 0, without cancellation for small x.
double one_minus_exp_neg(double x) {
  if (x < 0.5) {  // sum_{k>=1} (-1)^(k+1) x^k / k!, Horner form
    double term = 0;
    for (int k = 16; k >= 1; --k) term = x / k * (1 - term);
    return term;
  }
  if (x > 40) return 1;
  // exp(-x) = 2^-n exp(-r), r = x - n ln 2 in [-0.35, 0.35]
  const int n = static_cast<int>(x / 0.6931471805599453 + 0.5);
  const double r = x - n * 0.6931471805599453;
  double e = 1;
  for (int k = 16; k >= 1; --k) e = 1 - r / k * e;
  const uint64_t scale_bits = static_cast<uint64_t>(1023 - n) << 52;
  double scale;
  __builtin_memcpy(&scale, &scale_bits, sizeof scale);
  return 1 - e * scale;
}

// Bytes until the next sample point: exponential with mean g_interval, at least 1 (and
// below 2^46: -ln u <= 37 and g_interval <= 2^40).
uint64_t draw_countdown() {
  const double u = static_cast<double>((splitmix64(&tls_rng) >> 11) + 1) * 0x1p-53;  // (0, 1]
  const double bytes = -log_of(u) * g_interval;
  return bytes < 1 ? 1 : static_cast<uint64_t>(bytes) + 1;
}

void seed_thread() {
  // Threads are seeded in the order they first allocate: with sample_seed a
  // single-threaded program samples the same blocks on every run.
  uint64_t s = g_seed + g_thread_seeds.fetch_add(1, std::memory_order_relaxed) * 0xD1B54A32D192ED03ull;
  tls_rng = splitmix64(&s) | 1;
}

inline uint32_t big_class(uint64_t pages, uint64_t* rounded) {
  if (pages <= 4) {
    *rounded = pages;
    return static_cast<uint32_t>(pages - 1);
  }
  const uint32_t p = 63 - static_cast<uint32_t>(__builtin_clzll(pages - 1));  // 2^p < pages
  const uint64_t step = uint64_t{1} << (p - 2);
  const uint64_t k = (pages - (uint64_t{1} << p) + step - 1) / step;  // 1..4
  *rounded = (uint64_t{1} << p) + k * step;
  return 4 + 4 * (p - 2) + static_cast<uint32_t>(k - 1);
}

}  // namespace

void sample_init() {
  const int64_t interval = g.options.sample_interval.value;
  if (interval <= 1) return;  // 1: every byte is a sample point, which is the full profile
  size_t bytes = kRangeBytes;
  void* range = os_map_largest(&bytes, kMinRangeBytes, false);
  if (range == nullptr) {
    LineWriter().str("profkit-memprof: error: cannot reserve address space for sampling; "
                     "profiling every allocation").flush_to(2);
    return;
  }
  g_sample_begin = reinterpret_cast<uintptr_t>(range);
  g_sample_size = bytes;
  g_span_cursor = g_sample_begin;
  g_big_begin = g_big_cursor = g_sample_begin + bytes / 2;
  g_big_end = g_sample_begin + bytes;
  g_interval = static_cast<double>(interval);
  if (g.options.sample_seed.value != 0) {
    g_seed = static_cast<uint64_t>(g.options.sample_seed.value);
  } else {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    g_seed = static_cast<uint64_t>(now.tv_nsec) ^ (static_cast<uint64_t>(now.tv_sec) << 30) ^
             (static_cast<uint64_t>(getpid()) << 12);
  }
  // From here on every allocation is either in the range or glibc's own (dlsym's too).
  g_sampling = true;
  // The definitions after the runtime's own: libc's (the runtime comes first in lookups).
  g_libc_usable = reinterpret_cast<UsableSize>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  g_libc_memalign = reinterpret_cast<Memalign>(dlsym(RTLD_NEXT, "memalign"));
}

void big_pages_init() {
  if (g_big_end != 0) return;  // sampling has its range
  // All of it or nothing: under an address-space limit (`ulimit -v`) a smaller reservation
  // would take from what the program itself can map, and the program must not fail an
  // allocation it makes without the runtime. Large blocks then stay glibc's, with a header.
  size_t bytes = kRangeBytes;
  void* range = os_map_largest(&bytes, kRangeBytes, false);
  if (range == nullptr) return;
  g_big_begin = g_big_cursor = reinterpret_cast<uintptr_t>(range);
  g_big_end = g_big_begin + bytes;
}

bool sample_take(uint64_t size) {
  if (PROFKIT_RT_UNLIKELY(tls_rng == 0)) {  // the thread's first allocation: draw first
    seed_thread();
    const uint64_t left = draw_countdown();
    if (size < left) {
      tls_sample_left = left - size;
      return false;
    }
  }
  // The process is memoryless, so the next countdown starts afresh at this block's end.
  tls_sample_left = draw_countdown();
  return true;
}

uint64_t sample_weight(uint64_t size) {
  const double w = 1 / one_minus_exp_neg(static_cast<double>(size) / g_interval);
  const auto whole = static_cast<uint64_t>(w);
  if (PROFKIT_RT_UNLIKELY(tls_rng == 0)) seed_thread();
  const double u = static_cast<double>(splitmix64(&tls_rng) >> 11) * 0x1p-53;
  return whole + (u < w - static_cast<double>(whole));
}

void sample_live_weight(uint64_t size, int64_t* bytes, int64_t* blocks) {
  const double w = 1 / one_minus_exp_neg(static_cast<double>(size) / g_interval);
  *bytes = static_cast<int64_t>(static_cast<double>(size) * w + 0.5);
  *blocks = static_cast<int64_t>(w + 0.5);
}

size_t libc_usable_size(void* p) { return g_libc_usable != nullptr ? g_libc_usable(p) : 0; }
void* plain_memalign(size_t alignment, size_t size) {
  if (PROFKIT_RT_LIKELY(g_libc_memalign != nullptr)) return g_libc_memalign(alignment, size);
  const uintptr_t user = sample_big_alloc(size, alignment < kChunkAlignment ? kChunkAlignment : alignment, false);
  if (user == 0) return nullptr;
  ChunkHeader* header = header_of(reinterpret_cast<void*>(user));
  header->size = size;
  header->context_id = 0;
  return reinterpret_cast<void*>(user);
}

void* sample_reserve_spans(size_t bytes) {
  if (g_span_cursor + bytes > g_sample_begin + g_sample_size / 2) return nullptr;
  void* p = reinterpret_cast<void*>(g_span_cursor);
  if (mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) return nullptr;
  g_span_cursor += bytes;
  return p;
}

namespace {

// A block of class `cls` (`bytes` long, from big_class): a freed one of that class, else a
// dirty one of one of the next kLargerClasses classes (below), else fresh pages at the
// cursor; `*dirty` tells whether its pages past the first may hold old bytes. For a zeroed
// block a clean one is taken first, else a dirty one. The block's own length is in its
// BigBlock (more than `bytes` for a larger class's). 0 when the range is used up.
// Larger dirty blocks: a program whose buffers have sizes spread over many classes (64 KiB
// to 4 MiB at random) seldom freed one of the class it next asked for, so nearly every
// block came from fresh or emptied pages and faulted them in while the dirty lists held
// tens of MiB (bench/runtime/shapes/bigchurn.c: 10 million faults). A kept block's pages
// are resident already, so using one up to twice the size costs no memory that is not
// held anyway.
constexpr uint32_t kLargerClasses = 4;
uintptr_t take_big(uint32_t cls, uint64_t bytes, bool zero, bool* dirty) {
  g_big_lock.lock();
  uintptr_t* const lists[2] = {zero ? g_big_clean : g_big_dirty, zero ? g_big_dirty : g_big_clean};
  uintptr_t base = 0;
  *dirty = false;
  for (uintptr_t* list : lists) {
    base = list[cls];
    if (base == 0) continue;
    list[cls] = reinterpret_cast<BigBlock*>(base)->next;
    *dirty = list == g_big_dirty;
    break;
  }
  for (uint32_t c = cls + 1; base == 0 && c <= cls + kLargerClasses && c < kBigClasses; ++c) {
    base = g_big_dirty[c];
    if (base == 0) continue;
    g_big_dirty[c] = reinterpret_cast<BigBlock*>(base)->next;
    *dirty = true;
    bytes = reinterpret_cast<BigBlock*>(base)->bytes;
  }
  if (*dirty) g_big_dirty_bytes -= bytes;
  // Asked for with none of its class kept (not a calloc that preferred a clean one).
  if (g_big_regret[cls] == 1 && g_big_dirty[cls] == 0 && !*dirty) g_big_regret[cls] = 2;
  if (base == 0 && g_big_cursor + bytes <= g_big_end &&
      mprotect(reinterpret_cast<void*>(g_big_cursor), bytes, PROT_READ | PROT_WRITE) == 0) {
    base = g_big_cursor;
    g_big_cursor += bytes;
  }
  if (base != 0) {
    g_big_live_bytes += bytes;
    if (g_big_live_bytes > g_big_peak_bytes) g_big_peak_bytes = g_big_live_bytes;
  }
  g_big_lock.unlock();
  if (base != 0) reinterpret_cast<BigBlock*>(base)->bytes = bytes;
  return base;
}

// Gives a block's pages past the first (its link and size) back to the kernel.
void empty_pages(uintptr_t base, uint64_t bytes) {
  if (bytes > kPage) madvise(reinterpret_cast<void*>(base + kPage), bytes - kPage, MADV_DONTNEED);
}

// A block onto the list of class `cls` (`list`: g_big_dirty or g_big_clean). Under
// g_big_lock.
void link_big(uintptr_t* list, uint32_t cls, uintptr_t base, uint64_t bytes) {
  auto* block = reinterpret_cast<BigBlock*>(base);
  block->bytes = bytes;
  block->next = list[cls];
  list[cls] = base;
}

// A block no longer live onto its class's list. Under g_big_lock.
void push_big(uintptr_t* list, uint32_t cls, uintptr_t base, uint64_t bytes) {
  link_big(list, cls, base, bytes);
  g_big_live_bytes -= bytes;
}

// Gives kept blocks back, the largest classes first, until the kept ones add up to at most
// `target` bytes (g_big_lock held): kept blocks that no allocation took again (a burst of
// 300 KiB buffers freed once) held the room while a size the program kept coming back to
// was given back and faulted in at every round.
void make_room(uint64_t target) {
  for (uint32_t c = kBigClasses; g_big_dirty_bytes > target && c-- > 0;)
    while (g_big_dirty[c] != 0 && g_big_dirty_bytes > target) {
      const uintptr_t base = g_big_dirty[c];
      const uint64_t bytes = reinterpret_cast<BigBlock*>(base)->bytes;
      g_big_dirty[c] = reinterpret_cast<BigBlock*>(base)->next;
      g_big_dirty_bytes -= bytes;
      empty_pages(base, bytes);
      link_big(g_big_clean, c, base, bytes);
    }
}

// A freed block kept as it is, on its class's dirty list, when it is small enough, its size
// is one to keep, and at most the room (kept blocks are given back to make it); false
// (nothing done) if not.
bool keep_big(uintptr_t base, uint64_t bytes) {
  if (bytes > kKeepAtMost) return false;
  uint64_t rounded;
  const uint32_t cls = big_class(bytes / kPage, &rounded);
  g_big_lock.lock();
  const uint64_t peak = g_big_peak_bytes;
  const uint64_t room = peak < kDirtyFloor ? kDirtyFloor : peak > kDirtyCap ? kDirtyCap : peak;
  const bool wanted = bytes <= kKeepAlways || g_big_regret[cls] == 2;
  const bool keep = wanted && bytes <= room;
  if (keep) {
    make_room(room - bytes);
    push_big(g_big_dirty, cls, base, bytes);
    g_big_dirty_bytes += bytes;
  } else if (bytes > kKeepAlways && g_big_regret[cls] == 0) {
    g_big_regret[cls] = 1;
  }
  g_big_lock.unlock();
  return keep;
}

// A freed block whose pages past the first are empty, on its class's clean list.
void give_big(uintptr_t base, uint64_t bytes) {
  uint64_t rounded;
  const uint32_t cls = big_class(bytes / kPage, &rounded);
  g_big_lock.lock();
  push_big(g_big_clean, cls, base, bytes);
  g_big_lock.unlock();
}

std::atomic<bool> g_no_page_moves{false};  // the kernel refused MREMAP_DONTUNMAP once

}  // namespace

uintptr_t sample_big_alloc(uint64_t size, uintptr_t alignment, bool zero) {
  // Bases are page-aligned, so a user pointer aligned to `alignment` with its header in
  // front lies at most `alignment` bytes past the base.
  const uint64_t pages = (size + alignment + kPage - 1) / kPage;
  uint64_t rounded;
  const uint32_t cls = big_class(pages, &rounded);
  if (cls >= kBigClasses) return 0;
  bool dirty;
  const uintptr_t base = take_big(cls, rounded * kPage, zero, &dirty);
  if (base == 0) return 0;
  const uintptr_t user = (base + sizeof(BigBlock) + sizeof(ChunkHeader) + alignment - 1) & ~(alignment - 1);
  header_of(reinterpret_cast<void*>(user))->origin = static_cast<uint32_t>((user - base) >> 4);
  // A clean block can hold old bytes in its first page only: its other pages went back to
  // the kernel (sample_big_free, or mremap's emptied source), which fills them with zeros,
  // and fresh pages were never written. Zeroing the whole block made a sampled 1 GiB
  // calloc write 1 GiB (0.3 s and 1 GiB resident, where glibc's calloc touches nothing).
  // A dirty block is zeroed whole, as glibc zeroes memory it reuses. Not the program's
  // access: the runtime's memset would count every byte of it (37% of a run of 512 KiB
  // callocs), to have the counts cleared when the block is tracked.
  if (zero) {
    RuntimeScope scope;
    const uint64_t stale = dirty ? size : user < base + kPage ? base + kPage - user : 0;
    __builtin_memset(reinterpret_cast<void*>(user), 0, size < stale ? size : stale);
  }
  return user;
}

uintptr_t sample_big_resize(uintptr_t base, uint64_t offset, uint64_t size) {
  const uint64_t old_bytes = reinterpret_cast<BigBlock*>(base)->bytes;
  if (offset + size <= old_bytes) return base + offset;
  // Below kMoveFrom a copy into a kept block costs less than the move (a system call, a
  // TLB flush, and old pages that come back empty: faults when they are used again): 400
  // buffers grown by half at a time to 64 KiB made 3 000 moves a round.
  if (old_bytes < kMoveFrom || g_no_page_moves.load(std::memory_order_relaxed)) return 0;
  // Twice the room needed: a buffer that keeps growing moves once per doubling, not at
  // every class (a move costs a TLB flush, 80 us here); pages never touched cost nothing.
  uint64_t rounded;
  const uint32_t cls = big_class(2 * ((offset + size + kPage - 1) / kPage), &rounded);
  if (cls >= kBigClasses) return 0;
  bool dirty;  // the pages past the old ones are the program's to fill either way
  const uintptr_t moved = take_big(cls, rounded * kPage, false, &dirty);
  if (moved == 0) return 0;
  const uint64_t moved_bytes = reinterpret_cast<BigBlock*>(moved)->bytes;  // the move overwrites it
  // The old pages replace the new block's first ones, and the old range stays mapped, empty:
  // the reservation never has a hole another mapping could take.
  if (mremap(reinterpret_cast<void*>(base), old_bytes, old_bytes,
             MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
             reinterpret_cast<void*>(moved)) == MAP_FAILED) {
    // The kernel may have unmapped the destination before failing (ENOMEM past the map
    // count), so that block is never used again: moves stop here, and blocks are copied.
    g_no_page_moves.store(true, std::memory_order_relaxed);
    return 0;
  }
  reinterpret_cast<BigBlock*>(moved)->bytes = moved_bytes;
  give_big(base, old_bytes);  // emptied by the move
  return moved + offset;
}

void sample_big_free(uintptr_t base) {
  const uint64_t bytes = reinterpret_cast<BigBlock*>(base)->bytes;
  if (keep_big(base, bytes)) return;
  empty_pages(base, bytes);  // not kept as it is
  give_big(base, bytes);
}

void sample_lock_for_fork() { g_big_lock.lock(); }
void sample_unlock_after_fork(bool child) { g_big_lock.unlock_after_fork(child); }

}  // namespace profkit::rt
