// zlib streams (RFC 1950) as LLVM's profile name sections use them.
#pragma once

#include <string>
#include <string_view>

#include "format/bytes/cursor.h"

namespace profkit {

// Inflates a zlib stream that must produce exactly `expected_size` bytes. `offset` is the
// stream's file offset, for errors.
Expected<std::string> zlib_uncompress(Bytes stream, uint64_t expected_size, uint64_t offset);

// Deflates at best compression (level 9), which is what LLVM writes.
std::string zlib_compress(std::string_view data);

// A gzip member (RFC 1952) at default compression, modification time 0 so the same data
// always gives the same bytes. What pprof expects of a `.pb.gz` profile.
std::string gzip_compress(std::string_view data);

}  // namespace profkit
