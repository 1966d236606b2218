// `profkit show --memory`: text views of memprof profiles, byte-identical to
// `llvm-profdata show --memory` of LLVM 22 (docs/formats/memprof.md E.1 for raw profiles, E.2 for
// indexed profiles and YAML).
#pragma once

#include <string>

#include "format/memprof/indexed_reader.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/records.h"

namespace profkit::report {

// E.1: a raw profile after symbolization: its version and segments, its records, and
// `stacks_kept` the number of stacks that survived symbolization.
std::string show_memprof_raw(uint64_t version, const std::vector<memprof::Segment>& segments,
                             const memprof::MemProfData& data, uint64_t stacks_kept);

// E.2: an indexed profile (records in hash-table order).
std::string show_memprof_indexed(const memprof::IndexedMemProf& profile);

// The MemProfSummary comment block (with the leading "---").
std::string show_memprof_summary(const memprof::MemProfSummary& summary);

}  // namespace profkit::report
