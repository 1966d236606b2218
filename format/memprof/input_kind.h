// Which MemProf input a file is, decided in one place from its first bytes: a raw profile
// (the raw magic), MemProf YAML (starts with "---") or an indexed profile (the indexed
// IR-PGO magic; its MemProf section, if any, is read by read_indexed_memprof).
#pragma once

#include "format/bytes/cursor.h"
#include "format/bytes/error.h"

namespace profkit::memprof {

enum class InputKind { raw, yaml, indexed, other };

InputKind input_kind(Bytes data);

// The error for a file of kind `other`, as every memprof command reports it.
Error unknown_input_error();

}  // namespace profkit::memprof
