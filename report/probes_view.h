// `profkit probes` output: the pseudo probes of a CSSPGO binary as llvm-profgen prints them
// (`--show-pseudo-probe`, `--show-disassembly-only`, `--show-source-locations`) or as JSON.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"

namespace profkit::report {

struct ProbesOptions {
  std::string binary;
  bool disassemble = false;
  std::vector<std::string> functions;  // symbol names (canonical with canonical_names)
  bool canonical_names = false;
  bool json = false;
  bool source_locations = false;  // llvm-profgen's --show-source-locations (probe mode)
  bool emulate_llvm22 = false;    // decode mixed binaries exactly as llvm-profgen 22 does
  unsigned threads = 0;           // listing threads; 0 = one per CPU (at most 8)
};

// Receives the output in order, in pieces of up to about a megabyte.
using TextSink = std::function<void(std::string_view)>;

// Reads `options.binary` (ELF, its probe sections, DWARF with source_locations) and writes
// the listing to `sink`; `warn` gets one line per problem that does not stop it. Errors
// carry offsets in the binary. The output is the same for any thread count.
Expected<void> show_probes(const ProbesOptions& options, const TextSink& sink,
                           const TextSink& warn);

}  // namespace profkit::report
