// Where a program name leads, as execvp finds it: a name with a slash is a path already,
// any other is searched for in the directories of $PATH (an empty entry is the current
// directory; no $PATH means /usr/local/bin:/usr/bin:/bin).
#pragma once

#include <string>
#include <vector>

namespace profkit {

// The directories of $PATH in order, as execvp searches them ("." for an empty entry; no
// $PATH: /usr/local/bin, /usr/bin, /bin).
std::vector<std::string> path_directories();

// The executable file `name` runs, or "" when there is none.
std::string resolve_program(const std::string& name);

}  // namespace profkit
