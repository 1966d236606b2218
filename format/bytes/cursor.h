// A bounded, bounds-checked reader over untrusted bytes. Every read checks before it
// touches memory; every failure carries the absolute file offset and what was expected.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "format/bytes/expected.h"

namespace profkit {

using Bytes = std::span<const uint8_t>;

inline Bytes as_bytes(std::string_view s) {
  return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
inline std::string_view as_string_view(Bytes b) {
  return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
}

template <class T>
constexpr T byteswap_int(T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// Loads a T stored little-endian at p. Requires: p..p+sizeof(T) readable.
template <class T>
inline T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) v = byteswap_int(v);
  return v;
}

// Stores v little-endian at p. Requires: p..p+sizeof(T) writable.
template <class T>
inline void store_le(uint8_t* p, T v) {
  if constexpr (std::endian::native == std::endian::big) v = byteswap_int(v);
  std::memcpy(p, &v, sizeof(T));
}

// Appends `v` little-endian: writers build their files in a std::string.
template <class T>
inline void append_le(std::string& out, T v) {
  uint8_t buf[sizeof(T)];
  store_le<T>(buf, v);
  out.append(reinterpret_cast<const char*>(buf), sizeof(T));
}

class Cursor {
 public:
  Cursor() = default;
  // base_offset: absolute offset of data[0] in the file, so errors name file offsets.
  explicit Cursor(Bytes data, uint64_t base_offset = 0, bool swap = false)
      : data_(data), base_(base_offset), swap_(swap) {}

  uint64_t offset() const { return base_ + pos_; }        // absolute position
  uint64_t position() const { return pos_; }              // relative to this cursor
  uint64_t size() const { return data_.size(); }
  uint64_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  bool swapped() const { return swap_; }
  void set_swapped(bool swap) { swap_ = swap; }
  Bytes data() const { return data_; }
  uint64_t base_offset() const { return base_; }

  // Error at the current position.
  Unexpected fail(ErrorCode code, std::string message) const {
    return make_error(code, offset(), std::move(message));
  }
  Unexpected truncated(std::string_view what) const {
    return fail(ErrorCode::truncated,
                "expected " + std::string(what) + " but the input ends (" +
                    std::to_string(remaining()) + " bytes left)");
  }

  // Reads an integer in this cursor's byte order (native unless swapped).
  template <class T>
  [[nodiscard]] Expected<T> read(std::string_view what) {
    static_assert(std::is_integral_v<T>);
    if (remaining() < sizeof(T)) [[unlikely]] return truncated(what);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    if (swap_) v = byteswap_int(v);
    pos_ += sizeof(T);
    return v;
  }

  // Reads a little-endian integer regardless of the cursor's byte order.
  template <class T>
  [[nodiscard]] Expected<T> read_le(std::string_view what) {
    static_assert(std::is_integral_v<T>);
    if (remaining() < sizeof(T)) [[unlikely]] return truncated(what);
    T v = load_le<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }

  // Reads an unsigned LEB128 of at most 10 bytes whose value fits in 64 bits. (One-byte
  // values, most of them in profiles, take the inline path.)
  [[nodiscard]] Expected<uint64_t> read_uleb128(std::string_view what) {
    if (pos_ < data_.size() && data_[pos_] < 0x80) [[likely]]
      return uint64_t{data_[pos_++]};
    return read_uleb128_slow(what);
  }
  [[nodiscard]] Expected<uint64_t> read_uleb128_slow(std::string_view what);
  // Reads a signed LEB128 of at most 10 bytes.
  [[nodiscard]] Expected<int64_t> read_sleb128(std::string_view what);

  // Returns the next `size` bytes as a span and advances.
  [[nodiscard]] Expected<Bytes> read_bytes(uint64_t size, std::string_view what) {
    if (remaining() < size) [[unlikely]] return truncated(what);
    Bytes b = data_.subspan(pos_, size);
    pos_ += size;
    return b;
  }

  // A sub-cursor over the next `size` bytes (same byte order); advances past them.
  [[nodiscard]] Expected<Cursor> take(uint64_t size, std::string_view what) {
    if (remaining() < size) [[unlikely]] return truncated(what);
    Cursor sub(data_.subspan(pos_, size), offset(), swap_);
    pos_ += size;
    return sub;
  }

  [[nodiscard]] Expected<void> skip(uint64_t size, std::string_view what) {
    if (remaining() < size) [[unlikely]] return truncated(what);
    pos_ += size;
    return {};
  }

  // Moves to a position relative to the start of this cursor.
  [[nodiscard]] Expected<void> seek(uint64_t position, std::string_view what) {
    if (position > data_.size()) [[unlikely]]
      return make_error(ErrorCode::malformed, base_ + data_.size(),
                        std::string(what) + " points to offset " +
                            std::to_string(base_ + position) + ", past the end of the input");
    pos_ = position;
    return {};
  }

 private:
  Bytes data_;
  uint64_t base_ = 0;
  uint64_t pos_ = 0;
  bool swap_ = false;
};

// Checked arithmetic for offsets and sizes computed from file fields.
[[nodiscard]] inline bool add_overflows(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_add_overflow(a, b, out);
}
[[nodiscard]] inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// ULEB128 / SLEB128 encoders for writers. Returns the number of bytes appended.
size_t append_uleb128(std::string& out, uint64_t value);
size_t append_sleb128(std::string& out, int64_t value);

}  // namespace profkit
