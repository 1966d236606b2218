// Reader of the MemProf section of an indexed profile (versions 2, 3, 4; layouts drawn in
// indexed_writer.h and docs/formats/memprof.md C). Every offset and count is checked against the
// file; records come back in hash-table order (what `llvm-profdata show` prints).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/memprof/records.h"

namespace profkit::memprof {

struct IndexedMemProf {
  uint64_t version = 0;
  std::vector<uint64_t> schema;           // MIB tags as stored
  MemProfData data;                       // records in hash-table order; MIBs hold only
                                          // the schema's fields (others 0)
  std::optional<MemProfSummary> summary;  // v4: the stored summary
  bool has_data_access_profile = false;   // v4: DataAccessProfOffset != 0; the payload is
                                          // decoded into data.data_access
};

// Reads the section starting at absolute offset `section_offset` of `file` (offsets inside
// the section are absolute).
Expected<IndexedMemProf> read_memprof_section(Bytes file, uint64_t section_offset);

// Decodes a v4 data-access payload (C.7.1) at absolute `offset`; every count and index is
// checked against the file.
Expected<DataAccessProfile> read_data_access_payload(Bytes file, uint64_t offset);

// True if `file` is an indexed profile whose MemProf section holds records or a v4
// data-access profile: a look at the section header and the record table's entry count
// only (false when those cannot be read; read_indexed_memprof then says why).
bool indexed_has_memprof_content(Bytes file);

// Finds the MemProf section of a whole .profdata file (header field MemProfOffset, flag
// bit 62, index version >= 8) and reads it.
Expected<IndexedMemProf> read_indexed_memprof(Bytes file);

}  // namespace profkit::memprof
