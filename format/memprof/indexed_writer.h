// Writer of the MemProf section of an indexed profile (.profdata), versions 2, 3 and 4,
// byte-identical to llvm-profdata 22 (docs/formats/memprof.md C.2-C.10).
//
// v2:  u64 Version=2, RecordTableOffset, FramePayloadOffset, FrameTableOffset,
//      CallStackPayloadOffset, CallStackTableOffset; schema; record / frame / call-stack
//      on-disk hash tables (payload, pad to 8, table).
// v3:  u64 Version=3, CallStackPayloadOffset, RecordPayloadOffset, RecordTableOffset; schema;
//      frame array (17-byte frames); radix array (u32); record hash table.
// v4:  as v3 plus u64 DataAccessProfOffset and a u32-counted summary (6 x u64) before the
//      schema; call sites carry callee GUID lists; a non-empty data-access profile follows
//      the record table (C.7.1; it can end at an odd offset). v2/v3 drop it.
// schema: u64 N, u64 Tag[N] (mib_fields.def tags). All stored offsets are ABSOLUTE file
// offsets, so the section is written for a given position in the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/memprof/records.h"

namespace profkit::memprof {

inline constexpr uint64_t kIndexedVersions[] = {2, 3, 4};
inline constexpr uint64_t kIndexedVersionDefault = 3;  // llvm-profdata 22's default

// Tags of the default ("hot/cold") schema: AllocCount, TotalSize, TotalLifetime,
// TotalLifetimeAccessDensity.
inline constexpr uint64_t kHotColdSchema[] = {1, 5, 10, 23};

struct IndexedWriteOptions {
  uint64_t version = kIndexedVersionDefault;
  bool full_schema = false;       // all 27 MIB fields (--memprof-full-schema)
  uint64_t section_offset = 0;    // absolute file offset the section will be written at
  ClassifyOptions classify;       // thresholds for the v4 summary
};

// The v4 data-access payload (C.7.1) as llvm-profdata 22 writes it. Requires a non-empty
// profile.
std::string write_data_access_payload(const DataAccessProfile& profile);

// Returns the section bytes. Requires: options.version in kIndexedVersions.
std::string write_memprof_section(const MemProfData& data, const IndexedWriteOptions& options);

// A complete memprof-only .profdata (index version 13, MemProf variant bit, empty IRPGO
// summary and hash table, empty binary-id and vtable sections), laid out as llvm-profdata
// 22 writes it. For tests and for callers that have no IRPGO data.
std::string write_memprof_only_profile(const MemProfData& data,
                                       const IndexedWriteOptions& options);

}  // namespace profkit::memprof
