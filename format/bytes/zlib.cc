// zlib inflate/deflate wrappers with bounded output.
#include "format/bytes/zlib.h"

#include <zlib.h>

#include <limits>

namespace profkit {

Expected<std::string> zlib_uncompress(Bytes stream, uint64_t expected_size, uint64_t offset) {
  // A claimed size is only a claim: zlib's maximum ratio is about 1032:1, so a larger
  // expansion is malformed and must not drive an allocation.
  if (expected_size > stream.size() * 1032ull + 64 ||
      expected_size > std::numeric_limits<uLongf>::max())
    return make_error(ErrorCode::malformed, offset,
                      "expected a compressed name blob whose size (" +
                          std::to_string(expected_size) + ") is plausible for " +
                          std::to_string(stream.size()) + " compressed bytes");
  std::string out(expected_size, '\0');
  uLongf out_len = static_cast<uLongf>(expected_size);
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &out_len, stream.data(),
                            static_cast<uLong>(stream.size()));
  if (rc != Z_OK || out_len != expected_size)
    return make_error(ErrorCode::malformed, offset,
                      "expected a zlib stream inflating to " + std::to_string(expected_size) +
                          " bytes (zlib: " + (rc == Z_OK ? "size mismatch" : zError(rc)) + ")");
  return out;
}

std::string zlib_compress(std::string_view data) {
  uLongf bound = compressBound(static_cast<uLong>(data.size()));
  std::string out(bound, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &bound,
                           reinterpret_cast<const Bytef*>(data.data()),
                           static_cast<uLong>(data.size()), Z_BEST_COMPRESSION);
  if (rc != Z_OK) return {};  // only Z_MEM_ERROR is possible with a sufficient bound
  out.resize(bound);
  return out;
}

}  // namespace profkit
