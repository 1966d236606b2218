// Runtime start-up: options, shadow reservation, exit and fork hooks (signals: signals.cc), and the weak
// symbols the compiler may override.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
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
#include "runtime/sample.h"
#include "runtime/signals.h"
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
std::atomic<bool> g_dump_pending{false};
namespace {

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
// Reserves the shadow (1/8 of the address space, never committed up front). Allocation-only
// mode (`profkit run`: no -fmemory-profile code) does not need it: there, a failure (as
// under `ulimit -v`) only turns off the histogram option, which reads the shadow.
void reserve_shadow() {
  const size_t size = (size_t{1} << 47) >> 3;
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    if (!g.instrumented) {
      g.histogram = false;
      return;
    }
    LineWriter().str("profkit-memprof: error: cannot reserve the shadow memory (errno ")
        .num(static_cast<uint64_t>(errno)).str(")").flush_to(2);
    _exit(1);  // instrumented code would fault on its first access
  }
  madvise(base, size, MADV_DONTDUMP);
  madvise(base, size, MADV_NOHUGEPAGE);
  __memprof_shadow_memory_dynamic_address = reinterpret_cast<uintptr_t>(base);
}

// A program whose malloc is not ours (compiler-rt's memprof runtime linked in as well, or
// another allocator): found once, from the constructor, so every dump knows it (dump.cc
// then never replaces a profile that is there already: that runtime's).
void find_foreign_malloc() {
  void* resolved = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info mine{}, theirs{};
  if (resolved == nullptr || dladdr(reinterpret_cast<void*>(&find_foreign_malloc), &mine) == 0 ||
      dladdr(resolved, &theirs) == 0 || mine.dli_fbase == theirs.dli_fbase)
    return;
  g.foreign_malloc = theirs.dli_fname != nullptr && theirs.dli_fname[0] != '\0' ? theirs.dli_fname
                                                                               : "the program";
}

// Such a program's profile misses the allocations made through that malloc: one line at
// exit, after the dump, saying too whether the file was left to the other runtime.
void warn_if_malloc_is_not_ours() {
  if (g.foreign_malloc == nullptr) return;
  LineWriter line;
  line.str("profkit-memprof: warning: this program's malloc is not profkit's (it comes from ")
      .str(g.foreign_malloc)
      .str("; compiler-rt's memprof runtime or another allocator is linked in), so profkit's "
           "profile misses the allocations made through it");
  if (const char* kept = profile_left_as_it_was())
    line.str("; '").str(kept).str("' was there already (the other runtime's profile) and was "
                                  "left as it was, profkit's not written");
  line.str("; link one heap profiler runtime only").flush_to(2);
}

// Threads that started while max_threads states were in use made allocations the profile
// does not have: say so once, at exit.
void warn_if_threads_went_without_state() {
  const uint32_t n = threads_without_state();
  if (n == 0) return;
  LineWriter().str("profkit-memprof: warning: ").num(n)
      .str(n == 1 ? " thread" : " threads")
      .str(" started while max_threads=").num(static_cast<uint64_t>(g.options.max_threads.value))
      .str(" threads were alive: their allocations are not in the profile (raise max_threads, "
           "up to 131072)")
      .flush_to(2);
}

void exit_handler() {
  RuntimeScope scope;
  warn_if_threads_went_without_state();
  if (g.options.dump_at_exit.value) dump_profile(DumpReason::kExit);
  warn_if_malloc_is_not_ours();
  g.tracking.store(false, std::memory_order_release);
  if (g.options.atexit.value) __memprof_print_accumulated_stats();
}

void do_init() {
  RuntimeScope scope;
  load_options();
  sample_init();  // before anything is allocated: it decides where blocks live
  g.histogram = *launder_weak(&__memprof_histogram) || g.options.histogram.value;
  g.instrumented = launder_weak(__memprof_profile_filename)[0] != '\0';
  g.compat = g.options.llvm_compat.value;
  if (!g.compat) big_pages_init();
  g.count_libc_accesses = g.instrumented;
  g.stack_depth = static_cast<uint32_t>(g.options.malloc_context_size.value);
  // compiler-rt's depth includes frame 0, a PC inside its interceptor that symbolization
  // drops (A.10); we never record runtime frames, so llvm_compat keeps one frame fewer.
  if (g.compat && g.stack_depth > 1) --g.stack_depth;
  if (g.options.max_allocation_size_mb.value > 0)
    g.max_size = static_cast<uint64_t>(g.options.max_allocation_size_mb.value) << 20;
  reserve_shadow();
  // Nothing reads the shadow unless code is instrumented or histograms are on: blocks can
  // then sit as densely as glibc's (heap.h, HeapLayout). llvm_compat keeps compiler-rt's
  // alignment.
  heap_layout_init(!g.instrumented && !g.histogram && !g.compat);
  if (!depot_init())
    LineWriter().str("profkit-memprof: error: cannot reserve the stack depot; nothing is profiled")
        .flush_to(2);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  g.time_origin_sec = now.tv_sec;
  init_clock(now, g.options.coarse_clock.value && !g.compat);
  owner_lock_init();
  g.init_pid = getpid();
  // The process profkit run started (PROFKIT_MEMPROF_PID): it alone writes `output` as
  // given, and --follow-children chooses among the others, with or without `output` (the
  // root was only read with `output`, so without it every descendant wrote a profile).
  g.exact_output = g.options.output.value[0] != '\0';
  if (const char* owner = find_env("PROFKIT_MEMPROF_PID")) {
    int64_t pid = 0;
    for (; *owner >= '0' && *owner <= '9'; ++owner) pid = pid * 10 + (*owner - '0');
    if (g.exact_output) g.exact_output = pid == g.init_pid;
    g.root_pid = static_cast<int>(pid);
  }
  if (g.options.help.value) print_option_help(print_error_line, nullptr);
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(exit_handler);
  install_signal_handlers();
  call_libc_directly();
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

}  // namespace profkit::rt

using namespace profkit::rt;

void __memprof_preinit(void) { ensure_init(); }
void __memprof_init(void) { ensure_init(); }

// In the shared library the runtime starts from its constructor (dependencies initialize
// before the executable's constructors); the static library adds a .preinit_array entry.
__attribute__((constructor(101))) static void profkit_memprof_ctor(int, char**, char** envp) {
  if (g_start_envp == nullptr) g_start_envp = envp;
  ensure_init();
  {
    RuntimeScope scope;  // dlsym may allocate
    find_foreign_malloc();
  }
  prepare_dump();
  start_interval_dumps();
}

int __memprof_profile_dump(void) {
  if (!ensure_init()) return 0;
  RuntimeScope scope;
  dump_profile(DumpReason::kRequest);
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
