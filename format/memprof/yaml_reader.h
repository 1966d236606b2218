// Reader of MemProf YAML as `llvm-profdata merge` 22 accepts it (docs/formats/memprof.md E.3):
//
//   ---
//   HeapProfileRecords:
//     - GUID: main | 0xhex               (plain decimal is an error)
//       AllocSites:
//         - Callstack: [ { Function: mk, LineOffset: 1, Column: 13, IsInlineFrame: false }, ... ]
//           MemInfoBlock: { AllocCount: 4, TotalSize: 160, ... }   (any subset of the fields)
//       CallSites:
//         - Frames: [ ... ]
//           CalleeGuids: [ 0x1111, mk ]
//   DataAccessProfiles:
//     SampledRecords:
//       - Symbol: name | Hash: u64         (exactly one)
//         AccessCount: u64
//         Locations: [ { FileName: f, Line: u32 }, ... ]
//     KnownColdSymbols: [ name, ... ]
//     KnownColdStrHashes: [ u64, ... ]
//   ...
//
// Block and flow styles are both accepted; comment lines (the summary block `show` prints)
// are ignored, so `llvm-profdata show --memory` output of an indexed profile is valid input.
// Flow collections may span lines (LLVM wraps long ones); scalars may be plain, single-
// or double-quoted (with YAML escapes). Only the YAML subset these files use is supported
// (no anchors, tags, multi-line scalars).
#pragma once

#include "format/bytes/cursor.h"
#include "format/memprof/records.h"

namespace profkit::memprof {

struct YamlMemProf {
  MemProfData data;  // data.data_access holds the DataAccessProfiles section
};

// True if the input starts with "---" (how llvm-profdata recognizes MemProf YAML).
bool is_memprof_yaml(Bytes data);

// Errors carry the byte offset of the offending line.
Expected<YamlMemProf> read_memprof_yaml(Bytes data);

}  // namespace profkit::memprof
