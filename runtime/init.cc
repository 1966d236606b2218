// Runtime start-up: options, shadow reservation, exit/signal/fork hooks, the weak symbols
// the compiler may override, and the small OS helpers (arena, locks, time, output).
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cpuid.h>

#include "runtime/abi.h"
#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/clock.h"
#include "runtime/dump.h"
#include "runtime/globals.h"
#include "runtime/line_writer.h"
#include "runtime/spin_lock.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"

extern "C" char** environ;
extern "C" int atexit(void (*fn)(void)) noexcept;

// ---- ABI data (A.2.1, A.2.2) ---------------------------------------------------------
uintptr_t __memprof_shadow_memory_dynamic_address = 0;
int __memprof_rt_version = 1;
const char __memprof_profile_filename[1] = {0};
const bool __memprof_histogram = false;
const char __memprof_default_options_str[1] = {0};

const char* __memprof_default_options(void) { return __memprof_default_options_str; }
void __memprof_version_mismatch_check_v1(void) {}

namespace profkit::rt {

constinit Globals g;
char** g_start_envp = nullptr;  // constant-initialized: malloc may run before any constructor
namespace {
SpinLock g_arena_lock;
std::atomic<bool> g_dump_pending{false};

// getenv without libc: .preinit_array functions run before libc has set `environ`, so the
// environment passed to them (glibc passes argc, argv, envp) is used until it has.
const char* find_env(const char* name) {
  char** env = environ != nullptr ? environ : g_start_envp;
  if (env == nullptr) return nullptr;
  for (; *env != nullptr; ++env) {
    const char* e = *env;
    const char* n = name;
    while (*n && *e == *n) ++e, ++n;
    if (*n == '\0' && *e == '=') return e + 1;
  }
  return nullptr;
}

// Hides a weak symbol's address from constant folding: the compiler cannot know whether the
// program replaced our empty default.
template <class T>
const T* launder_weak(const T* p) {
  asm("" : "+r"(p));
  return p;
}

void print_error_line(void*, const char* line, size_t size) {
  LineWriter w;
  w.str(line, size);
  w.flush_to(2);
}

void load_options() {
  set_default_options(&g.options);
  const char* defaults = __memprof_default_options();
  if (defaults != nullptr) {
    size_t n = 0;
    while (defaults[n]) ++n;
    parse_options(defaults, n, "__memprof_default_options", &g.options, print_error_line, nullptr);
  }
  if (const char* env = find_env("MEMPROF_OPTIONS")) {
    size_t n = 0;
    while (env[n]) ++n;
    parse_options(env, n, "MEMPROF_OPTIONS", &g.options, print_error_line, nullptr);
  }
}

// Reserves the shadow for the whole 47-bit user address space: HighMemEnd >> 3 bytes,
// MAP_NORESERVE so only touched pages cost memory (docs/formats/memprof.md A.4).
void reserve_shadow() {
  const size_t size = (size_t{1} << 47) >> 3;
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    LineWriter().str("profkit-memprof: error: cannot reserve the shadow memory (errno ")
        .num(static_cast<uint64_t>(errno)).str(")").flush_to(2);
    _exit(1);  // instrumented code would fault on its first access
  }
  madvise(base, size, MADV_DONTDUMP);
  madvise(base, size, MADV_NOHUGEPAGE);
  __memprof_shadow_memory_dynamic_address = reinterpret_cast<uintptr_t>(base);
}

void exit_handler() {
  RuntimeScope scope;
  if (g.options.dump_at_exit.value) dump_profile(true);
  g.tracking.store(false, std::memory_order_release);
  if (g.options.atexit.value) __memprof_print_accumulated_stats();
}

void dump_signal_handler(int) {
  const int saved_errno = errno;
  if (tls_in_runtime != 0)
    g_dump_pending.store(true, std::memory_order_relaxed);  // dumped when the runtime is left
  else
    dump_profile(false);
  errno = saved_errno;
}

void do_init() {
  RuntimeScope scope;
  load_options();
  g.histogram = *launder_weak(&__memprof_histogram) || g.options.histogram.value;
  g.instrumented = launder_weak(__memprof_profile_filename)[0] != '\0';
  g.compat = g.options.llvm_compat.value;
  g.count_libc_accesses = g.instrumented;
  g.stack_depth = static_cast<uint32_t>(g.options.malloc_context_size.value);
  // compiler-rt's depth includes frame 0, a PC inside its interceptor that symbolization
  // drops (A.10); we never record runtime frames, so llvm_compat keeps one frame fewer.
  if (g.compat && g.stack_depth > 1) --g.stack_depth;
  if (g.options.max_allocation_size_mb.value > 0)
    g.max_size = static_cast<uint64_t>(g.options.max_allocation_size_mb.value) << 20;
  reserve_shadow();
  if (!depot_init())
    LineWriter().str("profkit-memprof: error: cannot reserve the stack depot; nothing is profiled")
        .flush_to(2);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  g.time_origin_sec = now.tv_sec;
  init_clock(now);
  g.init_pid = getpid();
  if (g.options.output.value[0] != '\0') {
    g.exact_output = true;
    if (const char* owner = find_env("PROFKIT_MEMPROF_PID")) {
      int64_t pid = 0;
      for (; *owner >= '0' && *owner <= '9'; ++owner) pid = pid * 10 + (*owner - '0');
      g.exact_output = pid == g.init_pid;
    }
  }
  if (g.options.help.value) print_option_help(print_error_line, nullptr);
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(exit_handler);
  if (g.options.dump_signal.value > 0 && g.options.dump_signal.value < 65) {
    struct sigaction action {};
    action.sa_handler = dump_signal_handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(static_cast<int>(g.options.dump_signal.value), &action, nullptr);
  }
  if (g.options.verbosity.value > 0)
    LineWriter().str("profkit-memprof: shadow at 0x").hex(__memprof_shadow_memory_dynamic_address)
        .str(g.histogram ? ", histogram mode" : ", normal mode")
        .str(g.compat ? ", llvm_compat" : "").flush_to(2);
  g.tracking.store(true, std::memory_order_release);
}

}  // namespace

