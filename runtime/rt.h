// Internals shared by the runtime's files: global state, the chunk header, per-thread
// state, locks, the internal arena and the output helpers. Nothing here may reach operator
// new, stdio or locale: memory comes from mmap, output goes through write(2).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <atomic>

#include "format/memprof/raw_layout.h"
#include "runtime/options.h"

#define PROFKIT_RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROFKIT_RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PROFKIT_RT_NOINLINE __attribute__((noinline))
#define PROFKIT_RT_ALWAYS_INLINE __attribute__((always_inline))
#define PROFKIT_RT_TLS __attribute__((tls_model("initial-exec")))

// glibc's allocator, used underneath (docs/runtime.md says why). Exported by libc.so.6
// under these names, so no dlsym (and no bootstrap pool) is needed to reach it.
extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void __libc_free(void* p);

namespace profkit::rt {

using memprof::MemInfoBlock;

// ---- locks ---------------------------------------------------------------------------
// A test-and-test-and-set spinlock that yields after a short spin. Only ever contended by
// a cross-thread free or a dump, never on a thread's own fast path.
class SpinLock {
 public:
  void lock() {
    if (PROFKIT_RT_LIKELY(!state_.exchange(1, std::memory_order_acquire))) return;
    lock_slow();
  }
  void unlock() { state_.store(0, std::memory_order_release); }
  void reset() { state_.store(0, std::memory_order_relaxed); }
  // After fork (the lock taken in the prepare handler): the child, alone now, starts it
  // free; the parent releases it.
  void unlock_after_fork(bool child) {
    if (child)
      reset();
    else
      unlock();
  }

