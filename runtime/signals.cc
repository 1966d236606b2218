// Signals: dump_signal, and the exit profile written when a signal the program does not
// handle ends it.
//
// Stand-ins for SIG_DFL. A crash (dump_on_crash: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) or
// a termination signal (dump_on_terminate: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
// SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU: `kill`, Ctrl-C, `timeout`, a service manager stopping
// the process, a closed pipe) would end the process without the exit profile. Where the
// program's disposition of such a signal is SIG_DFL, the runtime's handler stands in for it:
// it writes the exit profile, then does what SIG_DFL does, so the process ends as it would
// have (the same signal, a core dump where SIG_DFL makes one). The program never sees the
// stand-in: sigaction and signal report the disposition the program set (SIG_DFL), a
// handler or SIG_IGN the program sets replaces the stand-in, and SIG_DFL set again puts it
// back. Programs decide on what they find there: CPython installs its KeyboardInterrupt
// handler only where SIGINT is SIG_DFL at start, and with a visible handler a Python
// program under the runtime died of Ctrl-C instead of raising KeyboardInterrupt. A
// disposition set past these wrappers (sysv_signal, sigset, a raw system call: Go's runtime)
// replaces the stand-in as well, and the wrappers notice it (they check the kernel's
// disposition first). A signal the program ignores from the start (SIG_IGN, as `nohup` and
// background jobs start it) is left alone until the program sets SIG_DFL.
#include "runtime/signals.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "runtime/dump.h"
#include "runtime/globals.h"
#include "runtime/line_writer.h"
#include "runtime/spin_lock.h"
#include "runtime/thread_state.h"

// glibc's sigaction under its other exported name: the runtime's own calls must not go
// through the wrapper below.
extern "C" int __sigaction(int sig, const struct sigaction* action, struct sigaction* old) noexcept;

namespace profkit::rt {
namespace {

using Handler = void (*)(int, siginfo_t*, void*);

bool is_default(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) == 0 && a.sa_handler == SIG_DFL;
}

void set_default(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  __sigaction(sig, &dfl, nullptr);
}

// What SIG_DFL does, now: the disposition back to SIG_DFL, the signal unblocked and raised.
void take_default_action(int sig) {
  set_default(sig);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
}

std::atomic<int> g_pending_default{0};  // a deferred dump's signal, default action pending

// Writes the exit profile, then ends the process by `sig` as SIG_DFL does; inside the
// runtime (whose locks the interrupted code may hold), when the thread leaves it.
void dump_and_end(int sig) {
  if (tls_in_runtime != 0) {
    g_pending_default.store(sig, std::memory_order_relaxed);
    g_dump_pending.store(true, std::memory_order_relaxed);
    return;
  }
  dump_profile(DumpReason::kProcessEnd);
  take_default_action(sig);
}

// ---- dump_signal -----------------------------------------------------------------------
// The signals dump_signal accepts are those a program is sent to ask for something
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

// The dump signal's disposition as the program set it (before the runtime's, then through
// the sigaction and signal wrappers, which keep the runtime's handler in place): two
// copies, the one in use named by g_program_current, so the handler never reads one being
// written.
struct sigaction g_program_actions[2];
std::atomic<int> g_program_current{0};
int g_dump_sig = 0;  // the signal whose handler is dump_signal_handler (0: none)

void set_program_action(const struct sigaction& action) {
  const int next = 1 - g_program_current.load(std::memory_order_relaxed);
  g_program_actions[next] = action;
  g_program_current.store(next, std::memory_order_release);
}

// The default action of an accepted signal ends the process except for these two.
bool default_is_ignore(int sig) { return sig == SIGWINCH || sig == SIGURG; }

void dump_signal_handler(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction program = g_program_actions[g_program_current.load(std::memory_order_acquire)];
  if (program.sa_flags & SA_RESETHAND) {  // what the kernel would have done for it
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    set_program_action(dfl);
  }
  const bool program_handles = (program.sa_flags & SA_SIGINFO) != 0 ||
                               (program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN);
  const bool ends_process =
      !program_handles && program.sa_handler == SIG_DFL && !default_is_ignore(sig);
  if (ends_process)
    dump_and_end(sig);
  else if (tls_in_runtime != 0)  // inside the runtime: dumped when it is left
    g_dump_pending.store(true, std::memory_order_relaxed);
  else
    dump_profile(DumpReason::kRequest);
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
  if (__sigaction(static_cast<int>(sig), &action, &g_program_actions[0]) == 0)
    g_dump_sig = static_cast<int>(sig);
}

// ---- dump_on_crash -----------------------------------------------------------------------
// SA_RESETHAND puts SIG_DFL back as the handler is entered, so a second fault of the same
// signal (in the dump, or in another thread) ends the process at once. A program handler
// that replaced ours and passes the signal on to SIG_DFL (signal(sig, SIG_DFL), then the
// fault again) reaches ours, which the wrappers put back for SIG_DFL.
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
    set_default(sig);
    return;
  }
  take_default_action(sig);
}

