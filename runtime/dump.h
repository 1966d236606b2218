// Writing the raw profile: at exit, on request, on a signal (dump.cc).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

int dump_profile(bool at_exit);
void reset_profile();
void dump_lock_for_fork();
void dump_unlock_after_fork(bool child);
void after_fork_child_tables();  // drops inherited MIB data (default mode)

}  // namespace profkit::rt
