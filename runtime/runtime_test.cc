// Unit tests of the runtime's own pieces: the small-block heap, the MIB table and the stack
// depot. Linked with the static runtime, which then serves this test's own allocations too
// (so GoogleTest itself runs on it); not built with sanitizers, whose allocator it replaces.
#include <dlfcn.h>
#include <errno.h>
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "runtime/access.h"
#include "runtime/clock.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/mib_table.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"
#include "runtime/walker.h"

namespace profkit::rt {
namespace {

TEST(HeapClasses, StridesGrowAndEveryNeedMapsToTheSmallestClassHoldingIt) {
  const HeapLayout& l = kGranularLayout;
  uint64_t previous = 0;
  for (uint32_t cls = 0; cls < kHeapClasses; ++cls) {
    const uint64_t stride = heap_stride(l, cls);
    EXPECT_GT(stride, previous) << cls;
    EXPECT_EQ(stride % 64, 0u) << "user pointers stay 64-byte aligned, class " << cls;
    EXPECT_EQ(heap_class_of(l, stride), cls);
    EXPECT_EQ(heap_class_of(l, previous + 1), cls) << "one byte more than the class below";
    previous = stride;
  }
  EXPECT_EQ(heap_stride(l, kHeapClasses - 1), kHeapMaxStride);
}

// The dense layout (allocation-only runs): strides in steps of 16 (glibc's) up to 256, at
// most an eighth of the stride wasted above, and every need maps to the smallest stride
// holding it; detached classes of 16-64 user bytes only (below).
TEST(HeapClasses, DenseStridesAreFineAndEveryNeedMapsToTheSmallestClassHoldingIt) {
  const HeapLayout& l = kDenseLayout;
  EXPECT_EQ(l.first_detached, kDenseDetachedFrom);
  EXPECT_EQ(l.min_alignment, 16u);
  std::vector<uint64_t> strides;
  for (uint32_t cls = 0; cls < l.first_detached; ++cls)
    if (heap_stride(l, cls) != 0) strides.push_back(heap_stride(l, cls));
  EXPECT_EQ(strides.size(), kDenseSmallClasses + (kHeapClasses - 16));
  std::sort(strides.begin(), strides.end());
  EXPECT_EQ(strides.front(), 48u);
  EXPECT_EQ(strides.back(), kHeapMaxStride + 16);
  for (size_t i = 0; i < strides.size(); ++i) {
    EXPECT_EQ(strides[i] % 16, 0u) << strides[i];
    if (i == 0) continue;
    EXPECT_GT(strides[i], strides[i - 1]);
    if (strides[i] <= 256) {
      EXPECT_EQ(strides[i], 48 + 16 * i);
    } else {
      EXPECT_LE(strides[i] - strides[i - 1], strides[i - 1] / 4 + 16);
    }
    // Above 1 KiB not a multiple of 64: consecutive slots start at moving offsets
    // modulo 4 KiB, so one field of many blocks does not crowd a few L1 sets.
    if (strides[i] > 1024) {
      EXPECT_EQ(strides[i] % 64, 16u) << strides[i];
    }
  }
  // Above 1 KiB the class is the granular layout's (four per doubling), its stride 16 bytes
  // longer: the smallest holding the need but for those 16 bytes.
  for (uint64_t need = sizeof(ChunkHeader) + 1; need <= kHeapMaxStride; ++need) {
    const uint64_t pad = need > 1024 ? 16 : 0;
    const uint64_t want =
        *std::find_if(strides.begin(), strides.end(), [&](uint64_t s) { return s - (s > 1024 ? pad : 0) >= need; });
    ASSERT_EQ(heap_stride(l, heap_class_of(l, need)), want) << need;
    ASSERT_EQ(heap_class_for(l, need - sizeof(ChunkHeader), false), heap_class_of(l, need));
  }
}

// The dense layout's detached classes: blocks of 1-64 bytes take a slot of their size
// rounded to 16, their header in the span's array, and slot plus header never take more
// bytes than the class with the header in front would (glibc's density for the program's
// data: a list of 24-byte nodes took 64-byte slots, and traversing it 30 times cost 1.4 s
// against glibc's 0.08, the working window no longer fitting the L1).
TEST(HeapClasses, DenseSmallBlocksTakeDetachedSlotsOfTheirSizeAtNoMoreBytes) {
  const HeapLayout& l = kDenseLayout;
  for (uint32_t i = 0; i < kDenseDetachedClasses; ++i)
    EXPECT_EQ(heap_stride(l, kDenseDetachedFrom + i), 16u * (i + 1));
  for (uint64_t size = 1; size <= 1024; ++size) {
    const uint32_t inline_cls = heap_class_for(l, size, false);
    const uint32_t cls = heap_class_for(l, size, true);
    ASSERT_LT(cls, kHeapAllClasses) << size;
    if (size <= 64) {
      ASSERT_GE(cls, kDenseDetachedFrom) << size;
      ASSERT_EQ(heap_stride(l, cls), (size + 15) / 16 * 16) << size;
      ASSERT_LE(heap_stride(l, cls) + sizeof(ChunkHeader), heap_stride(l, inline_cls)) << size;
    } else {
      ASSERT_EQ(cls, inline_cls) << size;
    }
  }
  // No over-aligned classes: those blocks stay glibc's in this layout.
  EXPECT_EQ(heap_aligned_class(l, 100, 128), kHeapAllClasses);
}

// A program without instrumented code gets the dense layout (nothing reads the shadow):
// a 40-byte block (a Lua closure) costs 80 bytes, a 48-byte slot and its 32-byte header
// (the granular layout's detached class takes 64 + 32). This binary is not instrumented;
// its second run
// (profkit_runtime_tests_granular, histogram=1) is in the granular layout.
TEST(Heap, AllocationOnlyProgramsGetTheDenseLayout) {
  void* p = malloc(40);
  asm volatile("" : "+r"(p));  // a real call, not one the compiler may elide with the free
  ASSERT_NE(p, nullptr);
  const ChunkHeader* h = header_of(p);
  ASSERT_TRUE((h->origin & kSmallBlock) != 0);
  const uint32_t cls = h->origin & ~kSmallBlock;
  if (g.histogram) {
    EXPECT_EQ(g_heap_layout.min_alignment, 64u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    EXPECT_EQ(heap_stride(cls), 64u);  // the detached class (user bytes only)
  } else {
    EXPECT_EQ(g_heap_layout.min_alignment, 16u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
    EXPECT_EQ(heap_stride(cls), 48u);  // the detached class
    EXPECT_TRUE(heap_detached_class(cls));
    EXPECT_EQ(header_of(p), h);
  }
  free(p);
}

// The owner's lock() is a plain store and load; lock_other() must still exclude it (the
// membarrier). Two counters bumped one after the other inside the lock must never be seen
// apart, and no increment may be lost.
TEST(OwnerLock, OtherThreadsAndTheOwnerExcludeEachOther) {
  static OwnerLock lock;
  static std::atomic<uint64_t> a{0}, b{0};
  auto bump = [](uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
    b.store(b.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  };
  constexpr uint64_t kOwner = 2'000'000, kOther = 2'000;
  std::atomic<bool> other_done{false};
  uint64_t torn = 0;
  std::thread other([&] {
    for (uint64_t i = 0; i < kOther; ++i) {
      lock.lock_other();
      if (a.load(std::memory_order_relaxed) != b.load(std::memory_order_relaxed)) ++torn;
      bump(1000);
      lock.unlock_other();
    }
    other_done.store(true);
  });
  uint64_t owner_rounds = 0;
  while (owner_rounds < kOwner || !other_done.load()) {
    lock.lock();
    bump(1);
    lock.unlock();
    ++owner_rounds;
  }
  other.join();
  EXPECT_EQ(torn, 0u);
  EXPECT_EQ(a.load(), owner_rounds + 1000 * kOther);
  EXPECT_EQ(b.load(), a.load());
}

// Timestamps are milliseconds since the start-up second (g.time_origin_sec). The coarse
// clock (the default where the kernel tick is at most 4 ms) is the kernel's time at its last
// tick: never later than the exact clock, and behind it by less than two ticks, or more
// when a tick comes late on a loaded VM (10 ms was seen once in 10^5 reads): the bound
// checked is 50 ms.
TEST(Clock, TimestampsFollowTheExactClockAndAreNeverAhead) {
  timespec res{};
  ASSERT_EQ(clock_getres(CLOCK_REALTIME_COARSE, &res), 0);
  EXPECT_EQ(clock_is_coarse(), res.tv_sec == 0 && res.tv_nsec <= 4'000'000);
  auto exact_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return (t.tv_sec - g.time_origin_sec) * 1000 + t.tv_nsec / 1'000'000;
  };
  int64_t lag_max = 0;
  for (int i = 0; i < 20000; ++i) {
    const int64_t before = exact_ms();
    const int64_t got = now_ms();
    const int64_t after = exact_ms();
    ASSERT_LE(got, after);
    lag_max = std::max(lag_max, before - got);
  }
  EXPECT_LT(lag_max, 50);
}

// current_cpu reads the kernel's rseq field inline where glibc registered it: pinned to
// each CPU it may run on, the thread reads that CPU, as sched_getcpu does.
TEST(Clock, CurrentCpuIsTheCpuTheThreadRunsOn) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  std::thread([&allowed] {
    int checked = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && checked < 8; ++cpu) {
      if (!CPU_ISSET(cpu, &allowed)) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
      EXPECT_EQ(current_cpu(), static_cast<uint32_t>(cpu));
      EXPECT_EQ(sched_getcpu(), cpu);
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }).join();
}

struct LockedState {
  ThreadState* state;
  LockedState() : state(current_thread_state()) { state->lock.lock(); }
  ~LockedState() { state->lock.unlock(); }
};

TEST(Heap, AFreedBlockIsTheNextOneTaken) {
  const uint32_t cls = heap_class_of(200);
  ChunkHeader *a, *again;
  {
    LockedState s;
    a = heap_take(s.state, cls);
    if (a != nullptr) heap_give(s.state->heap[cls], a);
    again = heap_take(s.state, cls);
    if (again != nullptr) heap_give(s.state->heap[cls], again);
  }
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(again, a);
}

// Requires: no allocation while the state's lock is held (malloc here is the runtime's,
// which takes the same lock), so blocks are collected in a fixed array and checked after.
TEST(Heap, BlocksAreDistinctAndTheirUserPointersAligned) {
  constexpr int kBlocks = 500;
  static ChunkHeader* taken[kBlocks];
  const uint32_t cls = heap_class_of(1000);
  {
    LockedState s;
    for (ChunkHeader*& b : taken) b = heap_take(s.state, cls);
  }
  std::set<ChunkHeader*> distinct(std::begin(taken), std::end(taken));
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(distinct.count(nullptr), 0u);
  for (ChunkHeader* b : taken)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b + 1) % g_heap_layout.min_alignment, 0u);
  // Slots never overlap: sorted, neighbours are at least a stride apart.
  ChunkHeader* previous = nullptr;
  for (ChunkHeader* b : distinct) {
    if (previous != nullptr) {
      EXPECT_GE(reinterpret_cast<uintptr_t>(b) - reinterpret_cast<uintptr_t>(previous),
                heap_stride(cls));
    }
    previous = b;
  }
  LockedState s;
  for (ChunkHeader* b : taken) heap_give(s.state->heap[cls], b);
}

TEST(HeapClasses, DetachedClassesOnlyWhereTheyTakeLessMemory) {
  const HeapLayout& l = kGranularLayout;
  for (uint64_t size = 1; size <= 2048; ++size) {
    const uint32_t inline_cls = heap_class_of(l, size + sizeof(ChunkHeader));
    const uint32_t cls = heap_class_for(l, size, true);
    EXPECT_EQ(heap_class_for(l, size, false), inline_cls) << size;
    if (cls < kHeapClasses) {
      EXPECT_EQ(cls, inline_cls) << size;
      // The header fits in the slack of the block's last granule, or the block is large.
      EXPECT_TRUE(size > 1024 || (size + 63) / 64 * 64 == heap_stride(l, cls)) << size;
      continue;
    }
    ASSERT_LT(cls, kHeapAllClasses) << size;
    EXPECT_GE(heap_stride(l, cls), size) << size;
    EXPECT_LT(heap_stride(l, cls) - size, 64u) << size;
    EXPECT_LT(heap_stride(l, cls), heap_stride(l, inline_cls)) << size;
  }
}

// Detached headers: found from the user pointer alone, and given back by heap_user_of;
// user ranges aligned as the layout's (64 bytes granular, 16 dense), a whole stride each,
// and never over a header. Both layouts: this binary runs once in each.
TEST(Heap, DetachedBlocksFindTheirHeaders) {
  constexpr int kBlocks = 1500;  // more than one span of 64-byte (granular) or 32-byte slots
  static ChunkHeader* taken[kBlocks];
  const bool granular = heap_granular(g_heap_layout);
  const uint32_t cls = heap_class_for(granular ? 56 : 24, true);
  ASSERT_GE(cls, g_heap_layout.first_detached);
  ASSERT_EQ(heap_stride(cls), granular ? 64u : 32u);
  {
    LockedState s;
    for (ChunkHeader*& b : taken) b = heap_take(s.state, cls);
  }
  std::set<uintptr_t> users, headers;
  for (ChunkHeader* b : taken) {
    ASSERT_NE(b, nullptr);
    const uintptr_t user = heap_user_of(b, cls);
    EXPECT_EQ(user % g_heap_layout.min_alignment, 0u);
    EXPECT_EQ(header_of(reinterpret_cast<void*>(user)), b);
    users.insert(user);
    headers.insert(reinterpret_cast<uintptr_t>(b));
  }
  EXPECT_EQ(users.size(), static_cast<size_t>(kBlocks));
  uintptr_t previous = 0;
  for (uintptr_t u : users) {
    if (previous != 0) {
      EXPECT_GE(u - previous, heap_stride(cls));
    }
    previous = u;
    const auto h = headers.lower_bound(u);
    if (h != headers.end()) {
      EXPECT_GE(*h, u + heap_stride(cls));
    }
  }
  LockedState s;
  for (ChunkHeader* b : taken) heap_give(s.state->heap[cls], b);
}

// Over-aligned small blocks: a detached class whose stride is the size rounded up to the
// alignment, while that stride is at most 1 KiB or the alignment itself (2 or 4 KiB); none
// in the dense layout, nor for a size whose rounding would wrap.
TEST(HeapClasses, OverAlignedBlocksGetADetachedStrideOfTheirAlignment) {
  const HeapLayout& l = kGranularLayout;
  for (uintptr_t alignment = 128; alignment <= 4096; alignment *= 2) {
    for (uint64_t size = 1; size <= 1100; ++size) {
      const uint64_t stride = (size + alignment - 1) / alignment * alignment;
      const uint32_t cls = heap_aligned_class(l, size, alignment);
      EXPECT_EQ(heap_aligned_class(kDenseLayout, size, alignment), kHeapAllClasses);
      if (stride > 1024 && stride != alignment) {
        EXPECT_EQ(cls, kHeapAllClasses) << size << " at " << alignment;
        continue;
      }
      ASSERT_GE(cls, kHeapClasses) << size << " at " << alignment;
      ASSERT_LT(cls, kHeapAllClasses) << size << " at " << alignment;
      EXPECT_EQ(heap_stride(l, cls), stride) << size << " at " << alignment;
    }
  }
  EXPECT_EQ(heap_aligned_class(l, ~uint64_t{0} - 100, 128), kHeapAllClasses);
}

// What the program gets from the aligned entry points: aligned blocks, which in the granular
// layout come from the detached classes while the alignment's stride fits one, else glibc's.
// Many at a time, so several spans of each class are carved.
TEST(Heap, OverAlignedBlocksAreAlignedAndSmallWhereAClassHoldsThem) {
  constexpr int kBlocks = 600;
  static void* blocks[kBlocks];
  for (uintptr_t alignment = 128; alignment <= 8192; alignment *= 2) {
    for (uint64_t size : {1, 24, 100, 128, 224, 1000, 2048, 3000}) {
      for (void*& p : blocks) {
        ASSERT_EQ(posix_memalign(&p, alignment, size), 0);
        ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << size << " at " << alignment;
        __builtin_memset(p, 0x5a, size);
      }
      const uint64_t stride = (size + alignment - 1) / alignment * alignment;
      const bool small = heap_granular(g_heap_layout) && alignment <= 4096 &&
                         (stride <= 1024 || stride == alignment);
      std::set<uintptr_t> distinct;
      for (void* p : blocks) {
        const ChunkHeader* h = header_of(p);
        EXPECT_EQ(h->size, size);
        EXPECT_EQ((h->origin & kSmallBlock) != 0, small) << size << " at " << alignment;
        if (small) {
          EXPECT_GE(h->origin & ~kSmallBlock, kHeapClasses);
        }
        distinct.insert(reinterpret_cast<uintptr_t>(p));
      }
      EXPECT_EQ(distinct.size(), static_cast<size_t>(kBlocks));
      uintptr_t previous = 0;
      for (uintptr_t u : distinct) {  // no two blocks overlap
        if (previous != 0) {
          EXPECT_GE(u - previous, size);
        }
        previous = u;
      }
      for (void* p : blocks) free(p);
    }
  }
}

// strcmp's and strncmp's scan (first_difference) against a byte loop, on strings that end
// right before an unmapped page and start at every offset from it: a load that reached into
// that page would crash the test. Equal strings, a difference at every position, a NUL in
// one or both, and limits below, at and beyond the difference.
TEST(StringScan, FirstDifferenceIsTheByteLoopsAndNeverLeavesThePage) {
  const size_t page = 4096;
  void* map = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* const base = static_cast<char*>(map);
  ASSERT_EQ(mprotect(base + 2 * page, page, PROT_NONE), 0);
  char* const end_a = base + page;      // a's page ends here (b's page follows it)
  char* const end_b = base + 2 * page;  // then the unmapped page
  auto naive = [](const char* a, const char* b, size_t limit) {
    size_t i = 0;
    while (i < limit && a[i] && a[i] == b[i]) ++i;
    return i;
  };
  uint64_t x = 42, checked = 0;
  for (size_t len = 0; len <= 70; ++len) {
    for (size_t diff = 0; diff <= len; ++diff) {
      for (int variant = 0; variant < 3; ++variant) {
        // a and b: `len` bytes and a NUL, ending at their page's end; b differs at `diff`
        // (variant 0), ends early there (1), or is equal (2).
        char* a = end_a - len - 1;
        char* b = end_b - len - 1;
        for (size_t i = 0; i < len; ++i) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          a[i] = b[i] = static_cast<char>('a' + x % 26);
        }
        a[len] = b[len] = '\0';
        if (variant == 0 && diff < len) b[diff] = static_cast<char>(a[diff] == 'z' ? 'y' : 'z');
        if (variant == 1 && diff < len) b[diff] = '\0';
        for (size_t limit : {size_t{0}, diff, diff + 1, len + 1, SIZE_MAX}) {
          ASSERT_EQ(first_difference(a, b, limit), naive(a, b, limit))
              << "len " << len << " diff " << diff << " variant " << variant << " limit " << limit;
          ASSERT_EQ(first_difference(b, a, limit), naive(b, a, limit))
              << "len " << len << " diff " << diff << " variant " << variant << " limit " << limit;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10000u);
  munmap(map, 3 * page);
}

// strchr's and strrchr's scans (first_of, last_of) against a byte loop on strings that end
// right before an unmapped page, from every start offset: the character at every position,
// nowhere, or NUL, and for last_of also after an earlier NUL.
TEST(StringScan, FirstOfAndLastOfAreTheByteLoopsAndNeverLeaveThePage) {
  const size_t page = 4096;
  void* map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* const base = static_cast<char*>(map);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  auto naive = [](const char* s, char ch) {
    size_t i = 0;
    while (s[i] != ch && s[i] != '\0') ++i;
    return i;
  };
  uint64_t checked = 0;
  for (size_t len = 0; len <= 70; ++len) {
    char* s = base + page - len - 1;
    for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>('a' + i % 20);  // no 'y' or 'z'
    s[len] = '\0';
    ASSERT_EQ(first_of(s, 'z'), naive(s, 'z')) << len;
    ASSERT_EQ(first_of(s, '\0'), len) << len;
    for (size_t at = 0; at < len; ++at) {
      const char kept = s[at];
      s[at] = 'y';
      ASSERT_EQ(first_of(s, 'y'), at) << len << " at " << at;
      s[at] = kept;
      ++checked;
    }
    ASSERT_EQ(first_of(s, 'a'), len == 0 ? 0u : naive(s, 'a')) << len;
    // strrchr's scan: the NUL's index, and the last 'a' (every 20th byte), none, or the NUL.
    size_t last = 0, want = SIZE_MAX;
    for (size_t i = 0; i < len; ++i)
      if (s[i] == 'a') want = i;
    ASSERT_EQ(last_of(s, 'a', &last), len) << len;
    ASSERT_EQ(last, want) << len;
    ASSERT_EQ(last_of(s, 'z', &last), len) << len;
    ASSERT_EQ(last, SIZE_MAX) << len;
    ASSERT_EQ(last_of(s, '\0', &last), len) << len;
    ASSERT_EQ(last, len) << len;
    for (size_t at = 0; at < len; at += 7) {
      const char kept = s[at];
      s[at] = 'y';
      if (at + 1 < len) {  // a new NUL after it and a 'y' past that, which must not count
        s[at + 1] = '\0';
        s[len] = 'y';
      }
      const size_t end = at + 1 < len ? at + 1 : len;
      ASSERT_EQ(last_of(s, 'y', &last), end) << len << " at " << at;
      ASSERT_EQ(last, at) << len << " at " << at;
      if (at + 1 < len) s[at + 1] = static_cast<char>('a' + (at + 1) % 20);
      s[len] = '\0';
      s[at] = kept;
    }
  }
  EXPECT_GT(checked, 2000u);
  munmap(map, 2 * page);
}

TEST(MibTable, FindsOrInsertsByContextIdAndClears) {
  MibTable table;
  bool inserted = false;
  MibEntry* e = table_find_or_insert(&table, 5, &inserted);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(inserted);
  e->mib.AllocCount = 3;
  MibEntry* again = table_find_or_insert(&table, 5, &inserted);
  EXPECT_FALSE(inserted);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->mib.AllocCount, 3u);
  MibEntry* far = table_find_or_insert(&table, kMaxContextIds - 1, &inserted);
  ASSERT_NE(far, nullptr);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(table.size, 2u);
  EXPECT_EQ(table_find_or_insert(&table, kMaxContextIds, &inserted), nullptr)
      << "ids beyond the index are refused, not written out of bounds";
  table_clear(&table);
  EXPECT_EQ(table.size, 0u);
  table_find_or_insert(&table, 5, &inserted);
  EXPECT_TRUE(inserted) << "a cleared table starts empty";
  table_release(&table);
}

TEST(MibTable, MergedAggregatesFollowTheFieldRules) {
  MibTable table;
  // b is allocated (at 20) before a's last free (at 30): one more lifetime overlap.
  const MemInfoBlock a = [] { MemInfoBlock m{}; m.AllocCount = 2; m.TotalSize = 100;
                              m.MinSize = 40; m.MaxSize = 60; m.AllocTimestamp = 10;
                              m.DeallocTimestamp = 30; return m; }();
  const MemInfoBlock b = [] { MemInfoBlock m{}; m.AllocCount = 1; m.TotalSize = 20;
                              m.MinSize = 20; m.MaxSize = 20; m.AllocTimestamp = 20;
                              m.DeallocTimestamp = 40; return m; }();
  merge_aggregate(&table, 9, a);
  merge_aggregate(&table, 9, b);
  bool inserted = true;
  const MibEntry* e = table_find_or_insert(&table, 9, &inserted);
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(e->mib.AllocCount, 3u);
  EXPECT_EQ(e->mib.TotalSize, 120u);
  EXPECT_EQ(e->mib.MinSize, 20u);
  EXPECT_EQ(e->mib.MaxSize, 60u);
  EXPECT_EQ(e->mib.NumLifetimeOverlaps, 1u);
  EXPECT_EQ(e->mib.DeallocTimestamp, 40u);
  table_release(&table);
}

// Two call sites of the same function: their stacks differ in one return address.
__attribute__((noinline)) uint32_t capture_here() {
  return capture_stack(reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                       reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
}
__attribute__((noinline)) uint32_t site_a() {
  const uint32_t id = capture_here();
  asm volatile("");  // keep the call from becoming a tail call
  return id;
}
__attribute__((noinline)) uint32_t site_b() {
  const uint32_t id = capture_here();
  asm volatile("");
  return id;
}

TEST(StackDepot, SameStackSameIdOtherStackOtherId) {
  // One call instruction twice, so the very same stack: a loop the compiler cannot unroll.
  uint32_t a[2];
  volatile int calls = 2;
  for (int i = 0; i < calls; ++i) a[i] = site_a();
  const uint32_t a1 = a[0], a2 = a[1], b = site_b();
  EXPECT_NE(a1, 0u);
  EXPECT_EQ(a1, a2);
  EXPECT_NE(a1, b);
  uint32_t size = 0;
  const uintptr_t* pcs = depot_stack(a1, &size);
  ASSERT_NE(pcs, nullptr);
  ASSERT_GE(size, 2u);
  // The leaf is a return address inside site_a (the call of capture_here).
  const auto in_site_a = [](uintptr_t pc) {
    const auto begin = reinterpret_cast<uintptr_t>(&site_a);
    return pc > begin && pc < begin + 64;
  };
  EXPECT_TRUE(in_site_a(pcs[0])) << std::hex << pcs[0];
  EXPECT_EQ(depot_stack(0x7fffffff, &size), nullptr);
}

// A recursion `depth` levels deep, two frames a level; level `odd` goes through the other
// of two functions, so its stack differs from the plain one in two adjacent frames.
uint32_t descend(int depth, int odd);
__attribute__((noinline)) uint32_t descend_a(int depth, int odd) {
  const uint32_t id = descend(depth - 1, odd);
  asm volatile("");
  return id;
}
__attribute__((noinline)) uint32_t descend_b(int depth, int odd) {
  const uint32_t id = descend(depth - 1, odd);
  asm volatile("");
  return id;
}
__attribute__((noinline)) uint32_t descend(int depth, int odd) {
  if (depth == 0) return capture_here();
  const uint32_t id = depth == odd ? descend_b(depth, odd) : descend_a(depth, odd);
  asm volatile("");
  return id;
}

// A walk replays the frames it shares with the previous walk from its call site, checking
// the words each one read (unwind.cc), and tells the depot which they are (stack.cc,
// same_sharing): a stack that differs from the previous ones only in the middle must be
// found out there and get an id of its own.
TEST(StackDepot, OneFrameDifferentInTheSharedMiddleIsAnotherStack) {
  // One call site for all, so that only the recursion differs: deep, plain (one level less:
  // it shares all but the leaf end with deep), deep again, then plain but for one level
  // (after deep: the walk shares with deep what plain shared, except around that level).
  const int depth[] = {12, 11, 12, 11, 11, 12, 11};
  const int odd[] = {-1, -1, -1, 6, -1, -1, 6};
  uint32_t id[7];
  volatile int count = 7;
  for (int i = 0; i < count; ++i) id[i] = descend(depth[i], odd[i]);
  const uint32_t deep = id[0], plain = id[1], other = id[3];
  EXPECT_NE(deep, plain);
  EXPECT_EQ(id[2], deep);
  EXPECT_NE(other, plain);
  EXPECT_EQ(id[4], plain);
  EXPECT_EQ(id[5], deep);
  EXPECT_EQ(id[6], other);
  uint32_t n_plain = 0, n_other = 0;
  const uintptr_t* p = depot_stack(plain, &n_plain);
  const uintptr_t* o = depot_stack(other, &n_other);
  ASSERT_TRUE(p != nullptr && o != nullptr);
  ASSERT_EQ(n_plain, n_other);
  uint32_t differ = 0, at = 0;
  for (uint32_t i = 0; i < n_plain; ++i)
    if (p[i] != o[i]) {
      ++differ;
      at = i;
    }
  EXPECT_EQ(differ, 2u) << "the return addresses in descend_b and in descend's call of it";
  EXPECT_GT(at, 4u) << "the difference is in the middle of the stack";
  EXPECT_LT(at + 4, n_plain);
}

// Frames a walk shares with the previous one are not compared again, so two stacks with
// one stack hash that differ only there must be told apart by what the walker says it
// shares. The stack hash is a polynomial (walker.h), frame i's coefficient B^i: adding 1 to
// one frame and taking B from the next one in leaves it unchanged.
TEST(StackDepot, EqualHashesDifferentFramesAreDifferentStacks) {
  constexpr uint32_t kN = 200;
  uintptr_t prev[kN], x[kN], y[kN];
  for (uint32_t i = 0; i < kN; ++i) prev[i] = 0x5000000000ull + 0x9100 * (i % 7) + 0x40 * i;
  // x: prev one level deeper (two new leaf frames), cut at kN.
  x[0] = 0x5100000000ull;
  x[1] = 0x5100000100ull;
  for (uint32_t i = 2; i < kN; ++i) x[i] = prev[i - 2];
  // y: x but for frames 100 and 101, with the same hash.
  for (uint32_t i = 0; i < kN; ++i) y[i] = x[i];
  y[101] += 1;
  y[100] -= kStackHashBase;
  const WalkShare none;
  const uint32_t p = depot_intern(prev, kN, none);
  ASSERT_NE(p, 0u);
  // x's walk replayed frames 2 .. kN - 1 from prev's steps, shifted by two.
  WalkShare x_share;
  x_share.prev_id = p;
  x_share.lo = 2;
  x_share.hi = kN - 1;
  x_share.shift = 2;
  const uint32_t xid = depot_intern(x, kN, x_share);
  ASSERT_NE(xid, 0u);
  EXPECT_EQ(depot_intern(x, kN, x_share), xid);
  EXPECT_EQ(depot_intern(x, kN, none), xid);
  // y's walk found prev's steps changed at frames 100 and 101: it shares only those after.
  WalkShare y_share = x_share;
  y_share.lo = 102;
  const uint32_t yid = depot_intern(y, kN, y_share);
  EXPECT_NE(yid, 0u);
  EXPECT_NE(yid, xid);
  EXPECT_EQ(depot_intern(y, kN, none), yid);
  EXPECT_EQ(depot_intern(x, kN, none), xid);
  uint32_t n = 0;
  const uintptr_t* pcs = depot_stack(yid, &n);
  ASSERT_EQ(n, kN);
  EXPECT_TRUE(std::equal(pcs, pcs + n, y));
}

// fold_recursion on a copy of `in` (leaf first).
std::vector<uintptr_t> folded(std::vector<uintptr_t> in) {
  in.resize(fold_recursion(in.data(), static_cast<uint32_t>(in.size())));
  return in;
}

// The exact-stack cache keeps a short walk with the words it used: the return addresses,
// and the saved rbp values a later step took its CFA from. A change in any of those must make
// the entry miss; a saved rbp no step used (what code without frame pointers keeps in rbp)
// must not. A three-frame walk over a fake stack: the leaf's rule saves rbp (read at w[4],
// return address at w[5]), the middle frame's finds its CFA from that rbp or not (return
// address at w[9]), the outermost frame ends the walk.
TEST(ExactStack, AnEntryIsCheckedByTheWordsItsWalkUsed) {
  auto state = std::make_unique<ThreadState>();
  alignas(16) uintptr_t w[16] = {};
  state->stack_low = reinterpret_cast<uintptr_t>(w);
  state->stack_high = reinterpret_cast<uintptr_t>(w + 16);
  const uintptr_t frame = reinterpret_cast<uintptr_t>(w), ret = 0x400100;
  auto at = [&](int i) { return reinterpret_cast<uintptr_t>(&w[i]); };
  w[0] = 0x1111;  // the leaf's rbp
  w[4] = at(8);   // the middle frame's rbp
  w[5] = 0x401000;
  w[9] = 0x402000;
  WalkMemo& memo = state->walk_memo[0];
  memo.buf = 0;
  memo.walk_first = 0;
  memo.walk_leaf = 2;
  WalkBuf& b = state->walk_buf[0];
  auto remember = [&](bool middle_from_rbp) {
    b.step[2] = WalkStep{frame + 16, w[0], kStepBpKnown | kStepRbpSaved, 0, at(4), at(5), 0};
    b.check[2] = WalkCheck{w[4], w[5], 0, ret};
    b.step[1] = WalkStep{at(6), w[4], kStepBpKnown | (middle_from_rbp ? kStepCfaFromRbp : 0), 0,
                         at(9), at(9), 0};
    b.check[1] = WalkCheck{w[9], w[9], 0, w[5]};
    b.step[0] = WalkStep{at(10), w[4], kStepBpKnown | kStepOutermost, 0, 0, 0, 0};
    b.check[0] = WalkCheck{0, 0, 0, w[9]};
    remember_exact_stack(state.get(), ret, frame, 30, &memo, 7);
  };
  auto lookup = [&] { return exact_stack(state.get(), ret, frame, 30); };
  remember(true);
  EXPECT_EQ(lookup(), 7u);
  EXPECT_EQ(exact_stack(state.get(), ret, frame, 20), 0u) << "walked with another depth";
  EXPECT_EQ(exact_stack(state.get(), ret + 1, frame, 30), 0u) << "another leaf";
  for (int i : {5, 9, 4}) {  // both return addresses, and the rbp the middle step used
    const uintptr_t saved = w[i];
    w[i] = 0x2222;
    EXPECT_EQ(lookup(), 0u) << "w[" << i << "] changed";
    w[i] = saved;
    EXPECT_EQ(lookup(), 7u);
  }
  w[0] = 0x3333;  // the leaf's rbp: no step used it
  EXPECT_EQ(lookup(), 7u);
  remember(false);  // the middle frame's CFA from rsp: the saved rbp is not used either
  w[4] = 0x4444;
  EXPECT_EQ(lookup(), 7u);
  w[5] = 0x401001;
  EXPECT_EQ(lookup(), 0u);
}

// A frame-pointer walk of `n` frames over a fake stack, as walk_unwind_tables records it in
// walk buffer 0 (leaf at step n - 1): every frame's CFA is its rbp + 16, its caller's rbp
// saved at the CFA - 16 and its return address at the CFA - 8; the outermost frame ends it.
// The entry point's frame is w[0] (its saved rbp, the leaf's: &w[2]); frame k (leaf 0)
// reads w[2k + 2] and w[2k + 3].
struct FakeWalk {
  static constexpr uint32_t kWords = 2 * kExactSteps + 8;
  std::unique_ptr<ThreadState> state = std::make_unique<ThreadState>();
  alignas(16) uintptr_t w[kWords] = {};
  uint32_t n;
  uintptr_t frame() const { return reinterpret_cast<uintptr_t>(w); }
  uintptr_t at(uint32_t i) const { return reinterpret_cast<uintptr_t>(&w[i]); }
  static constexpr uintptr_t kRet = 0x400100;
  explicit FakeWalk(uint32_t frames) : n(frames) {
    state->stack_low = frame();
    state->stack_high = frame() + sizeof(w);
    // The leaf's rule, as a frame-pointer frame's (the set of a walk depends on it).
    cache_rule(state.get(), kRet, FrameRule{FrameRule::from_rbp, FrameRule::rbp_saved, -16, 16});
    for (uint32_t k = 0; k < n; ++k) {
      w[2 * k] = at(2 * k + 2);
      w[2 * k + 1] = 0x401000 + 0x100 * k;
    }
  }
  // Records the walk of the stack as it is now and keeps it with depot id `id`.
  void remember(uint32_t id) {
    WalkMemo& memo = state->walk_memo[0];
    memo.buf = 0;
    memo.walk_first = 0;
    memo.walk_leaf = n - 1;
    WalkBuf& b = state->walk_buf[0];
    uintptr_t pc = kRet;
    for (uint32_t k = 0; k < n; ++k) {
      const uintptr_t bp = w[2 * k];
      const uint32_t x = n - 1 - k;
      if (k + 1 == n) {
        b.step[x] = WalkStep{at(2 * k + 2), bp, kStepBpKnown | kStepOutermost, 0, 0, 0, 0};
        b.check[x] = WalkCheck{0, 0, 0, pc};
        break;
      }
      b.step[x] = WalkStep{at(2 * k + 2), bp, kStepBpKnown | kStepCfaFromRbp | kStepRbpSaved,
                           0, at(2 * k + 2), at(2 * k + 3), 0};
      b.check[x] = WalkCheck{w[2 * k + 2], w[2 * k + 3], at(2 * k + 2), pc};
      pc = w[2 * k + 3];
    }
    remember_exact_stack(state.get(), kRet, frame(), 30, &memo, id);
  }
  uint32_t lookup() { return exact_stack(state.get(), kRet, frame(), 30); }
};

// Every path through one wrapper reaches it with the same registers (Lua's l_alloc under
// all of the interpreter's allocations; an xmalloc under hundreds of callers): the cache
// keeps one walk per path, not one per leaf, and the paths spread over the sets.
TEST(ExactStack, PathsThroughOneLeafAreKeptSideBySide) {
  FakeWalk f(4);
  auto path = [&](uint32_t p) { f.w[3] = 0x500000 + 0x40 * p; };  // the leaf's caller
  constexpr uint32_t kPaths = 4 * kExactWays;  // more than one set holds
  for (uint32_t p = 0; p < kPaths; ++p) {
    path(p);
    f.remember(100 + p);
  }
  for (uint32_t p = 0; p < kPaths; ++p) {
    path(p);
    EXPECT_EQ(f.lookup(), 100 + p) << "path " << p;
  }
}

// A call site taken by two paths in turn (a string built, then copied) finds each in one
// of the two ways it used last, without the tag and a set probe (with the last way alone,
// every other capture went on to probe a set).
TEST(ExactStack, TwoPathsTakenInTurnAreFoundAtTheSitesLastTwoWays) {
  FakeWalk f(4);
  auto path = [&](uint32_t p) { f.w[3] = 0x500000 + 0x40 * p; };
  path(0);
  f.remember(100);
  path(1);
  f.remember(101);
  for (uint32_t p : {0, 1}) {  // the site's memo (FakeWalk kept them with another) learns both
    path(p);
    EXPECT_EQ(f.lookup(), 100 + p);
  }
  const uint64_t before = f.state->walk_stats.exact_recent_hits;
  for (uint32_t i = 0; i < 6; ++i) {
    path(i % 2);
    EXPECT_EQ(f.lookup(), 100 + i % 2) << "lookup " << i;
  }
  EXPECT_EQ(f.state->walk_stats.exact_recent_hits - before, 6u);
  path(2);  // a third path is not among them: a miss
  EXPECT_EQ(f.lookup(), 0u);
  EXPECT_EQ(f.state->walk_stats.exact_recent_hits - before, 6u);
}

// A walk whose first set is full goes to its second: more paths than ways that share their
// first set are all kept (with one set per walk, the set's last 8 were).
TEST(ExactStack, WalksWhoseFirstSetIsFullGoToTheirSecond) {
  FakeWalk f(4);
  const uintptr_t sp = f.frame() + 16;
  const uint32_t target = exact_sets(FakeWalk::kRet, sp, 0x500000).first;
  std::vector<uintptr_t> callers;  // leaf callers whose walks have the same first set
  for (uintptr_t c = 0x500000; callers.size() < kExactWays + 4; c += 0x40)
    if (exact_sets(FakeWalk::kRet, sp, c).first == target) callers.push_back(c);
  for (uint32_t p = 0; p < callers.size(); ++p) {
    f.w[3] = callers[p];
    f.remember(100 + p);
  }
  for (uint32_t p = 0; p < callers.size(); ++p) {
    f.w[3] = callers[p];
    EXPECT_EQ(f.lookup(), 100 + p) << "path " << p;
  }
}

// When both of a walk's sets are full, the least recently used way of the two makes room.
TEST(ExactStack, TheLeastRecentlyUsedWayOfBothSetsMakesRoom) {
  FakeWalk f(4);
  const uintptr_t sp = f.frame() + 16;
  const ExactSetPair target = exact_sets(FakeWalk::kRet, sp, 0x500000);
  std::vector<uintptr_t> callers;  // leaf callers whose walks have the same two sets
  constexpr uint32_t kBoth = 2 * kExactWays;
  for (uintptr_t c = 0x500000; callers.size() < kBoth + 1; c += 0x40) {
    const ExactSetPair sets = exact_sets(FakeWalk::kRet, sp, c);
    if (sets.first == target.first && sets.second == target.second) callers.push_back(c);
  }
  for (uint32_t p = 0; p < kBoth; ++p) {
    f.w[3] = callers[p];
    f.remember(100 + p);
  }
  for (uint32_t p = 0; p < kBoth; ++p) {
    f.w[3] = callers[p];
    EXPECT_EQ(f.lookup(), 100 + p) << "path " << p;
  }
  // One path more: the least recently used one (path 0) makes room.
  f.w[3] = callers[kBoth];
  EXPECT_EQ(f.lookup(), 0u);
  f.remember(100 + kBoth);
  for (uint32_t p = kBoth + 1; p-- > 0;) {
    f.w[3] = callers[p];
    EXPECT_EQ(f.lookup(), p == 0 ? 0u : 100 + p) << "path " << p;
  }
}

// Walks of the default depth (30 frames) are kept: programs that allocate through a
// wrapper under an interpreter loop have stacks of 20-30 frames.
TEST(ExactStack, WalksOfTheDefaultDepthAreKept) {
  FakeWalk f(30);
  f.remember(9);
  EXPECT_EQ(f.lookup(), 9u);
  f.w[2 * 20 + 1] += 1;  // a return address deep in the stack
  EXPECT_EQ(f.lookup(), 0u);
}

// A coroutine's stack (here FakeWalk's words, whatever the thread's bounds say) is walked
// frame by frame with the rules, and ends where libunwind's walk ends: at a return address
// its object has no unwind entry for (listed), the outermost frame, or a zero address.
TEST(OtherStack, FramesAreFollowedToTheFrameWithoutAnUnwindEntry) {
  FakeWalk f(4);
  f.state->stack_low = f.state->stack_high = 0;
  const FrameRule fp{FrameRule::from_rbp, FrameRule::rbp_saved, -16, 16};
  for (uintptr_t ra : {0x401100, 0x401200}) cache_rule(f.state.get(), ra, fp);
  cache_rule(f.state.get(), 0x401300, FrameRule{FrameRule::no_entry, 0, 0, 0});
  uintptr_t out[8];
  auto walk = [&](uint32_t max) {
    return std::vector<uintptr_t>(out, out + walk_other_stack(f.state.get(), FakeWalk::kRet,
                                                               f.frame(), out, max));
  };
  const std::vector<uintptr_t> whole = {FakeWalk::kRet, 0x401100, 0x401200, 0x401300};
  EXPECT_EQ(walk(8), whole);
  EXPECT_EQ(walk(2), std::vector<uintptr_t>(whole.begin(), whole.begin() + 2));
  cache_rule(f.state.get(), 0x401300, FrameRule{FrameRule::outermost, 0, 0, 0});
  EXPECT_EQ(walk(8), whole);
  f.w[7] = 0;  // a zero return address ends it before that frame
  EXPECT_EQ(walk(8), std::vector<uintptr_t>(whole.begin(), whole.begin() + 3));
  f.w[7] = 0x401300;
  // Frames it cannot follow leave the walk to libunwind: a rule it does not know, a frame
  // below the one before it.
  cache_rule(f.state.get(), 0x401200, FrameRule{FrameRule::bad, 0, 0, 0});
  EXPECT_TRUE(walk(8).empty());
  cache_rule(f.state.get(), 0x401200, fp);
  f.w[4] = f.at(0);
  EXPECT_TRUE(walk(8).empty());
}

// A site whose probes keep missing (a recursion: each depth is another leaf) stops probing
// for kExactPause captures, and keeps nothing meanwhile; then it probes again.
TEST(ExactStack, ASiteThatKeepsMissingPausesItsProbes) {
  FakeWalk f(4);
  f.remember(5);
  ASSERT_EQ(f.lookup(), 5u);
  const uintptr_t saved = f.w[5];
  f.w[5] = 0x2222;
  uint32_t misses = 0;
  for (; misses < 64; ++misses) {
    EXPECT_EQ(f.lookup(), 0u);
    if (std::any_of(std::begin(f.state->walk_memo), std::end(f.state->walk_memo),
                    [](const WalkMemo& m) { return m.exact_pause != 0; }))
      break;
  }
  EXPECT_EQ(misses + 1, static_cast<uint32_t>(1 - kExactGiveUp)) << "one hit, then misses";
  f.w[5] = saved;
  const uint64_t skipped = f.state->walk_stats.exact_skipped;
  for (uint32_t i = 0; i < kExactPause; ++i) EXPECT_EQ(f.lookup(), 0u) << "paused: " << i;
  const uint64_t after = f.state->walk_stats.exact_skipped;
  EXPECT_EQ(after - skipped, kExactPause) << skipped << " " << after;
  EXPECT_EQ(f.lookup(), 5u) << "probing again";
}

// A site whose retries keep missing (a recursion: every depth another leaf) pauses twice as
// long each time, up to kExactPause << kExactBackoffMax; one hit makes the next pause short.
TEST(ExactStack, RetriesThatKeepMissingPauseLongerEachTime) {
  FakeWalk f(4);
  f.remember(5);
  ASSERT_EQ(f.lookup(), 5u);
  const uintptr_t saved = f.w[5];
  f.w[5] = 0x2222;
  WalkMemo* paused = nullptr;
  // Misses until the site pauses; returns the pause it took.
  auto miss_until_paused = [&] {
    for (uint32_t i = 0; i < 64 && paused == nullptr; ++i) {
      EXPECT_EQ(f.lookup(), 0u);
      for (WalkMemo& m : f.state->walk_memo)
        if (m.exact_pause != 0) paused = &m;
    }
    return paused != nullptr ? uint32_t{paused->exact_pause} : 0u;
  };
  // Skips the whole pause (each capture counted as skipped), then probes once more.
  auto sit_out = [&](uint32_t pause) {
    const uint64_t skipped = f.state->walk_stats.exact_skipped;
    for (uint32_t i = 0; i < pause; ++i) ASSERT_EQ(f.lookup(), 0u);
    EXPECT_EQ(f.state->walk_stats.exact_skipped - skipped, pause);
    EXPECT_EQ(paused->exact_pause, 0u);
    paused = nullptr;
  };
  uint32_t want = kExactPause;
  for (uint32_t round = 0; round <= kExactBackoffMax + 2; ++round) {
    const uint32_t pause = miss_until_paused();
    ASSERT_EQ(pause, want) << "round " << round;
    sit_out(pause);
    if (want < (uint32_t{kExactPause} << kExactBackoffMax)) want *= 2;
  }
  // A hit after a long pause: the next pause is the first one's length again.
  f.w[5] = saved;
  EXPECT_EQ(f.lookup(), 5u);
  f.w[5] = 0x2222;
  EXPECT_EQ(miss_until_paused(), kExactPause);
}

TEST(FoldRecursion, RepeatedCyclesBecomeOne) {
  using V = std::vector<uintptr_t>;
  EXPECT_EQ(folded({1, 2, 3, 2, 3, 2, 3, 4}), (V{1, 2, 3, 4}));      // A B C B C B C D
  EXPECT_EQ(folded({1, 5, 5, 5, 5, 2}), (V{1, 5, 2}));               // direct recursion
  EXPECT_EQ(folded({1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}), (V{1, 2, 3, 4, 5, 6, 7, 8}))
      << "a cycle of kFoldMaxPeriod frames folds";
  const V nine = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(folded(nine), nine) << "a longer cycle stays";
  EXPECT_EQ(folded({1, 2, 2, 1, 2, 2}), (V{1, 2})) << "repeats inside a repeat";
  EXPECT_EQ(folded({1, 2, 3, 1, 2, 4}), (V{1, 2, 3, 1, 2, 4})) << "not consecutive: kept";
  EXPECT_EQ(folded({}), V{});
  EXPECT_EQ(folded({7}), V{7});
}

TEST(FoldRecursion, AnyDepthOfOneRecursionGivesOneStack) {
  // main > top > (a > b > c)^depth > leaf, leaf first as captured.
  std::vector<uintptr_t> expected;
  for (uint32_t depth = 1; depth <= 80; ++depth) {
    std::vector<uintptr_t> stack = {100};
    for (uint32_t d = 0; d < depth; ++d) stack.insert(stack.end(), {30, 20, 10});
    stack.insert(stack.end(), {200, 300});
    if (depth == 1) expected = stack;
    EXPECT_EQ(folded(stack), expected) << depth;
  }
}

TEST(FoldRecursion, ResultHasNoRepeatLeftAndKeepsEveryFrame) {
  // Random stacks over a small alphabet (many repeats), fixed seed: the result has no run
  // of up to kFoldMaxPeriod frames followed by itself, folding it again changes nothing,
  // the leaf stays first, and every return address still occurs (a repeat's first copy
  // stays).
  uint32_t x = 7;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uintptr_t> in(x % 255);
    for (uintptr_t& pc : in) {
      x = x * 1103515245u + 12345u;
      pc = 1 + (x >> 16) % (2 + round % 5);
    }
    const std::vector<uintptr_t> out = folded(in);
    ASSERT_LE(out.size(), in.size());
    for (size_t end = 2; end <= out.size(); ++end)
      for (size_t p = 1; p <= kFoldMaxPeriod && 2 * p <= end; ++p) {
        bool repeat = true;
        for (size_t k = 0; k < p && repeat; ++k) repeat = out[end - 1 - k] == out[end - 1 - p - k];
        ASSERT_FALSE(repeat) << "round " << round << ": a repeat of " << p << " ends at " << end;
      }
    EXPECT_EQ(folded(out), out) << round;
    if (!in.empty()) {
      EXPECT_EQ(out.front(), in.front()) << round;
    }
    EXPECT_EQ(std::set<uintptr_t>(in.begin(), in.end()), std::set<uintptr_t>(out.begin(), out.end()))
        << round;
  }
}

std::vector<uintptr_t> without_cycles(std::vector<uintptr_t> in) {
  in.resize(fold_cycles(in.data(), static_cast<uint32_t>(in.size())));
  return in;
}

TEST(FoldCycles, EveryCycleGoes) {
  using V = std::vector<uintptr_t>;
  EXPECT_EQ(without_cycles({1, 2, 3, 2, 3, 2, 3, 4}), (V{1, 2, 3, 4}));
  EXPECT_EQ(without_cycles({1, 2, 3, 1, 4}), (V{1, 4})) << "a cycle back to the leaf";
  // Three cycles through one function (a parser's nesting through three call sites) in an
  // order with no repeat back to back within 8 frames (P Q P R P Q), which fold_recursion
  // keeps.
  const V mixed = {1, 2, 3, 4, 2, 5, 4, 2, 3, 4, 2, 7, 4, 2, 3, 4, 2, 5, 4, 6};
  EXPECT_EQ(folded(mixed), mixed) << "no repeat back to back";
  EXPECT_EQ(without_cycles(mixed), (V{1, 2, 5, 4, 6}));
  const V nine = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(without_cycles(nine), (V{1, 2, 3, 4, 5, 6, 7, 8, 9})) << "no length limit";
  EXPECT_EQ(without_cycles({}), V{});
  EXPECT_EQ(without_cycles({7}), V{7});
}

TEST(FoldCycles, ResultHoldsEachAddressOnceAndKeepsBothEnds) {
  // Random stacks of up to 255 frames over alphabets of 2 to 400 addresses, fixed seed,
  // against a quadratic reference: each address once, leaf and outermost frame kept.
  uint32_t x = 11;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uintptr_t> in(x % 256);
    const uint32_t alphabet = 2 + static_cast<uint32_t>(round) % 400;
    for (uintptr_t& pc : in) {
      x = x * 1103515245u + 12345u;
      pc = 0x400000 + 16 * ((x >> 12) % alphabet);  // return addresses: multiples of 16
    }
    std::vector<uintptr_t> expected;
    for (uintptr_t pc : in) {
      auto it = std::find(expected.begin(), expected.end(), pc);
      if (it != expected.end())
        expected.erase(it + 1, expected.end());
      else
        expected.push_back(pc);
    }
    const std::vector<uintptr_t> out = without_cycles(in);
    ASSERT_EQ(out, expected) << "round " << round;
    EXPECT_EQ(std::set<uintptr_t>(out.begin(), out.end()).size(), out.size()) << round;
    if (!in.empty()) {
      EXPECT_EQ(out.front(), in.front()) << round;
      EXPECT_EQ(out.back(), in.back()) << round;
    }
  }
}

}  // namespace
}  // namespace profkit::rt

