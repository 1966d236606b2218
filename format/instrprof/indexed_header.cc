#include "format/instrprof/indexed_header.h"

#include <cstring>

namespace profkit::instrprof {

namespace {

// The words of `h` in file order, as many as its version has.
template <class Fn>
void for_each_word(const IndexedHeader& h, Fn&& fn) {
  const uint64_t version = h.version();
  fn(kIndexedMagic);
  fn(h.version_word);
  fn(uint64_t{0});  // Unused
  fn(h.hash_type);
#define PROFKIT_X(member, name, first) \
  if (version >= (first)) fn(h.member);
  PROFKIT_INDEXED_HEADER_OFFSETS(PROFKIT_X)
#undef PROFKIT_X
}

}  // namespace

uint64_t indexed_header_size(uint64_t version) {
  uint64_t size = 32;
#define PROFKIT_X(member, name, first) \
  if (version >= (first)) size += 8;
  PROFKIT_INDEXED_HEADER_OFFSETS(PROFKIT_X)
#undef PROFKIT_X
  return size;
}

bool has_indexed_magic(Bytes data) {
  return data.size() >= 8 && load_le<uint64_t>(data.data()) == kIndexedMagic;
}

Expected<IndexedHeader> read_indexed_header(Bytes data) {
  Cursor c(data);
  PROFKIT_TRY_ASSIGN(uint64_t magic, c.read_le<uint64_t>("indexed profile magic"));
  if (magic != kIndexedMagic)
    return make_error(ErrorCode::bad_magic, 0, "expected the indexed profile magic");
  IndexedHeader h;
  PROFKIT_TRY_ASSIGN(h.version_word, c.read_le<uint64_t>("version"));
  const uint64_t version = h.version();
  if (version < kIndexedMinVersion || version > kIndexedMaxVersion)
    return make_error(ErrorCode::unsupported_version, 8,
                      "expected indexed profile version 1..13, got " + std::to_string(version));
  PROFKIT_TRY(c.skip(8, "unused header field"));
  const uint64_t hash_type_at = c.offset();
  PROFKIT_TRY_ASSIGN(h.hash_type, c.read_le<uint64_t>("HashType"));
  if (h.hash_type != 0)
    return make_error(ErrorCode::malformed, hash_type_at,
                      "expected HashType 0 (MD5), got " + std::to_string(h.hash_type));
#define PROFKIT_X(member, name, first)                        \
  if (version >= (first)) {                                   \
    PROFKIT_TRY_ASSIGN(h.member, c.read_le<uint64_t>(name));  \
  }
  PROFKIT_INDEXED_HEADER_OFFSETS(PROFKIT_X)
#undef PROFKIT_X
  h.size_bytes = c.offset();
  return h;
}

void append_indexed_header(std::string& out, IndexedHeader& h) {
  const size_t start = out.size();
  for_each_word(h, [&](uint64_t w) { append_le<uint64_t>(out, w); });
  h.size_bytes = out.size() - start;
}

void rewrite_indexed_header(std::string& out, const IndexedHeader& h) {
  size_t at = 0;
  for_each_word(h, [&](uint64_t w) {
    store_le<uint64_t>(reinterpret_cast<uint8_t*>(out.data() + at), w);
    at += 8;
  });
}

}  // namespace profkit::instrprof