bool ensure_init() {
  if (PROFKIT_RT_LIKELY(g.init_state.load(std::memory_order_acquire) == 2)) return true;
  if (tls_in_runtime != 0) return false;
  int expected = 0;
  if (g.init_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    do_init();
    g.init_state.store(2, std::memory_order_release);
    return true;
  }
  while (g.init_state.load(std::memory_order_acquire) != 2) sched_yield();
  return true;
}

RuntimeScope::~RuntimeScope() {
  if (--tls_in_runtime == 0 && PROFKIT_RT_UNLIKELY(g_dump_pending.load(std::memory_order_relaxed))) {
    g_dump_pending.store(false, std::memory_order_relaxed);
    dump_profile(false);
  }
}

void SpinLock::lock_slow() {
  for (int spins = 0;; ++spins) {
    if (state_.load(std::memory_order_relaxed) == 0 &&
        !state_.exchange(1, std::memory_order_acquire))
      return;
    if (spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}

// ---- arena ---------------------------------------------------------------------------
namespace {
constexpr size_t kArenaChunk = size_t{1} << 20;
constexpr int kArenaClasses = 21;  // 64 B .. 64 MiB; larger goes straight to mmap
void* g_free_lists[kArenaClasses];
char* g_bump = nullptr;
size_t g_bump_left = 0;

int size_class(size_t size) {
  int c = 0;
  size_t s = 64;
  while (s < size) {
    s <<= 1;
    ++c;
  }
  return c;
}
}  // namespace

void* os_map(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
void* os_map_noreserve(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
void os_unmap(void* p, size_t size) { munmap(p, size); }

void* arena_alloc(size_t size) {
  const int c = size_class(size);
  if (c >= kArenaClasses || (size_t{64} << c) >= kArenaChunk) {
    return os_map((size_t{64} << c));
  }
  const size_t rounded = size_t{64} << c;
  g_arena_lock.lock();
  void* p = g_free_lists[c];
  if (p != nullptr) {
    g_free_lists[c] = *static_cast<void**>(p);
    g_arena_lock.unlock();
    __builtin_memset(p, 0, rounded);
    return p;
  }
  if (g_bump_left < rounded) {
    char* chunk = static_cast<char*>(os_map(kArenaChunk));
    if (chunk == nullptr) {
      g_arena_lock.unlock();
      return nullptr;
    }
    g_bump = chunk;
    g_bump_left = kArenaChunk;
  }
  p = g_bump;
  g_bump += rounded;
  g_bump_left -= rounded;
  g_arena_lock.unlock();
  return p;
}

void arena_free(void* p, size_t size) {
  if (p == nullptr) return;
  const int c = size_class(size);
  if (c >= kArenaClasses || (size_t{64} << c) >= kArenaChunk) {
    os_unmap(p, size_t{64} << c);
    return;
  }
  g_arena_lock.lock();
  *static_cast<void**>(p) = g_free_lists[c];
  g_free_lists[c] = p;
  g_arena_lock.unlock();
}

void arena_lock_for_fork() { g_arena_lock.lock(); }
void arena_unlock_after_fork(bool child) {
  g_arena_lock.unlock_after_fork(child);
}

// ---- time and cpu --------------------------------------------------------------------
namespace {
// Timestamps: clock_gettime costs 60-100 ns per call on a virtual machine (the vDSO reads
// the paravirtual clock), and every allocation and free needs one. With an invariant TSC,
// each thread keeps an anchor (TSC, clock_gettime) pair and extrapolates for up to 16 ms
// with the TSC rate measured over the whole run so far, then re-anchors; the error stays
// far below the millisecond resolution of MIB timestamps.
constexpr int64_t kAnchorNs = 16'000'000;
constexpr int64_t kCalibrationNs = 10'000'000;  // shortest span a rate is measured over
bool g_tsc_ok = false;
uint64_t g_tsc_origin = 0;
int64_t g_ns_origin = 0;

struct TimeAnchor {
  uint64_t tsc = 0;
  uint64_t limit = 0;  // ticks the anchor is valid for; 0 = no anchor
  int64_t ns = 0;
  // Nanoseconds per tick in 32.32 fixed point: one multiply per timestamp. The anchor is
  // valid for 16 ms (below 2^26 ticks up to 4 GHz) and the rate is below 2^32 (a TSC of
  // at least 1 GHz), so the product stays below 2^58.
  uint64_t ns_per_tick_q32 = 0;
};
__thread TimeAnchor tls_anchor PROFKIT_RT_TLS;

inline uint64_t read_tsc() { return __builtin_ia32_rdtsc(); }

int64_t realtime_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return (now.tv_sec - g.time_origin_sec) * 1'000'000'000 + now.tv_nsec;
}

PROFKIT_RT_NOINLINE int64_t now_ns_slow() {
  const int64_t ns = realtime_ns();
  if (!g_tsc_ok) return ns;
  const uint64_t tsc = read_tsc();
  double rate = 0;
  if (ns - g_ns_origin >= kCalibrationNs && tsc > g_tsc_origin)
    rate = static_cast<double>(ns - g_ns_origin) / static_cast<double>(tsc - g_tsc_origin);
  if (rate > 0 && rate < 1.0) {
    tls_anchor.tsc = tsc;
    tls_anchor.ns = ns;
    tls_anchor.ns_per_tick_q32 = static_cast<uint64_t>(rate * 4294967296.0);
    tls_anchor.limit = static_cast<uint64_t>(static_cast<double>(kAnchorNs) / rate);
  }
  return ns;
}
}  // namespace

void init_clock(const timespec& origin) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every C/P-state.
  g_tsc_ok = __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0;
  g_ns_origin = origin.tv_nsec;  // origin.tv_sec is g.time_origin_sec
  g_tsc_origin = read_tsc();
}

uint32_t now_ms() {
  int64_t ns;
  const TimeAnchor& a = tls_anchor;
  const uint64_t d = g_tsc_ok ? read_tsc() - a.tsc : ~uint64_t{0};
  if (PROFKIT_RT_LIKELY(d < a.limit))
    ns = a.ns + static_cast<int64_t>((d * a.ns_per_tick_q32) >> 32);
  else
    ns = now_ns_slow();
  return static_cast<uint32_t>(static_cast<int>(ns / 1'000'000));
}

uint32_t current_cpu() {
  const int cpu = sched_getcpu();
  return static_cast<uint32_t>(cpu);
}

// ---- output --------------------------------------------------------------------------
bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

LineWriter& LineWriter::str(const char* s) {
  while (*s && size < sizeof bytes - 1) bytes[size++] = *s++;
  return *this;
}
LineWriter& LineWriter::str(const char* s, size_t n) {
  for (size_t i = 0; i < n && size < sizeof bytes - 1; ++i) bytes[size++] = s[i];
  return *this;
}
LineWriter& LineWriter::num(uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0 && size < sizeof bytes - 1) bytes[size++] = digits[--n];
  return *this;
}
LineWriter& LineWriter::hex(uint64_t v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v != 0);
  while (n > 0 && size < sizeof bytes - 1) bytes[size++] = digits[--n];
  return *this;
}
void LineWriter::flush_to(int fd) {
  bytes[size++] = '\n';
  write_all(fd, bytes, size);
  size = 0;
}

}  // namespace profkit::rt

using namespace profkit::rt;

void __memprof_preinit(void) { ensure_init(); }
void __memprof_init(void) { ensure_init(); }

// In the shared library the runtime starts from its constructor (dependencies initialize
// before the executable's constructors); the static library adds a .preinit_array entry.
__attribute__((constructor(101))) static void profkit_memprof_ctor(int, char**, char** envp) {
  if (g_start_envp == nullptr) g_start_envp = envp;
  ensure_init();
}

int __memprof_profile_dump(void) {
  if (!ensure_init()) return 0;
  RuntimeScope scope;
  dump_profile(false);
  return 0;
}

void __memprof_profile_reset(void) {
  if (!ensure_init()) return;
  RuntimeScope scope;
  reset_profile();
}

void __sanitizer_set_report_path(const char* path) {
  if (path == nullptr) return;
  size_t n = 0;
  while (path[n] && n + 1 < kOptionStringMax) {
    g.options.log_path.value[n] = path[n];
    ++n;
  }
  g.options.log_path.value[n] = '\0';
}
