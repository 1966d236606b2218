// LEB128 decoding and encoding for Cursor and the writers.
#include "format/bytes/cursor.h"

namespace profkit {

Expected<uint64_t> Cursor::read_uleb128_slow(std::string_view what) {
  const uint64_t start = pos_;
  uint64_t result = 0;
  unsigned shift = 0;
  while (true) {
    if (pos_ >= data_.size()) [[unlikely]] {
      pos_ = start;
      return truncated(std::string(what) + " (ULEB128)");
    }
    const uint8_t byte = data_[pos_++];
    const uint64_t low = byte & 0x7f;
    if (shift >= 64 || (shift == 63 && low > 1)) [[unlikely]] {
      const uint64_t at = base_ + start;
      pos_ = start;
      return make_error(ErrorCode::malformed, at,
                        "expected " + std::string(what) + " as ULEB128 that fits 64 bits");
    }
    result |= low << shift;
    shift += 7;
    if ((byte & 0x80) == 0) return result;
  }
}

Expected<int64_t> Cursor::read_sleb128(std::string_view what) {
  const uint64_t start = pos_;
  uint64_t result = 0;
  unsigned shift = 0;
  uint8_t byte = 0;
  do {
    if (pos_ >= data_.size()) [[unlikely]] {
      pos_ = start;
      return truncated(std::string(what) + " (SLEB128)");
    }
    if (shift >= 64) [[unlikely]] {
      const uint64_t at = base_ + start;
      pos_ = start;
      return make_error(ErrorCode::malformed, at,
                        "expected " + std::string(what) + " as SLEB128 that fits 64 bits");
    }
    byte = data_[pos_++];
    result |= uint64_t{byte & 0x7fu} << shift;
    shift += 7;
  } while (byte & 0x80);
  if (shift < 64 && (byte & 0x40)) result |= ~uint64_t{0} << shift;
  return static_cast<int64_t>(result);
}

size_t append_uleb128(std::string& out, uint64_t value) {
  size_t n = 0;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
    ++n;
  } while (value != 0);
  return n;
}

size_t append_sleb128(std::string& out, int64_t value) {
  size_t n = 0;
  bool more = true;
  while (more) {
    uint8_t byte = value & 0x7f;
    value >>= 7;  // arithmetic shift: C++20 defines it for negative values
    more = !((value == 0 && !(byte & 0x40)) || (value == -1 && (byte & 0x40)));
    if (more) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
    ++n;
  }
  return n;
}

}  // namespace profkit
