// The runtime's signal handling (signals.cc): dump_signal, and the exit profile written
// when a signal the program does not handle ends it (dump_on_crash, dump_on_terminate),
// with the program's own view of its signal dispositions kept as it would be without the
// runtime (sigaction and signal are wrapped).
#pragma once

#include <signal.h>

#include "runtime/abi.h"

namespace profkit::rt {

// From the runtime's start-up, after the options are read.
void install_signal_handlers();

}  // namespace profkit::rt

PROFKIT_ABI int sigaction(int sig, const struct sigaction* action, struct sigaction* old) noexcept;
PROFKIT_ABI __sighandler_t signal(int sig, __sighandler_t handler) noexcept;
PROFKIT_ABI __sighandler_t bsd_signal(int sig, __sighandler_t handler) noexcept;
