// Small open-addressing hash maps from 64-bit keys (or pairs of them) to uint32 indices,
// used on the raw-read and merge hot paths instead of node-based std::unordered_map.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace profkit {

namespace detail {
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}
}  // namespace detail

// Key -> value map. Invariant: slots_.size() is a power of two and at most 7/8 full.
template <class Key, class KeyHash>
class FlatMap {
 public:
  static constexpr uint32_t kMissing = ~uint32_t{0};

  // Empties the map but keeps its slots: refilling it costs no allocation (nor page faults).
  void clear() {
    if (size_ != 0) std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
  }
  size_t size() const { return size_; }
  void reserve(size_t n) {
    size_t want = 16;
    while (want * 7 / 8 < n) want *= 2;
    if (want > slots_.size()) rehash(want);
  }

  uint32_t find(const Key& key) const {
    if (slots_.empty()) return kMissing;
    const size_t mask = slots_.size() - 1;
    for (size_t i = KeyHash{}(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.value == kMissing) return kMissing;
      if (s.key == key) return s.value;
    }
  }

  // Inserts key -> value unless the key exists; returns the value stored for key.
  uint32_t insert(const Key& key, uint32_t value) {
    if ((size_ + 1) * 8 > slots_.size() * 7) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    const size_t mask = slots_.size() - 1;
    for (size_t i = KeyHash{}(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.value == kMissing) {
        s.key = key;
        s.value = value;
        ++size_;
        return value;
      }
      if (s.key == key) return s.value;
    }
  }

 private:
  struct Slot {
    Key key{};
    uint32_t value = kMissing;
  };
  void rehash(size_t n) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(n, Slot{});
    size_ = 0;
    for (const Slot& s : old)
      if (s.value != kMissing) insert(s.key, s.value);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

struct Hash64 {
  uint64_t operator()(uint64_t k) const { return detail::mix64(k); }
};
using FlatMap64 = FlatMap<uint64_t, Hash64>;

struct KeyPair {
  uint64_t a = 0;
  uint64_t b = 0;
  friend bool operator==(const KeyPair&, const KeyPair&) = default;
};
struct HashKeyPair {
  uint64_t operator()(const KeyPair& k) const {
    return detail::mix64(k.a ^ (k.b * 0x9E3779B97F4A7C15ull));
  }
};
using FlatMapPair = FlatMap<KeyPair, HashKeyPair>;

}  // namespace profkit
