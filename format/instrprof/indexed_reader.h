// Reader for LLVM's indexed IR-PGO profiles (.profdata), versions 1..13 (spec 3).
//
// Layout (little-endian, all fields u64 unless noted; see irpgo-format.md 3.1-3.8):
//
//   0x00 Magic 0x8169666F72706CFF   0x08 Version (low 32 bits) | variant flags (high 32)
//   0x10 Unused   0x18 HashType (0 = MD5)   0x20 HashOffset
//   0x28 MemProfOffset (v8+)   0x30 BinaryIdOffset (v9+)   0x38 TemporalProfTracesOffset (v10+)
//   0x40 VTableNamesOffset (v12+)
//   Summary (v4+): NumSummaryFields, NumCutoffEntries, Field[], {Cutoff, MinCount, NumCounts}[]
//   CS summary (v4+, flag 57): same layout
//   Hash-table payload: buckets { u16 ItemCount; Item[] } in bucket order, then zero pad to 8
//     Item: KeyHash, KeyLen, DataLen, Key[KeyLen], Data[DataLen] (one or more records)
//   HashOffset -> NumBuckets (power of two), NumEntries, BucketOffset[NumBuckets]
//   MemProf section (v8+, flag 62), opaque; ends where the binary-id section starts
//   Binary ids (v9+): SectionSize, { Length; u8 Id[Length]; pad to 8 }...
//   VTable names (v12+): Length, name blob (spec 1.11 encoding), pad to 8
//   Temporal traces (v10+, flag 63): NumTraces, StreamSize, { Weight; N; NameRef[N] }...
//
// Records come out in payload (storage) order, which is the order `llvm-profdata show`
// prints. The file is untrusted: every offset and count is checked before use.
#pragma once

#include <cstdint>
#include <optional>

#include "format/bytes/cursor.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/summary.h"

namespace profkit::instrprof {

inline constexpr uint64_t kIndexedMagic = 0x8169666F72706CFFull;
inline constexpr uint64_t kIndexedMinVersion = 1;
inline constexpr uint64_t kIndexedMaxVersion = 13;  // LLVM 22's current version

// The header fields as stored; fields absent in the file's version are 0.
struct IndexedHeader {
  uint64_t version_word = 0;
  uint64_t hash_type = 0;
  uint64_t hash_offset = 0;
  uint64_t memprof_offset = 0;            // v8+
  uint64_t binary_id_offset = 0;          // v9+
  uint64_t temporal_traces_offset = 0;    // v10+
  uint64_t vtable_names_offset = 0;       // v12+
  uint64_t size_bytes = 0;                // 40, 48, 56, 64 or 72 by version
};

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

// True if `data` starts with the indexed magic (which has no byte-swapped form).
bool has_indexed_magic(Bytes data);

// Header size in bytes for an indexed format version (1..13).
uint64_t indexed_header_size(uint64_t version);

// Parses a whole indexed profile. Errors name the failing file offset.
Expected<IndexedFile> read_indexed_file(Bytes data);

// The Profile part of read_indexed_file(): version = low 32 bits of the version word
// (LLVM 22 rule), flags = the high 32 bits, records in storage order.
Expected<Profile> read_indexed_profile(Bytes data);

}  // namespace profkit::instrprof
