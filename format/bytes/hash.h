// Name hashes LLVM's profile formats are keyed by: MD5 (NameRef, GUID) and XXH3-64.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace profkit {

// Full RFC 1321 MD5 digest of `data`.
std::array<uint8_t, 16> md5_digest(std::string_view data);

// LLVM's 64-bit name key: the first 8 digest bytes read as little-endian.
// md5_name_ref("main") == 0xDB956436E78DD5FA.
uint64_t md5_name_ref(std::string_view name);

// XXH3-64 with seed 0 (libxxhash).
uint64_t xxh3_64(std::string_view data);

}  // namespace profkit
