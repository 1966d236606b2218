// BLAKE3 hash mode: 1024-byte chunks of 64-byte blocks, merged in a binary tree whose
// left subtrees are complete powers of two (the spec's "lazy merging" stack).
#include "format/blake3/blake3.h"

#include <cstring>

namespace profkit::blake3 {
namespace {

constexpr std::array<uint32_t, 8> kIv = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                         0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
constexpr uint8_t kPermutation[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
constexpr uint32_t kChunkStart = 1, kChunkEnd = 2, kParent = 4, kRoot = 8;
constexpr size_t kBlockLen = 64, kChunkLen = 1024;

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline void g(uint32_t* s, int a, int b, int c, int d, uint32_t x, uint32_t y) {
  s[a] = s[a] + s[b] + x;
  s[d] = rotr(s[d] ^ s[a], 16);
  s[c] = s[c] + s[d];
  s[b] = rotr(s[b] ^ s[c], 12);
  s[a] = s[a] + s[b] + y;
  s[d] = rotr(s[d] ^ s[a], 8);
  s[c] = s[c] + s[d];
  s[b] = rotr(s[b] ^ s[c], 7);
}

// The full 16-word compression output.
std::array<uint32_t, 16> compress(const std::array<uint32_t, 8>& cv, const uint32_t block[16],
                                  uint64_t counter, uint32_t block_len, uint32_t flags) {
  uint32_t s[16] = {cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
                    kIv[0], kIv[1], kIv[2], kIv[3], static_cast<uint32_t>(counter),
                    static_cast<uint32_t>(counter >> 32), block_len, flags};
  uint32_t m[16];
  std::memcpy(m, block, sizeof(m));
  for (int round = 0; round < 7; ++round) {
    g(s, 0, 4, 8, 12, m[0], m[1]);
    g(s, 1, 5, 9, 13, m[2], m[3]);
    g(s, 2, 6, 10, 14, m[4], m[5]);
    g(s, 3, 7, 11, 15, m[6], m[7]);
    g(s, 0, 5, 10, 15, m[8], m[9]);
    g(s, 1, 6, 11, 12, m[10], m[11]);
    g(s, 2, 7, 8, 13, m[12], m[13]);
    g(s, 3, 4, 9, 14, m[14], m[15]);
    if (round < 6) {
      uint32_t p[16];
      for (int i = 0; i < 16; ++i) p[i] = m[kPermutation[i]];
      std::memcpy(m, p, sizeof(m));
    }
  }
  std::array<uint32_t, 16> out;
  for (int i = 0; i < 8; ++i) {
    out[i] = s[i] ^ s[i + 8];
    out[i + 8] = s[i + 8] ^ cv[i];
  }
  return out;
}

void words_from_bytes(const uint8_t* bytes, uint32_t words[16]) {
  for (int i = 0; i < 16; ++i)
    words[i] = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 |
               uint32_t{bytes[4 * i + 2]} << 16 | uint32_t{bytes[4 * i + 3]} << 24;
}

std::array<uint32_t, 8> first8(const std::array<uint32_t, 16>& w) {
  std::array<uint32_t, 8> cv;
  for (int i = 0; i < 8; ++i) cv[i] = w[i];
  return cv;
}

// The inputs of one compression that is yet to happen (a chunk's last block or a parent).
struct Output {
  std::array<uint32_t, 8> cv;
  uint32_t block[16];
  uint64_t counter;
  uint32_t block_len;
  uint32_t flags;
  std::array<uint32_t, 8> chaining_value() const {
    return first8(compress(cv, block, counter, block_len, flags));
  }
};

Output parent_output(const std::array<uint32_t, 8>& left, const std::array<uint32_t, 8>& right) {
  Output o;
  o.cv = kIv;
  for (int i = 0; i < 8; ++i) {
    o.block[i] = left[i];
    o.block[i + 8] = right[i];
  }
  o.counter = 0;
  o.block_len = kBlockLen;
  o.flags = kParent;
  return o;
}

}  // namespace

Hasher::Hasher() { start_chunk(0); }

void Hasher::start_chunk(uint64_t counter) {
  chunk_ = ChunkState{};
  chunk_.cv = kIv;
  chunk_.counter = counter;
}

void Hasher::push_cv(std::array<uint32_t, 8> cv, uint64_t total_chunks) {
  // Merge completed subtrees: one merge per trailing zero bit of the chunk count.
  while ((total_chunks & 1) == 0) {
    cv = parent_output(cv_stack_.back(), cv).chaining_value();
    cv_stack_.pop_back();
    total_chunks >>= 1;
  }
  cv_stack_.push_back(cv);
}

void Hasher::update(std::span<const uint8_t> data) {
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t chunk_used = size_t{chunk_.blocks_compressed} * kBlockLen + chunk_.block_len;
    if (chunk_used == kChunkLen) {
      // The chunk is full and more input follows: finish it as a non-root chunk.
      Output o;
      o.cv = chunk_.cv;
      words_from_bytes(chunk_.block.data(), o.block);
      o.counter = chunk_.counter;
      o.block_len = chunk_.block_len;
      o.flags = kChunkEnd | (chunk_.blocks_compressed == 0 ? kChunkStart : 0);
      const uint64_t total = chunk_.counter + 1;
      push_cv(o.chaining_value(), total);
      start_chunk(total);
      continue;
    }
    if (chunk_.block_len == kBlockLen) {
      // The block is full and more input follows: compress it.
      uint32_t w[16];
      words_from_bytes(chunk_.block.data(), w);
      chunk_.cv = first8(compress(chunk_.cv, w, chunk_.counter, kBlockLen,
                                  chunk_.blocks_compressed == 0 ? kChunkStart : 0));
      ++chunk_.blocks_compressed;
      chunk_.block.fill(0);
      chunk_.block_len = 0;
    }
    const size_t take = std::min(kBlockLen - chunk_.block_len, data.size() - pos);
    std::memcpy(chunk_.block.data() + chunk_.block_len, data.data() + pos, take);
    chunk_.block_len = static_cast<uint8_t>(chunk_.block_len + take);
    pos += take;
  }
}

void Hasher::finalize(std::span<uint8_t> out) const {
  Output o;
  o.cv = chunk_.cv;
  words_from_bytes(chunk_.block.data(), o.block);
  o.counter = chunk_.counter;
  o.block_len = chunk_.block_len;
  o.flags = kChunkEnd | (chunk_.blocks_compressed == 0 ? kChunkStart : 0);
  for (size_t i = cv_stack_.size(); i-- > 0;) o = parent_output(cv_stack_[i], o.chaining_value());
  uint64_t output_counter = 0;
  size_t pos = 0;
  while (pos < out.size()) {
    const auto words = compress(o.cv, o.block, output_counter++, o.block_len, o.flags | kRoot);
    for (int i = 0; i < 16 && pos < out.size(); ++i)
      for (int b = 0; b < 4 && pos < out.size(); ++b)
        out[pos++] = static_cast<uint8_t>(words[i] >> (8 * b));
  }
}

std::array<uint8_t, 32> hash(std::span<const uint8_t> data) {
  Hasher h;
  h.update(data);
  std::array<uint8_t, 32> out;
  h.finalize(out);
  return out;
}

uint64_t hash64(std::span<const uint8_t> data) {
  Hasher h;
  h.update(data);
  uint8_t out[8];
  h.finalize(out);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | out[i];
  return v;
}

}  // namespace profkit::blake3
