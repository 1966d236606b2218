// What differs between the versions of the indexed MemProf section (docs/formats/memprof.md
// C.5-C.7), described once: the reader and the writer walk this table instead of testing
// version numbers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace profkit::memprof {

// The u64 offsets at the start of the section, after the version word.
enum class HeaderWord : uint8_t {
  record_table,    // the records' on-disk hash table
  frame_payload,   // v2: the frame table's items
  frame_table,     // v2: the frame hash table
  stack_payload,   // v2: the call-stack table's items; v3+: the radix array of call stacks
  stack_table,     // v2: the call-stack hash table
  record_payload,  // v3+: the record table's items
  data_access,     // v4: the data-access profile, 0 when there is none
};
inline constexpr size_t kNumHeaderWords = 7;

struct IndexedLayout {
  uint64_t version;
  std::array<HeaderWord, 5> header_storage;
  size_t header_size;      // words used in header_storage
  bool summary;            // v4: a field count and the MemProfSummary fields follow the header
  bool radix_stacks;       // v3+: a frame array and a radix tree, stacks named by u32 indices;
                           // v2: frame and call-stack hash tables, stacks named by u64 ids
  bool callee_guids;       // v4: each call site lists its callees' GUIDs

  constexpr std::span<const HeaderWord> header() const { return {header_storage.data(), header_size}; }
  constexpr uint64_t stack_id_size() const { return radix_stacks ? 4 : 8; }
  // Where `word` sits, relative to the section start (the version word is at 0); 0 if the
  // version has no such word.
  constexpr uint64_t word_offset(HeaderWord word) const {
    for (size_t i = 0; i < header_size; ++i)
      if (header_storage[i] == word) return 8 + 8 * i;
    return 0;
  }
};

inline constexpr IndexedLayout kIndexedLayouts[] = {
    {2,
     {HeaderWord::record_table, HeaderWord::frame_payload, HeaderWord::frame_table,
      HeaderWord::stack_payload, HeaderWord::stack_table},
     5, false, false, false},
    {3, {HeaderWord::stack_payload, HeaderWord::record_payload, HeaderWord::record_table}, 3,
     false, true, false},
    {4,
     {HeaderWord::stack_payload, HeaderWord::record_payload, HeaderWord::record_table,
      HeaderWord::data_access},
     4, true, true, true},
};

// The layout of `version`, or nullptr when it is not one of kIndexedLayouts.
constexpr const IndexedLayout* indexed_layout(uint64_t version) {
  for (const IndexedLayout& l : kIndexedLayouts)
    if (l.version == version) return &l;
  return nullptr;
}

inline const char* header_word_name(HeaderWord word) {
  switch (word) {
    case HeaderWord::record_table: return "record table offset";
    case HeaderWord::frame_payload: return "frame payload offset";
    case HeaderWord::frame_table: return "frame table offset";
    case HeaderWord::stack_payload: return "call stack payload offset";
    case HeaderWord::stack_table: return "call stack table offset";
    case HeaderWord::record_payload: return "record payload offset";
    case HeaderWord::data_access: return "data access profile offset";
  }
  return "offset";
}

}  // namespace profkit::memprof
