// Format sniffing and dispatch for IR-PGO profiles.
#include "format/instrprof/reader.h"

#include "format/instrprof/indexed_reader.h"
#include "format/instrprof/text_reader.h"

namespace profkit::instrprof {
namespace {

// Raw magics (spec 1.2), 64- and 32-bit pointers, in either byte order.
bool starts_with_raw_magic(Bytes data) {
  constexpr uint64_t kMagic64 = 0xFF6C70726F667281ull;
  constexpr uint64_t kMagic32 = 0xFF6C70726F665281ull;
  if (data.size() < 8) return false;
  const uint64_t m = load_le<uint64_t>(data.data());
  return m == kMagic64 || m == kMagic32 || m == byteswap_int(kMagic64) ||
         m == byteswap_int(kMagic32);
}

}  // namespace

Expected<Profile> read_profile(Bytes data) {
  if (starts_with_raw_magic(data))
    return make_error(ErrorCode::unsupported_version, 0,
                      "raw profiles are not supported by this build yet");
  if (has_indexed_magic(data)) return read_indexed_profile(data);
  const std::string_view text = as_string_view(data);
  if (looks_like_text_profile(text)) return read_text_profile(text);
  return make_error(ErrorCode::bad_magic, 0,
                    "expected a raw, indexed or text IR-PGO profile");
}

}  // namespace profkit::instrprof