// The program gets from aligned_alloc what its libc would give it: glibc before 2.38 rounds
// an alignment that is not a power of two up (as memalign does), later ones fail.
TEST(AlignedAlloc, AnOddAlignmentGetsWhatTheLibcUnderneathGives) {
  using AlignedAlloc = void* (*)(size_t, size_t);
  using Free = void (*)(void*);
  const auto libc_aligned_alloc = reinterpret_cast<AlignedAlloc>(dlsym(RTLD_NEXT, "aligned_alloc"));
  const auto libc_free = reinterpret_cast<Free>(dlsym(RTLD_NEXT, "free"));
  ASSERT_NE(libc_aligned_alloc, nullptr);
  ASSERT_NE(libc_free, nullptr);
  for (size_t alignment : {3, 24, 48, 96, 1000}) {
    volatile size_t odd = alignment;  // seen by no compiler as a constant
    errno = 0;
    void* theirs = libc_aligned_alloc(odd, 100);
    const int their_errno = errno;
    errno = 0;
    void* ours = aligned_alloc(odd, 100);
    EXPECT_EQ(ours == nullptr, theirs == nullptr) << alignment;
    if (ours == nullptr) {
      EXPECT_EQ(errno, their_errno) << alignment;
    }
    size_t power = 1;
    while (power < alignment) power <<= 1;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ours) % power, 0u) << alignment;
    free(ours);
    libc_free(theirs);
  }
}
