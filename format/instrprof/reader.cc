// Format sniffing and dispatch for IR-PGO profiles.
#include "format/instrprof/reader.h"

#include "format/instrprof/indexed_reader.h"
#include "format/instrprof/raw_reader.h"
#include "format/instrprof/text_reader.h"

namespace profkit::instrprof {

Expected<Profile> read_profile(Bytes data) {
  if (has_raw_magic(data)) return read_raw_profile(data);
  if (has_indexed_magic(data)) return read_indexed_profile(data);
  const std::string_view text = as_string_view(data);
  if (looks_like_text_profile(text)) return read_text_profile(text);
  return make_error(ErrorCode::bad_magic, 0,
                    "expected a raw, indexed or text IR-PGO profile");
}

}  // namespace profkit::instrprof
