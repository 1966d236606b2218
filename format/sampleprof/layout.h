// The constants of the binary sample-profile encodings: magics, the version, extbinary
// section types and flag bits (docs/formats/sampleprof.md sections 3 and 5).
#pragma once

#include <cstdint>
#include <string_view>

namespace profkit::sampleprof {

// 'S' 'P' 'R' 'O' 'F' '4' '2' then the format byte, stored as one ULEB128.
inline constexpr uint64_t kMagicBase = 0x5350524f46343200ULL;
inline constexpr uint64_t kMagicBinary = kMagicBase | 0xff;
inline constexpr uint64_t kMagicExtBinary = kMagicBase | 0x04;
inline constexpr uint64_t kVersion = 103;

enum class SectionType : uint64_t {
  summary = 1,
  name_table = 2,
  symbol_list = 3,
  func_offset_table = 4,
  func_metadata = 5,
  cs_name_table = 6,
  lbr_profile = 32,
};

// The name `show --show-sec-info-only` prints for a section type.
inline std::string_view section_name(uint64_t type) {
  switch (static_cast<SectionType>(type)) {
    case SectionType::summary: return "ProfileSummarySection";
    case SectionType::name_table: return "NameTableSection";
    case SectionType::symbol_list: return "ProfileSymbolListSection";
    case SectionType::func_offset_table: return "FuncOffsetTableSection";
    case SectionType::func_metadata: return "FunctionMetadata";
    case SectionType::cs_name_table: return "CSNameTableSection";
    case SectionType::lbr_profile: return "LBRProfileSection";
  }
  return "UnknownSection";
}

// Flags common to all sections (low 32 bits).
inline constexpr uint64_t kFlagCompressed = 1;
inline constexpr uint64_t kFlagFlat = 2;
// Section-specific flags (high 32 bits), by section type.
inline constexpr uint64_t kNameTableMd5 = 1ULL << 32;
inline constexpr uint64_t kNameTableFixedLengthMd5 = 2ULL << 32;
inline constexpr uint64_t kNameTableUniq = 4ULL << 32;
inline constexpr uint64_t kSummaryPartial = 1ULL << 32;
inline constexpr uint64_t kSummaryContext = 2ULL << 32;
inline constexpr uint64_t kSummaryFsDiscriminator = 4ULL << 32;
inline constexpr uint64_t kSummaryPreInlined = 16ULL << 32;
inline constexpr uint64_t kSummaryVTables = 32ULL << 32;
inline constexpr uint64_t kOffsetTableOrdered = 1ULL << 32;
inline constexpr uint64_t kMetadataProbe = 1ULL << 32;
inline constexpr uint64_t kMetadataAttributes = 2ULL << 32;

}  // namespace profkit::sampleprof
