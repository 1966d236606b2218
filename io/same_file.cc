#include "io/same_file.h"

#include "io/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>


namespace profkit {

namespace {

// Same file as far as can be known before it exists: the canonical path of the parent
// directory joined with the name (weakly_canonical resolves what exists).
std::string normalized(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  if (is_stdout_path(a) || is_stdout_path(b)) return false;
  struct stat sa {}, sb {};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool names_standard_output(const std::string& path) {
  if (is_stdout_path(path)) return true;
  struct stat so {}, sp {};
  if (fstat(STDOUT_FILENO, &so) != 0 || stat(path.c_str(), &sp) != 0) return false;
  return so.st_dev == sp.st_dev && so.st_ino == sp.st_ino;
}

std::optional<OutputClash> find_output_clash(std::span<const std::string> outputs,
                                             std::span<const std::string> inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& out = outputs[i];
    for (const std::string& in : inputs)
      if (same_file(out, in)) return OutputClash{out, in, false};
    for (size_t j = 0; j < i; ++j) {
      const std::string& other = outputs[j];
      // "-" and a path to the file fd 1 is open on (a link to /proc/self/fd/1) are one file.
      const bool both_stdout = (out == "-" && names_standard_output(other)) ||
                               (other == "-" && names_standard_output(out));
      if (both_stdout || (!is_stdout_path(out) && !is_stdout_path(other) &&
                          (same_file(out, other) || normalized(out) == normalized(other))))
        return OutputClash{out, other, true};
    }
  }
  return std::nullopt;
}

std::string describe(const OutputClash& clash) {
  if (clash.other_is_output && clash.output == "-" && clash.other == "-")
    return "-: error: two outputs go to standard output; give all but one a file name";
  if (clash.other_is_output && (clash.output == "-" || clash.other == "-")) {
    const std::string& named = clash.output == "-" ? clash.other : clash.output;
    return named + ": error: two outputs go to standard output (this path names the file "
           "standard output is open on, and - is given too); give all but one a file name";
  }
  if (clash.other_is_output)
    return clash.output + ": error: two outputs would be written to this file (also given as " +
           clash.other + ")";
  return clash.output + ": error: the output is also the input " + clash.other +
         "; refusing to overwrite it";
}

}  // namespace profkit
