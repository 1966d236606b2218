// Writing the raw profile: at exit, on request, on a signal, every dump_interval (dump.cc).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

// Why a profile is written; with dump_interval it decides what the profile holds.
enum class DumpReason {
  kExit,        // normal exit: the last profile
  kProcessEnd,  // a signal about to end the process (dump_signal's default action, a crash)
  kRequest,     // __memprof_profile_dump, reset, a dump_signal the process survives
  kInterval,    // the dump_interval thread
};

int dump_profile(DumpReason reason);
void reset_profile();
void dump_lock_for_fork();
void dump_unlock_after_fork(bool child);
void after_fork_child_tables();  // drops inherited MIB data (default mode), restarts intervals
void start_interval_dumps();     // from the constructor, once libc is up; no-op without the option
void prepare_dump();             // decisions made once before any dump (from the constructor)
// The file a profile was not written to because it was there already while the program's
// malloc is another runtime's (g.foreign_malloc: never replace that runtime's profile);
// nullptr when none was kept.
const char* profile_left_as_it_was();

}  // namespace profkit::rt
