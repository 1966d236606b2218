// The header of an indexed IR-PGO profile (.profdata): one layout, one reader, one writer,
// used by the IR-PGO reader and writer and by the MemProf code that finds or writes its
// section inside the same file. Layout (little-endian u64s; docs/formats/irpgo.md):
//
//   0x00 Magic 0x8169666F72706CFF   0x08 Version (low 32 bits) | variant flags (high 32)
//   0x10 Unused (0)                 0x18 HashType (0 = MD5)
//   0x20.. the section offsets of PROFKIT_INDEXED_HEADER_OFFSETS below, each present from
//          its first version on and never moved: a version only appends fields.
#pragma once

#include <cstdint>
#include <string>

#include "format/bytes/cursor.h"
#include "format/bytes/expected.h"

namespace profkit::instrprof {

inline constexpr uint64_t kIndexedMagic = 0x8169666F72706CFFull;
inline constexpr uint64_t kIndexedMinVersion = 1;
inline constexpr uint64_t kIndexedMaxVersion = 13;  // LLVM 22's current version
inline constexpr uint64_t kIndexedVersionMask = 0xffffffffull;

// X(member, name as LLVM calls it, first version). Order is file order, from 0x20.
#define PROFKIT_INDEXED_HEADER_OFFSETS(X)             \
  X(hash_offset, "HashOffset", 1)                     \
  X(memprof_offset, "MemProfOffset", 8)               \
  X(binary_id_offset, "BinaryIdOffset", 9)            \
  X(temporal_traces_offset, "TemporalProfTracesOffset", 10) \
  X(vtable_names_offset, "VTableNamesOffset", 12)

// The header fields as stored; offsets absent in the file's version are 0.
struct IndexedHeader {
  uint64_t version_word = 0;  // version | flags
  uint64_t hash_type = 0;
#define PROFKIT_X(member, name, first) uint64_t member = 0;
  PROFKIT_INDEXED_HEADER_OFFSETS(PROFKIT_X)
#undef PROFKIT_X
  uint64_t size_bytes = 0;  // 40, 48, 56, 64 or 72 by version

  uint64_t version() const { return version_word & kIndexedVersionMask; }
};

// File offset of each offset field (the same in every version that has it).
enum class IndexedHeaderField : uint64_t {
#define PROFKIT_X(member, name, first) member,
  PROFKIT_INDEXED_HEADER_OFFSETS(PROFKIT_X)
#undef PROFKIT_X
};
constexpr uint64_t field_offset(IndexedHeaderField f) {
  return 0x20 + 8 * static_cast<uint64_t>(f);
}

// Header size in bytes for an indexed format version (1..13).
uint64_t indexed_header_size(uint64_t version);

// True if `data` starts with the indexed magic (which has no byte-swapped form).
bool has_indexed_magic(Bytes data);

// Reads and checks magic, version (kIndexedMinVersion..kIndexedMaxVersion) and hash type,
// then the offsets present in that version. Offsets are not checked against the file here:
// each section's reader bounds its own.
Expected<IndexedHeader> read_indexed_header(Bytes data);

// Appends the header for h.version_word (h.size_bytes is set): the fields present in that
// version, with their current values. Write it first with zero offsets, then put the
// final header over it with rewrite_indexed_header once the sections are placed.
void append_indexed_header(std::string& out, IndexedHeader& h);
// Requires: `out` starts with a header appended for the same version.
void rewrite_indexed_header(std::string& out, const IndexedHeader& h);

}  // namespace profkit::instrprof
