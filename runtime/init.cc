// Runtime start-up: options, shadow reservation, exit/signal/fork hooks, and the weak
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
// another allocator) gives an empty or partial profile: say so once, at exit.
void warn_if_malloc_is_not_ours() {
  void* resolved = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info mine{}, theirs{};
  if (resolved == nullptr || dladdr(reinterpret_cast<void*>(&warn_if_malloc_is_not_ours), &mine) == 0 ||
      dladdr(resolved, &theirs) == 0 || mine.dli_fbase == theirs.dli_fbase)
    return;
  LineWriter().str("profkit-memprof: warning: this program's malloc is not profkit's (it comes from ")
      .str(theirs.dli_fname != nullptr && theirs.dli_fname[0] != '\0' ? theirs.dli_fname : "the program")
      .str("): with compiler-rt's memprof runtime or another allocator linked in, the profile "
           "misses their allocations; link one heap profiler runtime only")
      .flush_to(2);
}

void exit_handler() {
  RuntimeScope scope;
  warn_if_malloc_is_not_ours();
  if (g.options.dump_at_exit.value) dump_profile(DumpReason::kExit);
  g.tracking.store(false, std::memory_order_release);
  if (g.options.atexit.value) __memprof_print_accumulated_stats();
}

// dump_signal: the signals it accepts are those a program is sent to ask for something
// (termination requests, user and timer signals, real-time signals): never SIGKILL or
// SIGSTOP (they cannot be caught), nor signals the kernel raises for a fault or an event
// the program must see (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGCHLD,
// SIGPIPE, SIGXFSZ, SIGXCPU, job control). After the dump the signal does what it did
// without the runtime: the program's handler runs, or the default action is taken.
bool acceptable_dump_signal(int64_t sig) {
  switch (sig) {
    case SIGHUP: case SIGINT: case SIGQUIT: case SIGTERM: case SIGUSR1: case SIGUSR2:
    case SIGALRM: case SIGVTALRM: case SIGPROF: case SIGWINCH: case SIGURG: case SIGPWR:
      return true;
    default:
      return sig >= SIGRTMIN && sig <= SIGRTMAX;
  }
}

struct sigaction g_program_action;         // the dump signal's disposition before ours
std::atomic<int> g_pending_default{0};     // a deferred dump's signal, default action pending

// The default action of an accepted signal ends the process except for these two.
bool default_is_ignore(int sig) { return sig == SIGWINCH || sig == SIGURG; }

void take_default_action(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
}

void dump_signal_handler(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction& program = g_program_action;
  const bool program_handles = (program.sa_flags & SA_SIGINFO) != 0 ||
                               (program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN);
  const bool ends_process =
      !program_handles && program.sa_handler == SIG_DFL && !default_is_ignore(sig);
  if (tls_in_runtime != 0) {  // inside the runtime: dumped (then ended) when it is left
    if (ends_process) g_pending_default.store(sig, std::memory_order_relaxed);
    g_dump_pending.store(true, std::memory_order_relaxed);
  } else {
    dump_profile(ends_process ? DumpReason::kProcessEnd : DumpReason::kRequest);
    if (ends_process) take_default_action(sig);
  }
  if (program_handles) {
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &program.sa_mask, &saved);
    if (program.sa_flags & SA_SIGINFO)
      program.sa_sigaction(sig, info, context);
    else
      program.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  }
  errno = saved_errno;
}

void install_dump_signal() {
  const int64_t sig = g.options.dump_signal.value;
  if (sig == 0) return;
  if (!acceptable_dump_signal(sig)) {
    LineWriter().str("profkit-memprof: error: dump_signal=").num(static_cast<uint64_t>(sig))
        .str(" is not a signal a profile can be dumped on (it cannot be caught, or the program "
             "needs it); use SIGUSR1, SIGUSR2, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, "
             "SIGVTALRM, SIGPROF, SIGWINCH, SIGURG, SIGPWR or a real-time signal; option ignored")
        .flush_to(2);
    return;
  }
  struct sigaction action {};
  action.sa_sigaction = dump_signal_handler;
  action.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(static_cast<int>(sig), &action, &g_program_action);
}

// dump_on_crash: a fatal signal the program does not handle writes the profile the crash
// keeps exit() from writing, then the process dies of the signal as it would have. Installed
// only where the disposition is SIG_DFL when the runtime starts; a handler the program
// installs later replaces ours (and one that chains to the previous handler reaches ours,
// which does what SIG_DFL would, after the dump). SA_RESETHAND puts SIG_DFL back as the
// handler is entered, so a second fault of the same signal (in the dump, or in another
// thread) ends the process at once.
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
std::atomic<int> g_crash_tid{0};        // the thread writing the crash profile
std::atomic<int> g_crash_signal{0};     // and its signal
std::atomic<bool> g_crash_dumped{false};

void crash_handler(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  const int self = static_cast<int>(gettid());
  int owner = 0;
  if (g_crash_tid.load(std::memory_order_acquire) == self) {
    // A fault in the crash dump itself: die of the first signal, at once.
    take_default_action(g_crash_signal.load(std::memory_order_relaxed));
  } else if (tls_in_runtime != 0) {
    // A fault inside the runtime: its locks may be held, so no dump.
  } else if (g_crash_tid.compare_exchange_strong(owner, self)) {
    g_crash_signal.store(sig, std::memory_order_relaxed);
    dump_profile(DumpReason::kProcessEnd);
    g_crash_dumped.store(true, std::memory_order_release);
  } else if (owner != self) {
    // Another thread is writing the crash profile and will end the process; wait for it,
    // but not forever.
    const timespec ms{0, 1'000'000};
    for (int i = 0; i < 30'000 && !g_crash_dumped.load(std::memory_order_acquire); ++i)
      nanosleep(&ms, nullptr);
  }
  errno = saved_errno;
  // What SIG_DFL would do now. Set here, not only by SA_RESETHAND: a program handler that
  // replaced ours may call it as the previous handler. A fault the kernel raised happens
  // again when the handler returns: the process dies at the faulting instruction, so a core
  // dump is what it was without the runtime. A sent or raised signal (abort, kill) is
  // raised again.
  if (sig != SIGABRT && info != nullptr && info->si_code > 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    return;
  }
  take_default_action(sig);
}

void install_crash_handlers() {
  if (!g.options.dump_on_crash.value || !g.options.dump_at_exit.value) return;
  for (int sig : kCrashSignals) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_sigaction = crash_handler;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

void do_init() {
  RuntimeScope scope;
  load_options();
  sample_init();  // before anything is allocated: it decides where blocks live
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
  if (g.options.output.value[0] != '\0') {
    g.exact_output = true;
    if (const char* owner = find_env("PROFKIT_MEMPROF_PID")) {
      int64_t pid = 0;
      for (; *owner >= '0' && *owner <= '9'; ++owner) pid = pid * 10 + (*owner - '0');
      g.exact_output = pid == g.init_pid;
      g.root_pid = static_cast<int>(pid);
    }
  }
  if (g.options.help.value) print_option_help(print_error_line, nullptr);
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(exit_handler);
  install_dump_signal();
  install_crash_handlers();
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

void run_pending_dump() {
  g_dump_pending.store(false, std::memory_order_relaxed);
  const int sig = g_pending_default.exchange(0, std::memory_order_relaxed);
  dump_profile(sig != 0 ? DumpReason::kProcessEnd : DumpReason::kRequest);
  if (sig != 0) take_default_action(sig);
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
