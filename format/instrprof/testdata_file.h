// For the IR-PGO unit tests: a file of format/instrprof/testdata/ (made by LLVM's tools, see
// its README), read whole.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace profkit::instrprof {

inline std::string testdata_file(const std::string& relative) {
  std::ifstream in(std::string(PROFKIT_SOURCE_DIR) + "/format/instrprof/testdata/" + relative,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace profkit::instrprof
