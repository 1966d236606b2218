#include "format/memprof/input.h"

#include "format/instrprof/indexed_header.h"

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

Expected<MemProfFile> read_memprof_file(Bytes data, const ConsumedRange& consumed) {
  MemProfFile file;
  file.kind = input_kind(data);
  switch (file.kind) {
    case InputKind::raw: {
      PROFKIT_TRY_ASSIGN(auto profiles, read_raw_profiles(data, consumed));
      PROFKIT_TRY_ASSIGN(file.raw, merge_raw_profiles(std::move(profiles)));
      break;
    }
    case InputKind::yaml: {
      PROFKIT_TRY_ASSIGN(file.yaml, read_memprof_yaml(data));
      break;
    }
    case InputKind::indexed: {
      PROFKIT_TRY_ASSIGN(file.indexed, read_indexed_memprof(data));
      break;
    }
    case InputKind::other:
      return Unexpected{unknown_input_error()};
  }
  return file;
}

}  // namespace profkit::memprof
