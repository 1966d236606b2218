// The YAML `llvm-profdata show --memory` prints for a raw memprof profile, read back as
// contexts, so conformance tests compare profkit's runtime and reports with LLVM's view.
#pragma once

#include <map>
#include <string>

namespace profkit::test {

// One allocation context as llvm-profdata prints it: frames "Symbol:LineOffset:Column"
// joined by '>' (leaf first), mapped to its MemInfoBlock fields by name.
using MibFields = std::map<std::string, std::string>;
using MemProfContexts = std::map<std::string, MibFields>;

// Parses the show output. A context may be listed under several functions (inlined
// frames); the copies are identical, so each appears once.
MemProfContexts parse_llvm_memprof_show(const std::string& text);

// Runs `llvm-profdata-22 show --memory --profiled-binary=BINARY RAW` and parses it.
MemProfContexts llvm_memprof_show(const std::string& binary, const std::string& raw);

}  // namespace profkit::test
