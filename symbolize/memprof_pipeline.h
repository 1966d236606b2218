// From memprof input files to the records an indexed profile stores: raw profiles (read,
// merged per file, symbolized with the given binaries), YAML files and indexed profiles' MemProf
// sections, all merged record by record. What `profkit merge` and `profkit show --memory` run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "format/bytes/expected.h"
#include "format/memprof/input.h"
#include "format/memprof/records.h"
#include "symbolize/memprof_symbolizer.h"

namespace profkit::symbolize {

struct MemProfInputReport {
  std::string path;
  uint64_t raw_version = 0;
  std::vector<memprof::Segment> segments;  // raw inputs: the (merged) segment list
  uint64_t mibs = 0;
  uint64_t dropped_mibs = 0;           // contexts with no symbolizable PC
  uint64_t dropped_alloc_count = 0;    // allocations in those contexts
  uint64_t alloc_count = 0;            // allocations in the input (raw inputs)
  // The objects the dropped contexts' frames lie in, most allocations first: the build id
  // (hex; empty for frames outside every mapped object) and the allocations of the dropped
  // contexts with a frame there.
  struct DroppedObject {
    std::string build_id;
    std::string path;  // the given binary with that build id, if one was given
    uint64_t alloc_count = 0;
  };
  std::vector<DroppedObject> dropped_objects;
  uint64_t stacks_kept = 0;            // raw stack entries that kept a PC
  // The binaries opened and used to symbolize (raw inputs): inputs of the command, which
  // must not write over them, however they were found (a directory, beside the profile).
  std::vector<std::string> binaries;
  MemProfSymbolizerStats symbolizer;   // PC counts (raw inputs)
};

struct MemProfLoadOptions {
  std::vector<std::string> binaries;   // --profiled-binary values (files or directories)
  // true: exactly llvm-profdata's matching (one binary, one segment); chosen automatically
  // when one binary file (not a directory) is given.
  bool auto_llvm_compatible = true;
};

struct MemProfInput {
  std::string path;  // for reports and errors
  Bytes bytes;       // the file contents (the caller keeps them alive)
  // Optional: called once the input's bytes are parsed and no longer needed (the caller
  // may unmap them to lower peak memory).
  std::function<void()> release;
  // Optional: called with ranges of a raw input while it is parsed (see ConsumedRange).
  memprof::ConsumedRange consumed;
};

// A raw input's merged profiles and the symbolizer of its segments: where every reader of
// raw memprof input goes after memprof::read_memprof_file (load_memprof_records below; the
// heap report builds its contexts, which keep their PCs, from it).
struct SymbolizedRaw {
  memprof::MergedRaw merged;
  std::unique_ptr<MemProfSymbolizer> symbolizer;
};

// Errors of the symbolizer (a binary that cannot be used) set `failed_path` to the binary
// when exactly one was given; other errors leave it alone.
Expected<SymbolizedRaw> symbolize_raw(memprof::MergedRaw merged,
                                      const std::vector<std::string>& binaries,
                                      const MemProfSymbolizerOptions& options,
                                      std::string* failed_path);

// The records of one input file: a raw file's symbolized with `options.binaries` (what was
// dropped, and the raw version and segments, go into `report`), a YAML or indexed file's as
// stored. `failed_path` as for symbolize_raw.
Expected<memprof::MemProfData> load_memprof_records(memprof::MemProfFile file,
                                                    const MemProfLoadOptions& options,
                                                    MemProfInputReport& report,
                                                    std::string* failed_path);

// Loads and merges every input (raw, YAML, or indexed with a MemProf section) in order. `reports` gets one entry per input;
// on error `failed_path` names the input (or the binary) that failed.
Expected<memprof::MemProfData> load_memprof_inputs(const std::vector<MemProfInput>& inputs,
                                                   const MemProfLoadOptions& options,
                                                   std::vector<MemProfInputReport>* reports,
                                                   std::string* failed_path);

}  // namespace profkit::symbolize