// ---- dump_on_terminate -----------------------------------------------------------------
constexpr int kTerminationSignals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE,
                                       SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU};

void termination_handler(int sig, siginfo_t*, void*) {
  const int saved_errno = errno;
  dump_and_end(sig);
  errno = saved_errno;
}

// ---- stand-ins -------------------------------------------------------------------------
struct StandIn {
  Handler handler = nullptr;   // the runtime's (nullptr: no stand-in for this signal)
  int flags = 0;               // its sigaction flags
  bool installed = false;      // the stand-in is the disposition (as last set through us)
  struct sigaction program {}; // the program's view while installed (SIG_DFL, its flags)
};
StandIn g_stand_in[NSIG];
SpinLock g_stand_in_lock;  // the wrappers' calls against each other

struct sigaction stand_in_action(const StandIn& s) {
  struct sigaction a {};
  a.sa_sigaction = s.handler;
  a.sa_flags = s.flags | SA_SIGINFO;
  sigemptyset(&a.sa_mask);
  return a;
}

// Makes `sig` a signal with a stand-in, installed now where the program's disposition is
// SIG_DFL (at start-up); one it ignores from the start gets it once it sets SIG_DFL.
void stand_in_for(int sig, Handler handler, int flags) {
  StandIn& s = g_stand_in[sig];
  struct sigaction current {};
  if (__sigaction(sig, nullptr, &current) != 0) return;
  s.handler = handler;
  s.flags = flags;
  if (!is_default(current)) return;
  s.program = current;
  const struct sigaction ours = stand_in_action(s);
  s.installed = __sigaction(sig, &ours, nullptr) == 0;
}

// The wrappers' critical sections: every signal blocked (a handler of the program's that
// calls signal() cannot interrupt one and wait for its lock).
class StandInScope {
 public:
  StandInScope() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
    g_stand_in_lock.lock();
  }
  ~StandInScope() {
    g_stand_in_lock.unlock();
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }

 private:
  sigset_t saved_;
};

// sigaction on the dump signal: the program's disposition is kept and reported, the runtime's
// handler stays (with the program's SA_RESTART, SA_ONSTACK and SA_NODEFER), and runs the
// program's after each dump. One set past the wrappers (a raw system call) replaces it.
int dump_signal_sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  StandInScope scope;
  struct sigaction now {};
  if (__sigaction(sig, nullptr, &now) != 0 || (now.sa_flags & SA_SIGINFO) == 0 ||
      now.sa_sigaction != dump_signal_handler)
    return __sigaction(sig, action, old);
  const struct sigaction shown = g_program_actions[g_program_current.load(std::memory_order_relaxed)];
  if (action != nullptr) {
    struct sigaction ours {};
    ours.sa_sigaction = dump_signal_handler;
    ours.sa_flags = SA_SIGINFO | (action->sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
    ours.sa_mask = action->sa_mask;  // what the program's handler runs with, when it runs
    if (__sigaction(sig, &ours, nullptr) != 0) return -1;
    set_program_action(*action);
  }
  if (old != nullptr) *old = shown;
  return 0;
}

