// Shadow clearing and reading, and the MemInfoBlock of one allocation and its merge into a
// per-context table (docs/formats/memprof.md A.6-A.8). Default mode counts exactly the block's own granules;
// llvm_compat reproduces compiler-rt's arithmetic (see docs/runtime.md).
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <atomic>

#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/mib_table.h"
#include "runtime/sample.h"
#include "runtime/shadow.h"

namespace profkit::rt {
namespace {

// Shadow ranges this long or longer (a block of 512 KiB, or 64 KiB with the histogram) are
// handled by whole pages: cleared and read only where their pages are mapped (with swap,
// where mincore cannot tell, cleared with madvise and read whole).
constexpr uint64_t kLargeShadow = 1 << 16;

// Whether mincore's "not resident" means a page of the shadow that was never written (or
// was given back), so reads as zeros: only while the machine has no swap, since mincore
// cannot tell a page swapped out from one never touched (checked per large block: cheap
// beside the block).
bool mincore_tells_unwritten() {
  struct sysinfo info;
  return sysinfo(&info) == 0 && info.totalswap == 0;
}

// Calls visit(lo, hi) for the parts of [begin, end) whose pages are resident (mincore); all
// of the rest when mincore fails.
template <class Visit>
void visit_resident_pages(uintptr_t begin, uintptr_t end, Visit visit) {
  unsigned char mapped[256];  // one byte per page: 1 MiB of shadow per call
  uintptr_t page = begin & ~uintptr_t{4095};
  while (page < end) {
    const uintptr_t left = (end - page + 4095) / 4096;
    const uintptr_t pages = left < sizeof mapped ? left : sizeof mapped;
    if (mincore(reinterpret_cast<void*>(page), pages * 4096, mapped) != 0) {
      visit(page > begin ? page : begin, end);
      return;
    }
    for (uintptr_t i = 0; i < pages; ++i) {
      if ((mapped[i] & 1) == 0) continue;
      const uintptr_t lo = page + i * 4096;
      const uintptr_t hi = lo + 4096;
      visit(lo > begin ? lo : begin, hi < end ? hi : end);
    }
    page += pages * 4096;
  }
}

// Calls visit(lo, hi) for the parts of the shadow range [begin, end) whose pages are mapped
// (all of it when the range is shorter than kLargeShadow, or mincore cannot tell); the rest
// reads as zeros. A large block the program touched in a few places has its shadow mostly
// never written, and reading it would fault every page in (the zero page) to add zeros:
// freeing a 4 MiB block cost 128 such faults, more than compiler-rt's whole free.
template <class Visit>
void for_each_mapped_shadow(uintptr_t begin, uintptr_t end, Visit visit) {
  if (end - begin < kLargeShadow || !mincore_tells_unwritten()) {
    visit(begin, end);
    return;
  }
  visit_resident_pages(begin, end, visit);
}

void zero_shadow_bytes(uintptr_t begin, uintptr_t end) {
  if (end <= begin) return;
  if (end - begin <= 64 && ((begin | end) & 7) == 0) {  // most blocks: a few counters
    // Stored one by one: as a plain loop the compiler made it a call to memset, which is
    // the runtime's own (access.cc), four jumps to glibc's and, in a program that had not
    // called one of the replaced functions itself yet, a byte loop.
    for (auto* w = reinterpret_cast<uint64_t*>(begin); w != reinterpret_cast<uint64_t*>(end); ++w)
      __atomic_store_n(w, uint64_t{0}, __ATOMIC_RELAXED);
    return;
  }
  if (end - begin >= kLargeShadow) {
    // Pages of the shadow that are mapped are zeroed where they are, the rest read as
    // zeros already: a large block taken again (a freed one's pages kept, sample.cc) is
    // usually written where the last one was, and pages given back with madvise were
    // faulted in again by every write (400 rounds of an 824 KiB block: 25 shadow faults a
    // round, 10 000 in all). Where mincore cannot tell (swap), they are given back.
    if (mincore_tells_unwritten()) {
      visit_resident_pages(begin, end, [](uintptr_t lo, uintptr_t hi) {
        __builtin_memset(reinterpret_cast<void*>(lo), 0, hi - lo);
      });
      return;
    }
    const uintptr_t page_begin = (begin + 4095) & ~uintptr_t{4095};
    const uintptr_t page_end = end & ~uintptr_t{4095};
    __builtin_memset(reinterpret_cast<void*>(begin), 0, page_begin - begin);
    madvise(reinterpret_cast<void*>(page_begin), page_end - page_begin, MADV_DONTNEED);
    __builtin_memset(reinterpret_cast<void*>(page_end), 0, end - page_end);
    return;
  }
  __builtin_memset(reinterpret_cast<void*>(begin), 0, end - begin);
}

// a / b, with a 32-bit division when both fit (most blocks; a 64-bit divide costs several
// times as much on x86-64).
inline uint64_t divide(uint64_t a, uint64_t b) {
  if (((a | b) >> 32) == 0) return static_cast<uint32_t>(a) / static_cast<uint32_t>(b);
  return a / b;
}

inline uint32_t clamp32(uint64_t v) { return v > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(v); }

MemInfoBlock single_block(uint64_t size, uint64_t count, uint32_t alloc_ts, uint32_t dealloc_ts,
                          uint32_t alloc_cpu, uint32_t dealloc_cpu) {
  MemInfoBlock m;
  // compiler-rt passes the size as u32 (A.7.2); the default keeps the full size in the
  // u64 TotalSize and saturates the u32 fields.
  const uint64_t n = g.compat ? static_cast<uint32_t>(size) : size;
  m.AllocCount = 1;
  m.TotalAccessCount = m.MinAccessCount = m.MaxAccessCount = count;
  m.TotalSize = n;
  m.MinSize = m.MaxSize = g.compat ? static_cast<uint32_t>(n) : clamp32(n);
  m.AllocTimestamp = alloc_ts;
  m.DeallocTimestamp = dealloc_ts;
  const uint32_t lifetime = dealloc_ts - alloc_ts;
  m.TotalLifetime = m.MinLifetime = m.MaxLifetime = lifetime;
  m.AllocCpuId = alloc_cpu;
  m.DeallocCpuId = dealloc_cpu;
  m.NumMigratedCpu = alloc_cpu != dealloc_cpu;
  const uint64_t density = n && count ? divide(count * 100, n) : 0;  // no accesses: no division
  m.TotalAccessDensity = density;
  m.MinAccessDensity = m.MaxAccessDensity = static_cast<uint32_t>(density);
  // Most blocks live under a millisecond (a lifetime of 0 counts as 1): no division then.
  const uint64_t lifetime_density = lifetime > 1 ? divide(density * 1000, lifetime) : density * 1000;
  m.TotalLifetimeAccessDensity = lifetime_density;
  m.MinLifetimeAccessDensity = m.MaxLifetimeAccessDensity = static_cast<uint32_t>(lifetime_density);
  return m;
}

// A sampled block stands for `weight` blocks like it: every summed field (mib_fields.def)
// is multiplied, min/max fields are not. Saturates.
template <class T>
inline void scale_field(T& v, uint64_t weight) {
  const unsigned __int128 x = static_cast<unsigned __int128>(v) * weight;
  v = x > static_cast<T>(~T{0}) ? static_cast<T>(~T{0}) : static_cast<T>(x);
}
void scale_sums(MemInfoBlock& m, uint64_t weight) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  if constexpr (__builtin_strcmp(#Merge, "sum") == 0) scale_field(m.Name, weight);
#include "format/memprof/mib_fields.def"
}

// The fields every merge treats the same way (sum, min, max): mib_fields.def's column.
inline void merge_common(MemInfoBlock& m, const MemInfoBlock& n) {
  memprof::merge_mib_fields(m, n);
}

// Grows `m`'s histogram to at least `size` entries (arena memory).
void ensure_histogram(MemInfoBlock& m, uint32_t size) {
  if (m.AccessHistogramSize >= size) return;
  auto* fresh = static_cast<uint64_t*>(arena_alloc(sizeof(uint64_t) * size));
  if (fresh == nullptr) return;
  auto* old = reinterpret_cast<uint64_t*>(m.AccessHistogram);
  for (uint32_t i = 0; i < m.AccessHistogramSize; ++i) fresh[i] = old[i];
  if (old) arena_free(old, sizeof(uint64_t) * m.AccessHistogramSize);
  m.AccessHistogram = reinterpret_cast<uint64_t>(fresh);
  m.AccessHistogramSize = size;
}

std::atomic<uint64_t> g_table_bytes{0};

constexpr uint32_t kIndexChunks = kMaxContextIds >> kIndexChunkBits;
constexpr size_t kIndexChunkBytes = sizeof(uint32_t) << kIndexChunkBits;

size_t entry_bytes(uint32_t capacity) {
  return (sizeof(MibEntry) * capacity + 4095) & ~size_t{4095};
}

bool grow(MibTable* table) {
  const uint32_t capacity = table->capacity ? table->capacity * 2 : 4096 / sizeof(MibEntry) * 4;
  void* entries;
  if (table->entries == nullptr) {
    entries = os_map(entry_bytes(capacity));
    if (entries == nullptr) return false;
  } else {
    entries = mremap(table->entries, entry_bytes(table->capacity), entry_bytes(capacity),
                     MREMAP_MAYMOVE);
    if (entries == MAP_FAILED) return false;
  }
  g_table_bytes.fetch_add(entry_bytes(capacity) - (table->capacity ? entry_bytes(table->capacity) : 0),
                          std::memory_order_relaxed);
  table->entries = static_cast<MibEntry*>(entries);
  table->capacity = static_cast<uint32_t>(entry_bytes(capacity) / sizeof(MibEntry));
  return true;
}

}  // namespace

void clear_shadow(uintptr_t p, uint64_t size) {
  const uintptr_t base = __memprof_shadow_memory_dynamic_address;
  if (g.compat) {
    // compiler-rt (A.6): nothing for 1..7 bytes; in normal mode the end is computed at
    // byte resolution, so only the low byte of the last granule's counter is cleared.
    const uint64_t rounded = size & ~uint64_t{7};
    if (rounded == 0) return;
    if (g.histogram)
      zero_shadow_bytes(reinterpret_cast<uintptr_t>(shadow8(p)),
                        reinterpret_cast<uintptr_t>(shadow8(p + rounded)));
    else
      zero_shadow_bytes(reinterpret_cast<uintptr_t>(shadow64(p)),
                        reinterpret_cast<uintptr_t>(shadow64(p + rounded - 8)) + 1);
    return;
  }
  // Every 64-byte granule the block covers belongs to it alone (64-byte alignment); clear
  // them whole, which also clears their eight histogram bytes.
  (void)base;
  zero_shadow_bytes(reinterpret_cast<uintptr_t>(shadow64(p)),
                    reinterpret_cast<uintptr_t>(shadow64(p + size - 1)) + 8);
}

namespace {

template <class Counter>
uint64_t sum_shadow(const Counter* begin, const Counter* end) {
  uint64_t total = 0;
  for_each_mapped_shadow(reinterpret_cast<uintptr_t>(begin), reinterpret_cast<uintptr_t>(end),
                         [&total](uintptr_t lo, uintptr_t hi) {
                           for (auto* c = reinterpret_cast<const Counter*>(lo);
                                c != reinterpret_cast<const Counter*>(hi); ++c)
                             total += *c;
                         });
  return total;
}

}  // namespace

uint64_t access_count(uintptr_t p, uint64_t size) {
  // compiler-rt includes the granule holding the byte one past the end (A.7.2).
  const uintptr_t last = g.compat ? p + size : p + size - 1;
  if (g.histogram) return sum_shadow(shadow8(p), shadow8(last) + 1);
  return sum_shadow(shadow64(p), shadow64(last) + 1);
}

void record_range(uintptr_t addr, uint64_t size) {
  const uintptr_t end = addr + size;
  if (g.histogram && !g.compat) {
    // One access per 8 bytes, in the histogram layout (compiler-rt uses the u64 layout
    // here even in histogram mode, corrupting histograms: A.7.4).
    for (uintptr_t a = addr; a < end; a += 8) {
      uint8_t* c = shadow8(a);
      if (*c != 0xFF) ++*c;
    }
    return;
  }
  uintptr_t a = addr;
  while (a < end) {
    const uintptr_t granule_end = (a | 63) + 1;
    const uintptr_t limit = granule_end < end ? granule_end : end;
    const uint64_t steps = (limit - a + 7) / 8;
    *shadow64(a) += steps;
    a += steps * 8;
  }
}

MibEntry* table_find_or_insert(MibTable* table, uint32_t context_id, bool* inserted) {
  if (context_id >= kMaxContextIds) return nullptr;
  if (PROFKIT_RT_UNLIKELY(table->index == nullptr)) {
    table->index = static_cast<uint32_t**>(arena_alloc(sizeof(uint32_t*) * kIndexChunks));
    if (table->index == nullptr) return nullptr;
  }
  uint32_t*& chunk = table->index[context_id >> kIndexChunkBits];
  if (PROFKIT_RT_UNLIKELY(chunk == nullptr)) {
    chunk = static_cast<uint32_t*>(arena_alloc(kIndexChunkBytes));
    if (chunk == nullptr) return nullptr;
  }
  uint32_t& position = chunk[context_id & ((1u << kIndexChunkBits) - 1)];
  if (position != 0) {
    *inserted = false;
    return &table->entries[position - 1];
  }
  if (table->size == table->capacity && !grow(table)) return nullptr;
  MibEntry* e = &table->entries[table->size];
  position = ++table->size;
  e->context_id = context_id;
  e->mib = MemInfoBlock{};
  *inserted = true;
  return e;
}

void record_block(MibTable* table, const ChunkHeader* header, uintptr_t user, uint32_t dealloc_ts,
                  uint32_t dealloc_cpu) {
  const uint64_t size = header->size;
  const uint64_t count = g.instrumented || g.histogram ? access_count(user, size) : 0;
  MemInfoBlock n =
      single_block(size, count, header->timestamp_ms, dealloc_ts, header->cpu & kCpuBits, dealloc_cpu);
  uint64_t weight = 1;
  if (g_sampling) {
    weight = sample_weight(size);
    scale_sums(n, weight);
  }
  bool inserted = false;
  MibEntry* e = table_find_or_insert(table, header->context_id, &inserted);
  if (e == nullptr) return;
  MemInfoBlock& m = e->mib;
  if (inserted) {
    m = n;
  } else {
    merge_common(m, n);
    m.NumLifetimeOverlaps += n.AllocTimestamp < m.DeallocTimestamp;
    m.AllocTimestamp = n.AllocTimestamp;
    m.DeallocTimestamp = n.DeallocTimestamp;
    m.NumSameAllocCpu += m.AllocCpuId == n.AllocCpuId;
    m.AllocCpuId = n.AllocCpuId;
    m.NumSameDeallocCpu += m.DeallocCpuId == n.DeallocCpuId;
    m.DeallocCpuId = n.DeallocCpuId;
    // compiler-rt never merges NumMigratedCpu (it keeps the first block's 0/1).
    if (!g.compat) m.NumMigratedCpu += n.NumMigratedCpu;
  }
  if (g.histogram) {
    const uint64_t entries = (size + 7) / 8;
    const uint32_t h = entries > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(entries);
    ensure_histogram(m, h);
    auto* hist = reinterpret_cast<uint64_t*>(m.AccessHistogram);
    if (hist != nullptr) {
      const auto first = reinterpret_cast<uintptr_t>(shadow8(user));
      for_each_mapped_shadow(first, first + h, [hist, first, weight](uintptr_t lo, uintptr_t hi) {
        for (uintptr_t c = lo; c != hi; ++c) hist[c - first] += *reinterpret_cast<const uint8_t*>(c) * weight;
      });
    }
  }
}

void merge_aggregate(MibTable* table, uint32_t context_id, const MemInfoBlock& n) {
  bool inserted = false;
  MibEntry* e = table_find_or_insert(table, context_id, &inserted);
  if (e == nullptr) return;
  MemInfoBlock& m = e->mib;
  if (inserted) {
    m = n;
    m.AccessHistogram = 0;
    m.AccessHistogramSize = 0;
  } else {
    merge_common(m, n);
    // Aggregates carry their own counts; add them and the boundary between the two.
    m.NumLifetimeOverlaps += n.NumLifetimeOverlaps + (n.AllocTimestamp < m.DeallocTimestamp);
    m.AllocTimestamp = n.AllocTimestamp;
    m.DeallocTimestamp = n.DeallocTimestamp;
    m.NumSameAllocCpu += n.NumSameAllocCpu + (m.AllocCpuId == n.AllocCpuId);
    m.AllocCpuId = n.AllocCpuId;
    m.NumSameDeallocCpu += n.NumSameDeallocCpu + (m.DeallocCpuId == n.DeallocCpuId);
    m.DeallocCpuId = n.DeallocCpuId;
    if (!g.compat) m.NumMigratedCpu += n.NumMigratedCpu;
  }
  if (n.AccessHistogramSize != 0 && n.AccessHistogram != 0) {
    ensure_histogram(m, n.AccessHistogramSize);
    auto* dst = reinterpret_cast<uint64_t*>(m.AccessHistogram);
    const auto* src = reinterpret_cast<const uint64_t*>(n.AccessHistogram);
    if (dst != nullptr)
      for (uint32_t i = 0; i < n.AccessHistogramSize; ++i) dst[i] += src[i];
  }
}

void table_clear(MibTable* table) {
  for (uint32_t i = 0; i < table->size; ++i) {
    MibEntry& e = table->entries[i];
    if (e.mib.AccessHistogram != 0)
      arena_free(reinterpret_cast<void*>(e.mib.AccessHistogram),
                 sizeof(uint64_t) * e.mib.AccessHistogramSize);
    table->index[e.context_id >> kIndexChunkBits][e.context_id & ((1u << kIndexChunkBits) - 1)] = 0;
    e.context_id = 0;
  }
  table->size = 0;
}

uint64_t table_bytes() { return g_table_bytes.load(std::memory_order_relaxed); }

void table_release(MibTable* table) {
  table_clear(table);
  if (table->entries != nullptr) {
    os_unmap(table->entries, entry_bytes(table->capacity));
    g_table_bytes.fetch_sub(entry_bytes(table->capacity), std::memory_order_relaxed);
  }
  if (table->index != nullptr) {
    for (uint32_t c = 0; c < kIndexChunks; ++c)
      if (table->index[c] != nullptr) arena_free(table->index[c], kIndexChunkBytes);
    arena_free(table->index, sizeof(uint32_t*) * kIndexChunks);
  }
  *table = MibTable{};
}

}  // namespace profkit::rt
