// The in-memory IR-PGO profile that every instrprof reader produces and every writer and
// printer consumes. Layout-independent: raw (.profraw), indexed (.profdata) and text
// profiles all become a Profile. See docs/formats/irpgo.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace profkit::instrprof {

// Variant flags in the high bits of the version word (docs/formats/irpgo.md 1.3). LLVM 14 takes the
// version from the low 56 bits, LLVM 22 from the low 32 bits.
inline constexpr uint64_t kFlagInstrLoopEntries = uint64_t{1} << 55;
inline constexpr uint64_t kFlagIR = uint64_t{1} << 56;
inline constexpr uint64_t kFlagCSIR = uint64_t{1} << 57;
inline constexpr uint64_t kFlagEntryFirst = uint64_t{1} << 58;
inline constexpr uint64_t kFlagDebugCorrelate = uint64_t{1} << 59;
inline constexpr uint64_t kFlagByteCoverage = uint64_t{1} << 60;
inline constexpr uint64_t kFlagFunctionEntryOnly = uint64_t{1} << 61;
inline constexpr uint64_t kFlagMemProf = uint64_t{1} << 62;
inline constexpr uint64_t kFlagTemporal = uint64_t{1} << 63;
inline constexpr uint64_t kFlagMask22 = 0xFFFFFFFF00000000ull;  // VARIANT_MASKS_ALL, LLVM 22
inline constexpr uint64_t kFlagMask14 = 0xFF00000000000000ull;  // VARIANT_MASKS_ALL, LLVM 14

// FuncHash bit 60 marks a context-sensitive record.
inline constexpr uint64_t kCSHashBit = uint64_t{1} << 60;

// Pseudo counts (LLVM 22): Counts[0] of records supplemented from sample profiles.
inline constexpr uint64_t kPseudoHot = ~uint64_t{0};
inline constexpr uint64_t kPseudoWarm = ~uint64_t{0} - 1;

enum class ValueKind : uint32_t {
  indirect_call_target = 0,
  mem_op_size = 1,
  vtable_target = 2,
};
inline constexpr size_t kNumValueKinds = 3;

struct ValueData {
  uint64_t value = 0;  // indexed/text: a NameRef (kinds 0, 2) or a size (kind 1)
  uint64_t count = 0;
  friend bool operator==(const ValueData&, const ValueData&) = default;
};
using ValueSite = std::vector<ValueData>;

// One function's counters under one CFG hash. (name, hash) is the merge key.
struct Record {
  std::string name;                 // PGO name, e.g. "main", "simple.c;helper"
  uint64_t hash = 0;                // FuncHash
  std::vector<uint64_t> counts;     // byte-coverage counters already converted to 0/1
  std::vector<uint8_t> bitmap;      // MC/DC bitmap bytes (front-end profiles)
  std::array<std::vector<ValueSite>, kNumValueKinds> value_sites;  // [kind][site]

  bool is_context_sensitive() const { return (hash & kCSHashBit) != 0; }
  bool has_value_sites() const {
    for (const auto& s : value_sites)
      if (!s.empty()) return true;
    return false;
  }
  friend bool operator==(const Record&, const Record&) = default;
};

struct TemporalTrace {
  uint64_t weight = 1;
  std::vector<uint64_t> function_refs;  // NameRefs in order of first call
  friend bool operator==(const TemporalTrace&, const TemporalTrace&) = default;
};

enum class ProfileFormat { raw, indexed, text };

struct Profile {
  ProfileFormat format = ProfileFormat::raw;
  uint64_t version_word = 0;  // the version word as stored: version number | flags
  uint64_t version = 0;       // format version number (raw 8/10, indexed 1..13, text 0)
  uint64_t flags = 0;         // variant flags (kFlag*), OR of all images
  // Text only: a ":fe" header line. LLVM gives a text profile the front-end kind only then;
  // a text profile with no kind line at all merges with IR and front-end profiles alike.
  bool text_front_end = false;
  std::vector<Record> records;  // storage order (what `show` iterates)
  std::vector<std::vector<uint8_t>> binary_ids;  // storage order
  std::vector<TemporalTrace> traces;
  uint64_t trace_stream_size = 0;
  std::vector<std::string> vtable_names;  // raw: from vtable-names; indexed v12+: kept names
  // Every name the file defines that value targets may refer to (raw and indexed: the
  // function names of the name table; the indexed symtab also includes vtable names).
  // Records' names are included implicitly; this lists extra ones only.
  std::vector<std::string> extra_names;
  // Indexed v8+ only: the serialized MemProf section (docs/formats/memprof.md C), produced by
  // format/memprof and written as-is by the indexed writer when flag kFlagMemProf is set.
  std::string memprof_section;

  bool is_ir() const { return (flags & kFlagIR) != 0; }
};

}  // namespace profkit::instrprof
