// BLAKE3 in hash mode (no key, no derive-key), portable C++, written from the public
// BLAKE3 specification. memprof frame and call-stack ids use it (docs/formats/memprof.md C.3).
// Debian ships no C/C++ BLAKE3 library, hence this small one. Not vectorized: the inputs
// hashed here are a few dozen bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace profkit::blake3 {

// Incremental hasher; any number of update() calls, then finalize().
class Hasher {
 public:
  Hasher();
  void update(std::span<const uint8_t> data);
  void update(std::string_view data) {
    update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  }
  // Writes out.size() bytes of output (extendable output). Does not change the state.
  void finalize(std::span<uint8_t> out) const;

 private:
  struct ChunkState {
    std::array<uint32_t, 8> cv;
    uint64_t counter = 0;
    std::array<uint8_t, 64> block{};
    uint8_t block_len = 0;
    uint8_t blocks_compressed = 0;
  };
  void start_chunk(uint64_t counter);
  void push_cv(std::array<uint32_t, 8> cv, uint64_t total_chunks);

  ChunkState chunk_;
  std::vector<std::array<uint32_t, 8>> cv_stack_;  // chaining values of completed subtrees
};

// The default 32-byte digest.
std::array<uint8_t, 32> hash(std::span<const uint8_t> data);

// First 8 output bytes read as a little-endian u64 (LLVM's memprof id truncation).
uint64_t hash64(std::span<const uint8_t> data);

}  // namespace profkit::blake3
