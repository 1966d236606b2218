// Whether two paths name one file, decided as the kernel sees it (device and inode), so a
// command can refuse to write its output over one of its inputs: through another spelling,
// a symlink or a hard link as well as through the same string.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace profkit {

// True when both paths exist and are the same file. Standard streams ("-", "") never are.
bool same_file(const std::string& a, const std::string& b);

// True for "-" and "", and for a path that names the file standard output (fd 1) is open
// on, as the kernel sees it (device and inode): /dev/stdout, a link to /proc/self/fd/1, or
// the file stdout was redirected to.
bool names_standard_output(const std::string& path);

// The first clash among a command's outputs: an output that is one of `inputs`, or that is
// another of `outputs` (two exports to one file, or two to standard output). Outputs that do
// not exist yet are compared by their normalized absolute path.
struct OutputClash {
  std::string output;
  std::string other;
  bool other_is_output = false;  // true: two outputs name one file (or both are stdout)
};
std::optional<OutputClash> find_output_clash(std::span<const std::string> outputs,
                                             std::span<const std::string> inputs);

// One line for the user: "OUTPUT: error: the output is also the input OTHER ...".
std::string describe(const OutputClash& clash);

}  // namespace profkit
