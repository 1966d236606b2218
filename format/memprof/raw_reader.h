// Reader for raw memprof profiles (.memprofraw): versions 1 (LLVM 14), 2, 3, 4 and 5
// (LLVM 22), several profiles chained in one file. Strictly bounds-checked, unlike
// LLVM's reader (docs/formats/memprof.md B and D.5).
//
// One profile (all offsets relative to the profile's first byte, little-endian):
//   0x00 u64 Magic 0xFF6D70726F667281   0x08 u64 Version   0x10 u64 TotalSize
//   0x18 u64 SegmentOffset  0x20 u64 MIBOffset  0x28 u64 StackOffset
//   segments: u64 N, N x { u64 Start, End, Offset, [v3+: u64 BuildIdSize], u8 BuildId[32] }
//   MIBs:     u64 N, N x { u64 StackId, MIB (100/132/144 bytes, mib_fields.def),
//                          v4: u64 hist[AccessHistogramSize], v5: u16 hist[...] }
//   stacks:   u64 N, N x { u64 StackId, u64 NumPCs, u64 PC[NumPCs] }
// profkit's runtime adds its live/peak extension after the stacks, inside TotalSize
// (docs/formats/profkit-heap.md); other bytes there are ignored, as LLVM's reader does.
// Profiles follow each other; the TotalSize fields must add up to the file size.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/memprof/raw_layout.h"

namespace profkit::memprof {

// The raw versions this reader accepts are those of kRawLayouts (raw_layout.h): LLVM 22
// reads 3, 4 and 5; we also read LLVM 14's v1 and the (reconstructed) v2 layout.

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
  std::span<const uint64_t> pcs;    // return address - 1, leaf first; in the owner's pc_pool
  uint64_t file_offset = 0;
};

// profkit's live/peak extension (raw_layout.h kHeapExt*): blocks and bytes live when the
// profile was written (at exit: the leaks) and at the heap's peak, per stack id.
struct LivePeakEntry {
  uint64_t stack_id = 0;
  uint64_t live_blocks = 0, live_bytes = 0;
  uint64_t peak_blocks = 0, peak_bytes = 0;
};
struct LivePeak {
  bool at_exit = false;       // written at exit: live = leaked
  uint64_t dump_time_ms = 0;  // MIB timestamp clock
  uint64_t peak_time_ms = 0;
  uint64_t peak_bytes = 0, peak_blocks = 0;  // every context's, symbolized or not
  std::vector<LivePeakEntry> entries;
};

// The PCs of all stacks of a profile live in one array (`pc_pool`), not one allocation per
// stack: a large profile has hundreds of thousands of stacks, and one block is returned to
// the system as soon as it is freed. Move-only, since the stacks point into the pool.
struct RawProfile {
  uint64_t file_offset = 0;         // offset of this profile's header in the file
  uint64_t version = 0;
  uint64_t total_size = 0;
  std::vector<Segment> segments;
  std::vector<RawMib> mibs;
  std::vector<RawStack> stacks;
  std::vector<uint64_t> pc_pool;
  std::optional<LivePeak> live_peak;  // profkit's runtime only

  RawProfile() = default;
  RawProfile(RawProfile&&) = default;
  RawProfile& operator=(RawProfile&&) = default;
  RawProfile(const RawProfile&) = delete;
  RawProfile& operator=(const RawProfile&) = delete;
};

// True if `data` starts with the raw memprof magic.
bool is_raw_memprof(Bytes data);

// Called with ranges of the input that the reader is done with, in steps of about a MiB, so
// that a caller holding the input in a file mapping can drop those pages while parsing (a
// large profile then never has its bytes and its parsed form in memory at once). The
// ranges must stay readable: a malformed file may make the reader look at them again.
using ConsumedRange = std::function<void(uint64_t offset, uint64_t size)>;

// Parses every profile in the file. Errors carry file offsets.
Expected<std::vector<RawProfile>> read_raw_profiles(Bytes data,
                                                    const ConsumedRange& consumed = {});

// One MIB per stack id after merging the profiles of a file (docs/formats/memprof.md D.5).
struct MergedRaw {
  uint64_t version = 0;                 // version of the last profile
  std::vector<Segment> segments;        // the (common) segment list
  std::vector<RawMib> mibs;             // first-seen order of stack ids, merged (A.8)
  std::vector<RawStack> stacks;         // in first-seen order, one per id
  // Index into `stacks` for each entry of `mibs` (every MIB has a stack).
  std::vector<size_t> mib_stack;
  // Indices into `stacks` in the order llvm-profdata 22 iterates its stack map (a DenseMap
  // keyed by stack id), which is the order it first meets the frames (D.8).
  std::vector<uint32_t> llvm_stack_order;
  std::vector<std::vector<uint64_t>> pc_pools;  // the profiles' pools `stacks` point into
  std::optional<LivePeak> live_peak;  // the last profile's that has one (the latest dump)

  MergedRaw() = default;
  MergedRaw(MergedRaw&&) = default;
  MergedRaw& operator=(MergedRaw&&) = default;
  MergedRaw(const MergedRaw&) = delete;
  MergedRaw& operator=(const MergedRaw&) = delete;
};

// Applies D.5: merges MIBs by stack id, checks segments are identical across profiles, that
// a stack id maps to one PC list, and that every MIB has a stack.
Expected<MergedRaw> merge_raw_profiles(std::vector<RawProfile> profiles);

// Merges MIB `n` (with its histogram) into `m` with the runtime's rules (docs/formats/memprof.md A.8).
void merge_mib(MemInfoBlock& m, std::vector<uint64_t>& m_hist, const MemInfoBlock& n,
               const std::vector<uint64_t>& n_hist);

}  // namespace profkit::memprof
