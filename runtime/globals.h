// The runtime's global state, its one-time initialization and its fork handlers.
#pragma once

#include <atomic>

#include "runtime/base.h"
#include "runtime/options.h"

namespace profkit::rt {

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
  int root_pid = 0;                 // the process profkit run started (PROFKIT_MEMPROF_PID)
  uint64_t max_size = uint64_t{1} << 40;
  // 0 at start, one more in each forked child: kept in each block's header (heap.h), so a
  // child knows the blocks it inherited, which its parent reports.
  uint32_t fork_generation = 0;
  // The object whose malloc the program calls when it is not ours (compiler-rt's memprof
  // runtime linked in as well, another allocator), from the constructor; nullptr: ours.
  const char* foreign_malloc = nullptr;
};
extern Globals g;
extern char** g_start_envp;  // the environment as passed to .preinit_array / constructors

// Initializes the runtime once; safe to call from any entry point. Returns false while
// this thread is the one initializing (callers then serve the request untracked).
bool ensure_init();

// Fork handlers (pthread_atfork): every lock taken before, released or reset after.
void fork_prepare();
void fork_parent();
void fork_child();

}  // namespace profkit::rt
