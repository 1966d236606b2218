// Running a program in a child process that stands in for the caller, as `profkit run`
// does: the child gets the caller's signal dispositions and mask as they were, the signals
// another process sends the caller to end it are passed on, and the caller can end the way
// the child ended.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"

namespace profkit {

// The environment of this process with `set` (NAME=VALUE strings) replacing any earlier value
// of each NAME, the `set` entries last.
std::vector<std::string> environment_with(const std::vector<std::string>& set);

struct ChildExit {
  int status = 0;      // as waitpid gives it, once the program ran
  int exec_error = 0;  // errno of the exec that failed: the program never ran
};

// Runs `argv` (argv[0] searched in PATH as execvpe does) with the environment `env` and waits
// for it. With `pid_variable` set, the environment also gets NAME=<the child's pid>, written
// by the child itself before exec (so the program sees its own pid there and its children
// inherit that value).
//
// The child shares this process's memory until exec (CLONE_VM | CLONE_VFORK, as
// posix_spawn does): nothing is copied and the program's start-up costs no more than
// under a shell. While it runs, SIGINT, SIGQUIT, SIGHUP and SIGTERM sent to this process by
// another process (kill, a supervisor, timeout(1)) are passed on to the child; those the
// terminal generates already reach the whole foreground process group, so they are not
// sent twice. The caller's dispositions are restored before this returns. An error only
// when no process could be started at all.
Expected<ChildExit> run_child(const std::vector<std::string>& argv, std::vector<std::string> env,
                              std::string_view pid_variable);

// Passes on how the child ended, given its ChildExit::status: returns its exit code; for a
// child ended by a signal, flushes stdio and raises the same signal here (with core dumps
// off: the child already wrote any), returning 128 + the signal only if that did not end this
// process; 1 for any other status.
int pass_on_exit(int status);

}  // namespace profkit
