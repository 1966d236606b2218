// Reader for LLVM's indexed IR-PGO profiles (.profdata), versions 1..13 (docs/formats/irpgo.md 3).
//
// Layout (little-endian, all fields u64 unless noted; see docs/formats/irpgo.md 3.1-3.8):
//
//   Header: indexed_header.h (magic, version and flags, hash type, section offsets)
//   Summary (v4+): NumSummaryFields, NumCutoffEntries, Field[], {Cutoff, MinCount, NumCounts}[]
//   CS summary (v4+, flag 57): same layout
//   Hash-table payload: buckets { u16 ItemCount; Item[] } in bucket order, then zero pad to 8
//     Item: KeyHash, KeyLen, DataLen, Key[KeyLen], Data[DataLen] (one or more records)
//   HashOffset -> NumBuckets (power of two), NumEntries, BucketOffset[NumBuckets]
//   MemProf section (v8+, flag 62), opaque; ends where the binary-id section starts
//   Binary ids (v9+): SectionSize, { Length; u8 Id[Length]; pad to 8 }...
//   VTable names (v12+): Length, name blob (docs/formats/irpgo.md 1.11 encoding), pad to 8
//   Temporal traces (v10+, flag 63): NumTraces, StreamSize, { Weight; N; NameRef[N] }...
//
// Records come out in payload (storage) order, which is the order `llvm-profdata show`
// prints. The file is untrusted: every offset and count is checked before use.
#pragma once

#include <cstdint>
#include <optional>

#include "format/bytes/cursor.h"
#include "format/instrprof/indexed_header.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/summary.h"

namespace profkit::instrprof {

// Everything the reader learns, beyond the Profile: header, stored summaries and the
// hash-table geometry (used by tests and `show`-style tools that print stored values).
struct IndexedFile {
  IndexedHeader header;
  std::optional<Summary> summary;     // v4+
  std::optional<Summary> cs_summary;  // v4+ with flag 57
  uint64_t num_buckets = 0;
  uint64_t num_entries = 0;  // distinct keys
  Profile profile;
};

// Parses a whole indexed profile. Errors name the failing file offset.
Expected<IndexedFile> read_indexed_file(Bytes data);

// The Profile part of read_indexed_file(): version = low 32 bits of the version word
// (LLVM 22 rule), flags = the high 32 bits, records in storage order.
Expected<Profile> read_indexed_profile(Bytes data);

}  // namespace profkit::instrprof
