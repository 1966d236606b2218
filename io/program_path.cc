#include "io/program_path.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace profkit {

std::vector<std::string> path_directories() {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::vector<std::string> out;
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    out.emplace_back(dir.empty() ? std::string_view(".") : dir);
    if (colon == std::string_view::npos) return out;
    dirs.remove_prefix(colon + 1);
  }
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  for (const std::string& dir : path_directories()) {
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace profkit