using SignalFunction = __sighandler_t (*)(int, __sighandler_t);
std::atomic<SignalFunction> g_libc_signal{nullptr};

}  // namespace

void run_pending_dump() {
  g_dump_pending.store(false, std::memory_order_relaxed);
  const int sig = g_pending_default.exchange(0, std::memory_order_relaxed);
  dump_profile(sig != 0 ? DumpReason::kProcessEnd : DumpReason::kRequest);
  if (sig != 0) take_default_action(sig);
}

void install_signal_handlers() {
  install_dump_signal();
  if (!g.options.dump_at_exit.value) return;
  if (g.options.dump_on_crash.value)
    for (int sig : kCrashSignals) stand_in_for(sig, crash_handler, SA_RESETHAND | SA_NODEFER);
  // compiler-rt writes no profile when such a signal ends the program (llvm_compat).
  if (g.options.dump_on_terminate.value && !g.compat)
    for (int sig : kTerminationSignals)
      if (sig != g.options.dump_signal.value) stand_in_for(sig, termination_handler, SA_RESTART);
}

}  // namespace profkit::rt

using namespace profkit::rt;

int sigaction(int sig, const struct sigaction* action, struct sigaction* old) noexcept {
  if (sig > 0 && sig == g_dump_sig) return dump_signal_sigaction(sig, action, old);
  if (sig <= 0 || sig >= NSIG || g_stand_in[sig].handler == nullptr)
    return __sigaction(sig, action, old);
  StandInScope scope;
  StandIn& s = g_stand_in[sig];
  if (s.installed) {  // unless something replaced it past the wrappers
    struct sigaction now {};
    if (__sigaction(sig, nullptr, &now) == 0 &&
        ((now.sa_flags & SA_SIGINFO) == 0 || now.sa_sigaction != s.handler))
      s.installed = false;
  }
  if (s.installed) {
    const struct sigaction shown = s.program;
    if (action != nullptr) {
      if (is_default(*action)) {
        s.program = *action;
      } else {  // the program takes the signal
        if (__sigaction(sig, action, nullptr) != 0) return -1;
        s.installed = false;
      }
    }
    if (old != nullptr) *old = shown;
    return 0;
  }
  if (action != nullptr && is_default(*action)) {  // SIG_DFL again: the stand-in is back
    const struct sigaction wanted = *action;
    const struct sigaction ours = stand_in_action(s);
    struct sigaction previous {};
    if (__sigaction(sig, &ours, &previous) != 0) return -1;
    s.installed = true;
    s.program = wanted;
    if (old != nullptr) *old = previous;
    return 0;
  }
  return __sigaction(sig, action, old);
}

// glibc's signal() sets its disposition with its internal sigaction, past the wrapper above:
// for the signals with a stand-in and the dump signal it is done here as glibc does it (BSD semantics: the
// signal blocked in its handler, system calls restarted), and so where glibc's cannot be
// found (a static link); the others go to glibc's.
__sighandler_t signal(int sig, __sighandler_t handler) noexcept {
  const bool stand_in =
      sig > 0 && sig < NSIG && (g_stand_in[sig].handler != nullptr || sig == g_dump_sig);
  SignalFunction libc = g_libc_signal.load(std::memory_order_acquire);
  if (!stand_in && libc == nullptr) {
    libc = reinterpret_cast<SignalFunction>(dlsym(RTLD_NEXT, "signal"));
    if (libc != nullptr) g_libc_signal.store(libc, std::memory_order_release);
  }
  if (!stand_in && libc != nullptr) return libc(sig, handler);
  if (sig <= 0 || sig >= NSIG || handler == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction action {}, old{};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, sig);
  action.sa_flags = SA_RESTART;
  if (sigaction(sig, &action, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

__sighandler_t bsd_signal(int sig, __sighandler_t handler) noexcept { return signal(sig, handler); }
