// One memprof input file, whatever its kind: the kind decided in one place from the first
// bytes (a raw profile by the raw magic, MemProf YAML by a leading "---", an indexed profile
// by the indexed IR-PGO magic), and the file read as that kind. Every command that takes
// memprof inputs starts here; symbolize/memprof_pipeline.h turns a raw one into records.
#pragma once

#include "format/bytes/cursor.h"
#include "format/bytes/error.h"
#include "format/bytes/expected.h"
#include "format/memprof/indexed_reader.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/yaml_reader.h"

namespace profkit::memprof {

enum class InputKind { raw, yaml, indexed, other };

InputKind input_kind(Bytes data);

// The error for a file of kind `other`, as every memprof command reports it.
Error unknown_input_error();

// A file read; only the member of its kind is filled.
struct MemProfFile {
  InputKind kind = InputKind::other;
  MergedRaw raw;           // raw: every profile in the file, merged (A.8, D.5)
  YamlMemProf yaml;        // yaml: its records and data-access profile
  IndexedMemProf indexed;  // indexed: its MemProf section (empty records if it has none)
};

// Reads `data` as the kind input_kind() gives it; a file of no known kind is an error
// (unknown_input_error()). `consumed` is told, for a raw file, which byte ranges are parsed
// and no longer needed (see read_raw_profiles).
Expected<MemProfFile> read_memprof_file(Bytes data, const ConsumedRange& consumed = {});

}  // namespace profkit::memprof
