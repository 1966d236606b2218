#include "format/memprof/input_kind.h"

#include "format/instrprof/indexed_header.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/yaml_reader.h"

namespace profkit::memprof {

InputKind input_kind(Bytes data) {
  if (is_raw_memprof(data)) return InputKind::raw;
  if (is_memprof_yaml(data)) return InputKind::yaml;
  if (instrprof::has_indexed_magic(data)) return InputKind::indexed;
  return InputKind::other;
}

Error unknown_input_error() {
  return Error{ErrorCode::bad_magic, 0,
               "expected a raw memprof profile, MemProf YAML or an indexed profile"};
}

}  // namespace profkit::memprof
