// MD5 from libmd (Debian's small, maintained BSD MD5) and XXH3 from libxxhash.
#include "format/bytes/hash.h"

#include <md5.h>
#include <xxhash.h>

#include "format/bytes/cursor.h"

namespace profkit {

std::array<uint8_t, 16> md5_digest(std::string_view data) {
  MD5_CTX ctx;
  MD5Init(&ctx);
  MD5Update(&ctx, reinterpret_cast<const uint8_t*>(data.data()), data.size());
  std::array<uint8_t, 16> digest;
  MD5Final(digest.data(), &ctx);
  return digest;
}

uint64_t md5_name_ref(std::string_view name) {
  const auto digest = md5_digest(name);
  return load_le<uint64_t>(digest.data());
}

uint64_t xxh3_64(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

}  // namespace profkit