 private:
  PROFKIT_RT_NOINLINE void lock_slow();
  std::atomic<int> state_{0};
};

// ---- internal memory -----------------------------------------------------------------
// Never returns memory to the OS except for blocks above 1 MiB. Power-of-two size classes
// with free lists, one lock (taken only on slow paths: new stacks, table growth, dumps).
void* arena_alloc(size_t size);   // zeroed
void arena_free(void* p, size_t size);
void* os_map(size_t size);        // zeroed anonymous mapping, nullptr on failure
void* os_map_noreserve(size_t size);  // the same, MAP_NORESERVE (pages cost only when touched)
void os_unmap(void* p, size_t size);

// ---- global state --------------------------------------------------------------------
struct Globals {
  Options options{};
  std::atomic<int> init_state{0};   // 0 = not started, 1 = running, 2 = done
  bool histogram = false;           // histogram shadow (1 byte per 8) in use
  bool instrumented = false;        // a -fmemory-profile module is linked in
  bool compat = false;              // options.llvm_compat
  bool count_libc_accesses = false;
  std::atomic<bool> tracking{false};  // allocations are recorded (off after the exit dump)
  uint32_t stack_depth = 30;
  int64_t time_origin_sec = 0;
  int init_pid = 0;
  bool exact_output = false;        // options.output names the file itself
  uint64_t max_size = uint64_t{1} << 40;
};
extern Globals g;
extern char** g_start_envp;  // the environment as passed to .preinit_array / constructors

// Initializes the runtime once; safe to call from any entry point. Returns false while
// this thread is the one initializing (callers then serve the request untracked).
bool ensure_init();

struct ChunkHeader;

// ---- small-block allocator (heap.cc) ---------------------------------------------------
// Size classes by slot stride (header + user bytes): 64..1024 in steps of 64, then four
// steps per doubling up to 32 KiB. Larger or over-aligned blocks go to glibc.
inline constexpr uint32_t kHeapClasses = 36;
inline constexpr uint64_t kHeapMaxStride = 32768;

inline uint64_t heap_stride(uint32_t cls) {
  if (cls < 16) return uint64_t{64} * (cls + 1);
  const uint32_t p = 10 + (cls - 16) / 4;
  return (uint64_t{1} << p) + uint64_t{(cls - 16) % 4 + 1} * (uint64_t{1} << (p - 2));
}
// Class of a slot holding `need` bytes (header included), 0 < need <= kHeapMaxStride.
inline uint32_t heap_class_of(uint64_t need) {
  if (need <= 1024) return static_cast<uint32_t>((need + 63) / 64 - 1);
  const uint64_t n = need - 1;
  const uint32_t p = 63 - static_cast<uint32_t>(__builtin_clzll(n));
  return 16 + 4 * (p - 10) + static_cast<uint32_t>((n >> (p - 2)) & 3);
}

// One size class of one thread state. `free` is touched by the owner only (under its
// lock); `remote` lives in a separate array so other threads' pushes do not share its
// cache lines.
struct HeapClass {
  ChunkHeader* free = nullptr;
  uintptr_t bump = 0, bump_end = 0;  // uncarved slots of the current span
};
struct alignas(64) HeapRemote {
  std::atomic<ChunkHeader*> head{nullptr};
};
// Blocks this thread freed for another owner, gathered so they go back as one chain: one
// compare-and-swap on the owner's list head, a line both threads write, per batch instead
// of per block. A batch is at most kRemoteBatch blocks and kRemoteBatchBytes (but at least
// one block), so a thread holds back under kHeapClasses * kRemoteBatchBytes (288 KiB) of
// other threads' memory.
struct RemoteBatch {
  ChunkHeader* head = nullptr;
  ChunkHeader* tail = nullptr;
  uint32_t owner = 0;
  uint32_t count = 0;
};
inline constexpr uint32_t kRemoteBatch = 32;
inline constexpr uint32_t kRemoteBatchBytes = 8 << 10;

// ---- unwind-table walker (unwind.cc) -----------------------------------------------------
// How to get from a frame to its caller, for one return address: the CFA is rsp or rbp plus
// an offset, the return address sits just below the CFA, and the caller's rbp is unchanged,
// saved at CFA + rbp_offset, or lost.
struct FrameRule {
  enum Kind : uint8_t { unknown, bad, outermost, from_rsp, from_rbp };
  enum Rbp : uint8_t { rbp_same, rbp_saved, rbp_lost };
  uint8_t kind = unknown;
  uint8_t rbp = rbp_same;
  int16_t rbp_offset = 0;
  int32_t cfa_offset = 0;
};
struct FrameCacheEntry {
  uintptr_t pc = 0;
  FrameRule rule;
};
static_assert(sizeof(FrameCacheEntry) == 16);
// Per thread state: 256 sets of 4 ways, a set per cache line. Set-associative because with
// ASLR a direct-mapped table sometimes put two hot return addresses in one slot, and both
// were then recomputed on every allocation (a third of the run time when it happened).
inline constexpr uint32_t kFrameCacheWays = 4;
inline constexpr uint32_t kFrameCacheSets = 256;
struct alignas(64) FrameCacheSet {
  FrameCacheEntry ways[kFrameCacheWays];
};

// The last walk from a call site (unwind.cc), replayed by re-reading the words it read: a
// walk is a function of its registers (pc, sp, rbp) at any frame and of the words it reads
// from there on, so once a new walk reaches a frame of the memo's walk with the very same
// registers, the rest is the memo's while those words match; at the first difference the
// walk goes on from there. Steps are kept outermost first, so a walk that differs only
// near the leaf (a recursion one level deeper or shallower) rewrites only those steps.
inline constexpr uint32_t kWalkMemos = 16;     // per thread state, by call site
inline constexpr uint32_t kWalkMemoSteps = 256; // a whole walk (malloc_context_size <= 255)
struct WalkStep {
  uintptr_t pc, sp, bp;     // the frame's pc and the walk's registers there
  uint32_t flags;           // unwind.cc: rbp known; the walk ended here (outermost, or cut)
  uint32_t pad;
  uintptr_t bp_at, bp_val;  // the caller's saved rbp: where it was read, its value (a step
                            // that reads none holds its return address here again)
  uintptr_t ra_at, ra;      // the return address: where it was read, its value
  uint64_t hash;            // stack_hash over the memo's frames from its outermost to this one
};
struct WalkMemo {
  uint32_t first = 0, end = 0;  // its steps: [first, end) of its buffer, outermost first
  uint32_t max = 0;             // the depth it was walked with
  uint32_t context_id = 0;      // the depot id of the walk it holds; 0 until interned
  uint32_t buf = 0;             // which of the thread state's walk buffers holds the steps
};
// The stack hash the depot keys on, folded from the outermost frame inward so that a walk
// sharing its outer frames with the memo's extends the memo's hash (stack.cc, unwind.cc).
inline constexpr uint64_t kStackHashSeed = 0x9E3779B97F4A7C15ull;
inline uint64_t stack_hash_step(uint64_t h, uintptr_t pc) {
  h ^= pc;
  h *= 0xFF51AFD7ED558CCDull;
  return h ^ (h >> 32);
}
inline uint64_t stack_hash_final(uint64_t h, uint32_t n) {
  h ^= uint64_t{n} * 0xC4CEB9FE1A85EC53ull;
  return h != 0 ? h : 1;  // 0 means "not known" to the depot
}
static_assert((kFrameCacheSets & (kFrameCacheSets - 1)) == 0 &&
              (kWalkMemos & (kWalkMemos - 1)) == 0, "indexed by the top bits of a hash");

// ---- per-thread state ----------------------------------------------------------------
struct MibEntry {
  uint32_t context_id;  // 0 = empty slot
  uint32_t pad;
  MemInfoBlock mib;
};

// Per-context MIBs of one thread (or of a dump's scratch table). Context ids are small
// dense integers (stack depot ids), so lookup is a direct two-level index, id -> position,
// with no hashing or probing; entries are dense in insertion order and grow with mremap,
// so growth never copies them.
inline constexpr uint32_t kMaxContextIds = 1u << 22;
inline constexpr uint32_t kIndexChunkBits = 12;
struct MibTable {
  MibEntry* entries = nullptr;  // [0, size) in use; every slot up to capacity is valid
  uint32_t capacity = 0;
  uint32_t size = 0;
  uint32_t** index = nullptr;   // kMaxContextIds >> kIndexChunkBits chunks of position + 1
};

struct ThreadState {
  SpinLock lock;                 // guards everything below
  uint32_t index = 0;            // position in the registry (stored in chunk headers)
  std::atomic<uint32_t> alive{0};
  uintptr_t* slots = nullptr;    // live tracked glibc chunks: header pointer, or free-list link
  uint32_t slots_used = 0;       // high-water mark
  uint32_t free_slot = 0;        // head of the free-slot list, index + 1 (0 = empty)
  // Slots freed by other threads: a lock-free stack (same links as the free list) that
  // those threads push onto without taking `lock`; the owner takes it whole when its own
  // free list runs dry. Only push and take-all happen, so there is no ABA. On a line of its
  // own: other threads write it, the owner writes `lock` on every allocation.
  alignas(64) std::atomic<uint32_t> remote_free{0};
  alignas(64) MibTable mibs;     // freed allocations merged here, by context id
  uintptr_t stack_low = 0, stack_high = 0;  // for frame-pointer walks
  uint64_t allocs = 0, frees = 0;
  HeapClass heap[kHeapClasses];  // small blocks owned by this state (under `lock`)
  HeapRemote heap_remote[kHeapClasses];  // small blocks freed by other threads (lock-free)
  RemoteBatch remote_out[kHeapClasses];  // blocks this thread freed for others (under `lock`)
  FrameCacheSet frame_cache[kFrameCacheSets];  // unwind.cc's rules, by return address
  WalkMemo walk_memo[kWalkMemos];              // unwind.cc's last walks (only on this stack)
  uint32_t walk_spare = 0;                     // the buffer no memo holds: a new walk's steps
  WalkStep walk_buf[kWalkMemos + 1][kWalkMemoSteps];
  void* depot_guess = nullptr;  // stack.cc: the depot node this thread probably needs next
  void* depot_last = nullptr;   // stack.cc: the last depot node this thread inserted
};

inline constexpr uint32_t kMaxThreads = 1 << 14;
inline constexpr uint32_t kMaxSlots = 1 << 25;  // live tracked blocks per thread state

ThreadState* thread_state_slow();
ThreadState* thread_state_at(uint32_t index);
uint32_t thread_state_count();

extern __thread ThreadState* tls_state PROFKIT_RT_TLS;
extern __thread int tls_in_runtime PROFKIT_RT_TLS;

inline ThreadState* current_thread_state() {
  ThreadState* state = tls_state;
  return PROFKIT_RT_LIKELY(state != nullptr) ? state : thread_state_slow();
}

// Marks the runtime busy on this thread for a scope (re-entry guard).
struct RuntimeScope {
  RuntimeScope() { ++tls_in_runtime; }
  ~RuntimeScope();
};

// ---- chunk header --------------------------------------------------------------------
// 32 bytes immediately before every user pointer. User pointers are 64-byte aligned, so
// no two live blocks share a 64-byte shadow granule (the header of the next block may
// share the last granule, but instrumented code never touches headers).
struct ChunkHeader {
  uint64_t size;          // requested size
  uint32_t context_id;    // stack depot id; 0 = untracked
  uint32_t cpu;           // sched_getcpu() at allocation
  uint32_t timestamp_ms;  // allocation time (A.7.1)
  uint32_t owner;         // thread-state index holding the slot
  uint32_t slot;          // slot index in the owner's table
  uint32_t origin;        // kSmallBlock | size class, or (user pointer - glibc block) / 16
};
static_assert(sizeof(ChunkHeader) == 32);
inline constexpr uintptr_t kChunkAlignment = 64;
inline constexpr uint32_t kSmallBlock = 1u << 31;  // ChunkHeader::origin: heap.cc block

// heap.cc. A freed small block links to the next through its header's `size` field.
inline ChunkHeader* heap_next(const ChunkHeader* block) {
  return reinterpret_cast<ChunkHeader*>(block->size);
}
inline void heap_set_next(ChunkHeader* block, ChunkHeader* next) {
  block->size = reinterpret_cast<uintptr_t>(next);
}
// A slot of class `cls` for `state` (its lock held): its free list, else what other
// threads freed, else a new slot. nullptr when no memory is left.
ChunkHeader* heap_take(ThreadState* state, uint32_t cls);
// Returns a block to its owner's free list (owner's lock held).
inline void heap_give(ThreadState* owner, uint32_t cls, ChunkHeader* block) {
  heap_set_next(block, owner->heap[cls].free);
  owner->heap[cls].free = block;
}
// Returns a block freed by another thread (no lock needed).
void heap_give_remote(ThreadState* owner, uint32_t cls, ChunkHeader* block);
// Gathers a block that thread state `self` (its lock held) frees for the state with index
// `owner`; the gathered blocks go back when a batch is full, when a block of another owner
// arrives, or on heap_flush_remote. (An index, not the owner's state: reading that would
// share a line with the owner's lock.)
void heap_give_remote_batched(ThreadState* self, uint32_t owner, uint32_t cls,
                              ChunkHeader* block);
// Hands back everything `self` (its lock held) has gathered.
void heap_flush_remote(ThreadState* self);
// Records every live tracked small block "as if freed now" into `table` (a dump, with
// every thread state locked), stopping once `at_most` are found: the caller's count of
// live tracked blocks, which is never below the true one.
void heap_record_live(MibTable* table, uint32_t dealloc_ts, uint32_t dealloc_cpu,
                      uint64_t at_most);
void heap_lock_for_fork();
void heap_unlock_after_fork(bool child);

inline ChunkHeader* header_of(const void* p) {
  return reinterpret_cast<ChunkHeader*>(reinterpret_cast<uintptr_t>(p) - sizeof(ChunkHeader));
}

// ---- shadow ----------------------------------------------------------------------------
inline uint64_t* shadow64(uintptr_t addr);
inline uint8_t* shadow8(uintptr_t addr);
void clear_shadow(uintptr_t p, uint64_t size);
uint64_t access_count(uintptr_t p, uint64_t size);
void record_range(uintptr_t addr, uint64_t size);

// ---- time and cpu ------------------------------------------------------------------------
uint32_t now_ms();
void init_clock(const timespec& origin);  // at init, after g.time_origin_sec
uint32_t current_cpu();

// ---- stacks --------------------------------------------------------------------------
// Captures the allocation stack (leaf first, starting at `caller_return`, the return
// address of the public entry point, so no runtime frame is recorded) and interns it.
// Returns the depot id (never 0).
uint32_t capture_stack(uintptr_t caller_return, uintptr_t caller_frame);
// PCs (return addresses) of a depot id; nullptr if unknown.
const uintptr_t* depot_stack(uint32_t id, uint32_t* size);
// Starts loading the stack of `id` into the cache (a dump reads stacks in MIB order).
void depot_prefetch(uint32_t id);
// Walks the stack with unwind tables from an entry point's return address and frame (see
// capture_stack); 0 when some frame cannot be followed (the caller then uses libunwind).
// `*memo` is the memo now holding this walk (set whenever the walk succeeds): its
// context_id, when not 0, is the walk's depot id, because a whole replay gives back the
// very same frames. `*hash` is the walk's stack hash (stack_hash_final) when the memo knew
// it, else 0.
uint32_t walk_unwind_tables(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                            uintptr_t* out, uint32_t max, WalkMemo** memo, uint64_t* hash);
// Drops the remembered walks (a state taken over by another thread, on another stack).
void forget_walks(ThreadState* state);
// The frame rule at `pc` from a loaded object's .eh_frame_hdr at `hdr`; every read stays in
// the object's mapped bytes [image_lo, image_hi). FrameRule::bad when it cannot be followed.
FrameRule rule_from_tables(const uint8_t* image_lo, const uint8_t* image_hi, const uint8_t* hdr,
                           uintptr_t pc);
uint32_t depot_size();
bool depot_init();  // at start-up; false when its memory cannot be reserved
void register_thread_stack(ThreadState* state);

// ---- MIBs ----------------------------------------------------------------------------
// Builds the MIB of one block "as if freed now" and merges it into `table`.
void record_block(MibTable* table, const ChunkHeader* header, uintptr_t user, uint32_t dealloc_ts,
                  uint32_t dealloc_cpu);
// Merges an aggregated MIB (and its histogram) into `table`.
void merge_aggregate(MibTable* table, uint32_t context_id, const MemInfoBlock& mib);
MibEntry* table_find_or_insert(MibTable* table, uint32_t context_id, bool* inserted);
void table_clear(MibTable* table);  // drops entries, frees histograms
void table_release(MibTable* table);

// ---- dumps ---------------------------------------------------------------------------
int dump_profile(bool at_exit);
void reset_profile();
void dump_lock_for_fork();
void dump_unlock_after_fork(bool child);
void after_fork_child_tables();  // drops inherited MIB data (default mode)

// ---- fork ----------------------------------------------------------------------------
void fork_prepare();
void fork_parent();
void fork_child();
void arena_lock_for_fork();
void arena_unlock_after_fork(bool child);

// ---- diagnostics ---------------------------------------------------------------------
// Formats into a fixed buffer and writes one line to stderr with write(2).
struct LineWriter {
  char bytes[1024];
  size_t size = 0;
  LineWriter& str(const char* s);
  LineWriter& str(const char* s, size_t n);
  LineWriter& num(uint64_t v);
  LineWriter& hex(uint64_t v);
  void flush_to(int fd);
};
bool write_all(int fd, const void* data, size_t size);  // EINTR-safe; false on error

}  // namespace profkit::rt

// Inline shadow helpers (need g's histogram flag and the dynamic base).
extern "C" uintptr_t __memprof_shadow_memory_dynamic_address;
namespace profkit::rt {
inline uint64_t* shadow64(uintptr_t addr) {
  return reinterpret_cast<uint64_t*>(((addr & ~uintptr_t{63}) >> 3) +
                                     __memprof_shadow_memory_dynamic_address);
}
inline uint8_t* shadow8(uintptr_t addr) {
  return reinterpret_cast<uint8_t*>(((addr & ~uintptr_t{7}) >> 3) +
                                    __memprof_shadow_memory_dynamic_address);
}
}  // namespace profkit::rt
