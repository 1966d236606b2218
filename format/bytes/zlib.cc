// zlib inflate/deflate wrappers with bounded output.
#include "format/bytes/zlib.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace profkit {

Expected<std::string> zlib_uncompress(Bytes stream, uint64_t expected_size, uint64_t offset) {
  const auto fail = [&](const std::string& why) {
    return make_error(ErrorCode::malformed, offset,
                      "expected a zlib stream inflating to " + std::to_string(expected_size) +
                          " bytes (" + why + ")");
  };
  // A claimed size is only a claim: zlib's maximum ratio is about 1032:1, so a larger
  // expansion is malformed and must not drive an allocation.
  if (expected_size > stream.size() * 1032ull + 64)
    return make_error(ErrorCode::malformed, offset,
                      "expected a compressed name blob whose size (" +
                          std::to_string(expected_size) + ") is plausible for " +
                          std::to_string(stream.size()) + " compressed bytes");
  if (stream.size() > std::numeric_limits<uInt>::max())
    return fail("compressed stream larger than zlib's 4 GiB input limit");

  // Inflate in steps, growing the output with what the stream really produces, so a hostile
  // claim costs at most twice the bytes actually inflated.
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return fail("zlib: out of memory");
  z.next_in = const_cast<Bytef*>(stream.data());
  z.avail_in = static_cast<uInt>(stream.size());
  std::string out;
  size_t produced = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (produced == out.size()) {
      if (out.size() > expected_size) break;  // more than claimed: mismatch below
      const size_t grow = std::max<size_t>(out.size(), 64 * 1024);
      out.resize(std::min<uint64_t>(out.size() + grow, expected_size + 1));
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    z.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced,
                                                     std::numeric_limits<uInt>::max()));
    const uInt before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    produced += before - z.avail_out;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
    if (rc == Z_BUF_ERROR) rc = Z_OK;                 // output full: grow and go on
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return fail(rc == Z_OK || rc == Z_BUF_ERROR ? "zlib: stream truncated or longer than claimed"
                                                : std::string("zlib: ") + zError(rc));
  if (produced != expected_size) return fail("zlib: inflated " + std::to_string(produced));
  out.resize(produced);
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

std::string gzip_compress(std::string_view data) {
  if (data.size() > std::numeric_limits<uInt>::max()) return {};  // one deflate call below
  z_stream z{};
  // windowBits 15 + 16 selects the gzip wrapper; zlib writes a header with mtime 0.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return {};
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);  // the bound guarantees one call suffices
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return {};
  return out;
}

}  // namespace profkit
