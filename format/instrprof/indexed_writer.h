// Writer for indexed IR-PGO profiles (.profdata): v13 (llvm-profdata 22's default), v11
// (its --write-prev-version) and v7 (llvm-profdata 14), byte-identical to those tools when
// given the merged profile they would build. See docs/formats/irpgo.md section 3.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

struct IndexedWriteOptions {
  // --sparse: leave out names whose records have only zero counters and bitmap bytes.
  // (Done here rather than before writing because LLVM 14's key order depends on every
  // name that was merged, written or not.)
  bool sparse = false;
  // --function / --no-function: when set, only names it returns true for are written (like
  // sparse, a filter at writing time: the other names still shape LLVM 14's key order, as
  // the names llvm-profdata erases before writing do).
  std::function<bool(std::string_view name)> keep_name;
  // Optional: the NameRef (MD5) of each record's name, as a Merger knows them; spares
  // hashing every name again. Ignored unless it has one entry per record.
  std::span<const uint64_t> name_refs;
  // Writes a MemProf section for the absolute file offset it will start at (the section
  // stores absolute offsets, so it is made once its place is known). When set, the file
  // gets the MemProf flag and this section instead of the Profile's memprof_section.
  // Not used for version 7 (LLVM 14 had no MemProf section).
  std::function<std::string(uint64_t offset)> memprof_section;
};

// Requires: `merged` lists records in first-seen order (as Merger::finish() returns them),
// at most one record per (name, hash).
Expected<std::string> write_indexed_profile(const Profile& merged, uint32_t version = 13,
                                            const IndexedWriteOptions& options = {});

}  // namespace profkit::instrprof
