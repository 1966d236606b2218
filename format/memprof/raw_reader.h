// Reader for raw memprof profiles (.memprofraw): versions 1 (LLVM 14), 2, 3, 4 and 5
// (LLVM 22), several profiles chained in one file. Strictly bounds-checked, unlike
// LLVM's reader (spec memprof-format.md B and D.5).
//
// One profile (all offsets relative to the profile's first byte, little-endian):
//   0x00 u64 Magic 0xFF6D70726F667281   0x08 u64 Version   0x10 u64 TotalSize
//   0x18 u64 SegmentOffset  0x20 u64 MIBOffset  0x28 u64 StackOffset
//   segments: u64 N, N x { u64 Start, End, Offset, [v3+: u64 BuildIdSize], u8 BuildId[32] }
//   MIBs:     u64 N, N x { u64 StackId, MIB (100/132/144 bytes, mib_fields.def),
//                          v4: u64 hist[AccessHistogramSize], v5: u16 hist[...] }
//   stacks:   u64 N, N x { u64 StackId, u64 NumPCs, u64 PC[NumPCs] }
// Profiles follow each other; the TotalSize fields must add up to the file size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/memprof/raw_layout.h"

namespace profkit::memprof {

// Raw versions this reader accepts. LLVM 22 reads {3, 4, 5}; we also read LLVM 14's v1
// and the (reconstructed) v2 layout.
inline constexpr uint64_t kRawVersions[] = {1, 2, 3, 4, 5};

struct Segment {
  uint64_t start = 0;              // run-time address of the executable PT_LOAD (v1: mapping)
  uint64_t end = 0;                // Start + p_memsz (v1: end of mapping)
  uint64_t offset = 0;             // v3+: load bias; v1: file offset of the mapping
  std::vector<uint8_t> build_id;   // the first BuildIdSize bytes (v1/v2: empty)
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct RawMib {
  uint64_t stack_id = 0;
  MemInfoBlock mib;
  std::vector<uint64_t> histogram;  // decoded values (v4: as stored, v5: decoded u16)
  uint64_t file_offset = 0;         // where the MIB entry starts (for errors)
};

struct RawStack {
  uint64_t stack_id = 0;
  std::vector<uint64_t> pcs;        // return address - 1, leaf first
  uint64_t file_offset = 0;
};

struct RawProfile {
  uint64_t file_offset = 0;         // offset of this profile's header in the file
  uint64_t version = 0;
  uint64_t total_size = 0;
  std::vector<Segment> segments;
  std::vector<RawMib> mibs;
  std::vector<RawStack> stacks;
};

// True if `data` starts with the raw memprof magic.
bool is_raw_memprof(Bytes data);

// Parses every profile in the file. Errors carry file offsets.
Expected<std::vector<RawProfile>> read_raw_profiles(Bytes data);

// One MIB per stack id after merging the profiles of a file (spec D.5).
struct MergedRaw {
  uint64_t version = 0;                 // version of the last profile
  std::vector<Segment> segments;        // the (common) segment list
  std::vector<RawMib> mibs;             // first-seen order of stack ids, merged (A.8)
  std::vector<RawStack> stacks;         // in first-seen order, one per id
  // Index into `stacks` for each entry of `mibs` (every MIB has a stack).
  std::vector<size_t> mib_stack;
};

// Applies D.5: merges MIBs by stack id, checks segments are identical across profiles, that
// a stack id maps to one PC list, and that every MIB has a stack.
Expected<MergedRaw> merge_raw_profiles(std::vector<RawProfile> profiles);

// Merges MIB `n` (with its histogram) into `m` with the runtime's rules (spec A.8).
void merge_mib(MemInfoBlock& m, std::vector<uint64_t>& m_hist, const MemInfoBlock& n,
               const std::vector<uint64_t>& n_hist);

}  // namespace profkit::memprof
