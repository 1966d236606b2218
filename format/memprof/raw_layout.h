// Raw memprof (.memprofraw) constants and the MIB struct generated from mib_fields.def.
// Include-light on purpose: the runtime (built -fno-exceptions, no C++ library on its hot
// path) uses this header too. See docs/formats/memprof.md section B.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace profkit::memprof {

inline constexpr uint64_t kRawMagic = 0xFF6D70726F667281ull;  // bytes 81 72 66 6f 72 70 6d ff
inline constexpr uint64_t kRawVersionLatest = 5;               // what LLVM 22's runtime writes
inline constexpr uint64_t kRawHeaderSize = 48;   // Magic Version TotalSize Seg/MIB/StackOffset
inline constexpr uint64_t kBuildIdMaxSize = 32;
inline constexpr uint64_t kSegmentEntrySizeV1 = 56;  // Start End Offset BuildId[32]
inline constexpr uint64_t kSegmentEntrySizeV3 = 64;  // Start End Offset BuildIdSize BuildId[32]

// What differs between the raw versions besides the MIB fields (whose first version is a
// column of mib_fields.def): the segment entries and the access histogram after each MIB.
struct RawLayout {
  uint64_t version;
  bool build_id_size;       // v3+: a segment entry holds BuildIdSize before the build id
  uint8_t histogram_width;  // bytes per histogram entry after a MIB: 0 none (v1-v3), 8 (v4:
                            // u64 counts), 2 (v5: u16 counts, encoded)
  constexpr uint64_t segment_entry_size() const {
    return build_id_size ? kSegmentEntrySizeV3 : kSegmentEntrySizeV1;
  }
};
inline constexpr RawLayout kRawLayouts[] = {
    {1, false, 0}, {2, false, 0}, {3, true, 0}, {4, true, 8}, {5, true, 2},
};
// The layout of a raw `version`, or nullptr when it is not one of kRawLayouts.
constexpr const RawLayout* raw_layout(uint64_t version) {
  for (const RawLayout& l : kRawLayouts)
    if (l.version == version) return &l;
  return nullptr;
}

// profkit's live/peak extension: written by profkit's runtime after the stack section,
// inside the profile's TotalSize, where LLVM's reader never looks
// (docs/formats/profkit-heap.md). u64s: magic, size, version, flags, dump time, peak time,
// peak bytes, peak blocks, N; then N x {stack id, live blocks, live bytes, peak blocks,
// peak bytes}.
inline constexpr uint64_t kHeapExtMagic = 0x3158504145484B50ull;  // "PKHEAPX1"
inline constexpr uint64_t kHeapExtVersion = 1;
inline constexpr uint64_t kHeapExtHeaderSize = 72;
inline constexpr uint64_t kHeapExtEntrySize = 40;
inline constexpr uint64_t kHeapExtAtExit = 1;  // flags: written at exit (live = leaks)

// The MIB with every field of the latest version, in table order.
struct MemInfoBlock {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) Type Name = 0;
#include "format/memprof/mib_fields.def"
};

// The merge rules of the table's Merge column.
namespace mib_merge {
template <class T> inline void sum(T& a, T b) { a += b; }
template <class T> inline void min(T& a, T b) { if (b < a) a = b; }
template <class T> inline void max(T& a, T b) { if (b > a) a = b; }
template <class T> inline void other(T&, T) {}
}  // namespace mib_merge

// Merges `n` into `m` for every field whose rule is sum, min or max; the fields marked
// `other` are left to the caller.
inline void merge_mib_fields(MemInfoBlock& m, const MemInfoBlock& n) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) mib_merge::Merge(m.Name, n.Name);
#include "format/memprof/mib_fields.def"
}

// Bytes of each MIB field as serialized (raw and indexed), by tag; tag 0 is no field.
inline constexpr size_t kMibFieldSize[] = {
    0,
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) sizeof(Type),
#include "format/memprof/mib_fields.def"
};
inline constexpr uint64_t kNumMibTags = sizeof(kMibFieldSize) / sizeof(kMibFieldSize[0]);

// Size of a MIB serialized with the schema `tags[0..count)` (indexed format, docs/formats/memprof.md C.2).
// Requires: every tag < kNumMibTags.
constexpr size_t schema_mib_size(const uint64_t* tags, size_t count) {
  size_t size = 0;
  for (size_t i = 0; i < count; ++i) size += kMibFieldSize[tags[i]];
  return size;
}

// Packed on-disk size of the MIB in raw version `version` (1..5), from the table.
constexpr size_t raw_mib_size(uint64_t version) {
  size_t size = 0;
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  if (version >= First) size += sizeof(Type);
#include "format/memprof/mib_fields.def"
  return size;
}

static_assert(raw_mib_size(1) == 100);
static_assert(raw_mib_size(3) == 132);
static_assert(raw_mib_size(5) == 144);

// v5 histogram entry encoding (docs/formats/memprof.md B.4.3): u16 with a 4-bit exponent and 12-bit mantissa.
constexpr uint16_t encode_histogram_count(uint64_t count) {
  if (count == 0) return 0;
  constexpr uint64_t kMax = uint64_t{4095} << 15;
  if (count > kMax) count = kMax;
  if (count <= 4095) return static_cast<uint16_t>(count);
  uint64_t mantissa = count;
  uint16_t exponent = 0;
  while (mantissa > 4095) {
    mantissa = (mantissa + 1) >> 1;
    ++exponent;
  }
  return static_cast<uint16_t>((exponent << 12) | mantissa);
}
constexpr uint64_t decode_histogram_count(uint16_t encoded) {
  return static_cast<uint64_t>(encoded & 0x0FFF) << (encoded >> 12);
}
static_assert(encode_histogram_count(5000) == 0x19C4);
static_assert(encode_histogram_count(8191) == 0x2800);
static_assert(decode_histogram_count(0x2800) == 8192);

}  // namespace profkit::memprof
