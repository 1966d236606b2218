// Indexed MemProf section reader: hash tables walked bucket by bucket, radix call stacks
// decoded with bounded jumps, all counts bounded by the bytes that remain.
#include "format/memprof/indexed_reader.h"

#include "format/memprof/indexed_layout.h"

#include "format/instrprof/indexed_header.h"
#include "format/instrprof/profile.h"

#include <unordered_map>
#include <unordered_set>

#include "format/bytes/zlib.h"

namespace profkit::memprof {
namespace {

constexpr uint64_t kNumTags = kNumMibTags;
static_assert(kNumTags == 28);

Unexpected malformed(uint64_t offset, std::string message) {
  return make_error(ErrorCode::malformed, offset, std::move(message));
}

// A cursor positioned at absolute offset `at` of the file.
Expected<Cursor> at(Bytes file, uint64_t offset, std::string_view what) {
  if (offset > file.size())
    return malformed(offset, std::string(what) + " offset " + std::to_string(offset) +
                                 " is past the end of the file (" +
                                 std::to_string(file.size()) + " bytes)");
  return Cursor(file.subspan(offset), offset);
}

Expected<Frame> read_frame(Cursor& c) {
  Frame f;
  PROFKIT_TRY_ASSIGN(f.function, c.read_le<uint64_t>("frame function GUID"));
  PROFKIT_TRY_ASSIGN(f.line_offset, c.read_le<uint32_t>("frame line offset"));
  PROFKIT_TRY_ASSIGN(f.column, c.read_le<uint32_t>("frame column"));
  const uint64_t flag_at = c.offset();
  PROFKIT_TRY_ASSIGN(uint8_t inl, c.read_le<uint8_t>("frame inline flag"));
  if (inl > 1) return malformed(flag_at, "expected an inline flag of 0 or 1");
  f.is_inline = inl != 0;
  return f;
}

Expected<MemInfoBlock> read_mib(Cursor& c, const std::vector<uint64_t>& schema) {
  MemInfoBlock m;
  for (uint64_t tag : schema) {
    switch (tag) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge)                  \
  case Tag: {                                                      \
    PROFKIT_TRY_ASSIGN(m.Name, c.read_le<Type>("MIB field " #Name)); \
    break;                                                         \
  }
#include "format/memprof/mib_fields.def"
      default:
        return c.fail(ErrorCode::malformed, "schema tag 0 cannot be decoded");
    }
  }
  return m;
}

// Calls fn(item_cursor_over_key_and_data, hash, key_len, data_len) for every item of the
// on-disk hash table whose table part is at `table_offset`, in bucket order.
template <class Fn>
Expected<void> walk_table(Bytes file, uint64_t table_offset, bool has_key_len, Fn&& fn) {
  PROFKIT_TRY_ASSIGN(Cursor t, at(file, table_offset, "hash table"));
  PROFKIT_TRY_ASSIGN(uint64_t buckets, t.read_le<uint64_t>("bucket count"));
  PROFKIT_TRY_ASSIGN(uint64_t entries, t.read_le<uint64_t>("entry count"));
  if (buckets > t.remaining() / 8)
    return t.fail(ErrorCode::truncated, "bucket count " + std::to_string(buckets) +
                                            " needs more bytes than the file has");
  uint64_t seen = 0;
  for (uint64_t b = 0; b < buckets; ++b) {
    PROFKIT_TRY_ASSIGN(uint64_t off, t.read_le<uint64_t>("bucket offset"));
    if (off == 0) continue;
    PROFKIT_TRY_ASSIGN(Cursor c, at(file, off, "bucket"));
    PROFKIT_TRY_ASSIGN(uint16_t n, c.read_le<uint16_t>("bucket item count"));
    for (uint16_t i = 0; i < n; ++i) {
      PROFKIT_TRY_ASSIGN(uint64_t hash, c.read_le<uint64_t>("item hash"));
      uint64_t key_len = 8;
      if (has_key_len) {
        PROFKIT_TRY_ASSIGN(key_len, c.read_le<uint64_t>("item key length"));
      }
      PROFKIT_TRY_ASSIGN(uint64_t data_len, c.read_le<uint64_t>("item data length"));
      if (key_len != 8) return c.fail(ErrorCode::malformed, "expected a key length of 8");
      uint64_t total;
      if (add_overflows(key_len, data_len, &total) || total > c.remaining())
        return c.fail(ErrorCode::truncated, "item of " + std::to_string(data_len) +
                                                " data bytes runs past the end of the file");
      PROFKIT_TRY_ASSIGN(Cursor item, c.take(total, "item"));
      PROFKIT_TRY(fn(item, hash, data_len));
      if (++seen > entries)
        return item.fail(ErrorCode::malformed, "hash table holds more items than its entry count " +
                                                   std::to_string(entries));
    }
  }
  if (seen != entries)
    return make_error(ErrorCode::malformed, table_offset + 8,
                      "hash table entry count " + std::to_string(entries) + " but " +
                          std::to_string(seen) + " items found");
  return {};
}

struct Radix {
  std::vector<Frame> frames;   // linear frame ids
  Bytes array;                 // u32 elements
  uint64_t array_offset = 0;
};

// Frame-array indices of the stack at `linear_id`, leaf first.
Expected<std::vector<uint32_t>> radix_stack(const Radix& r, uint32_t linear_id, uint64_t where) {
  const uint64_t n_elems = r.array.size() / 4;
  auto elem = [&](uint64_t i) { return load_le<uint32_t>(r.array.data() + 4 * i); };
  if (linear_id >= n_elems)
    return malformed(where, "call stack id " + std::to_string(linear_id) +
                                " is outside the radix array");
  const uint64_t len = elem(linear_id);
  if (len > n_elems) return malformed(where, "radix call stack length exceeds the array");
  std::vector<uint32_t> cs;
  cs.reserve(len);
  uint64_t p = linear_id + 1;
  for (uint64_t i = 0; i < len; ++i) {
    if (p >= n_elems) return malformed(where, "radix call stack runs past the array");
    int32_t v = static_cast<int32_t>(elem(p));
    if (v < 0) {
      p += static_cast<uint64_t>(-static_cast<int64_t>(v));
      if (p >= n_elems) return malformed(where, "radix jump runs past the array");
      v = static_cast<int32_t>(elem(p));
      if (v < 0) return malformed(where, "radix jump lands on another jump");
    }
    if (static_cast<uint64_t>(v) >= r.frames.size())
      return malformed(where, "radix frame id " + std::to_string(v) + " outside the frame array");
    cs.push_back(static_cast<uint32_t>(v));
    ++p;
  }
  return cs;
}

}  // namespace

Expected<DataAccessProfile> read_data_access_payload(Bytes file, uint64_t offset) {
  DataAccessProfile out;
  PROFKIT_TRY_ASSIGN(Cursor c, at(file, offset, "data access profile"));
  PROFKIT_TRY_ASSIGN(uint64_t n_strings, c.read_le<uint64_t>("data access string count"));
  PROFKIT_TRY_ASSIGN(uint64_t n_cold, c.read_le<uint64_t>("known cold symbol count"));
  const uint64_t names_at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t names_len, c.read_le<uint64_t>("data access names length"));
  if (names_len > c.remaining())
    return c.fail(ErrorCode::truncated, "data access names of " + std::to_string(names_len) +
                                            " bytes run past the end of the file");
  PROFKIT_TRY_ASSIGN(Cursor names, c.take(names_len, "data access names"));
  // Blocks of ULEB uncompressed size, ULEB compressed size (0: stored), bytes; zero bytes
  // may pad between blocks (LLVM's readAndDecodeStrings).
  std::vector<std::string> strings;
  uint64_t total = 0;
  if (n_strings > UINT64_MAX - n_cold) return malformed(names_at, "string counts overflow");
  while (!names.at_end()) {
    PROFKIT_TRY_ASSIGN(uint64_t raw_size, names.read_uleb128("uncompressed names size"));
    PROFKIT_TRY_ASSIGN(uint64_t z_size, names.read_uleb128("compressed names size"));
    const uint64_t block_at = names.offset();
    std::string text;
    if (z_size == 0) {
      PROFKIT_TRY_ASSIGN(Bytes b, names.read_bytes(raw_size, "stored names"));
      text.assign(as_string_view(b));
    } else {
      PROFKIT_TRY_ASSIGN(Bytes b, names.read_bytes(z_size, "compressed names"));
      PROFKIT_TRY_ASSIGN(text, zlib_uncompress(b, raw_size, block_at));
    }
    for (size_t from = 0;;) {
      const size_t sep = text.find('\x01', from);
      if (++total > n_strings + n_cold)
        return malformed(block_at, "data access names hold more than the " +
                                       std::to_string(n_strings + n_cold) + " strings counted");
      strings.push_back(text.substr(from, sep == std::string::npos ? sep : sep - from));
      if (sep == std::string::npos) break;
      from = sep + 1;
    }
    while (!names.at_end() && names.data()[names.position()] == 0) PROFKIT_TRY(names.skip(1, "names padding"));
  }
  if (strings.size() != n_strings + n_cold)
    return malformed(names_at, "data access names hold " + std::to_string(strings.size()) +
                                   " strings, expected " + std::to_string(n_strings + n_cold));
  PROFKIT_TRY(c.skip(std::min<uint64_t>((8 - names_len % 8) % 8, c.remaining()),
                     "data access names padding"));
  {
    std::unordered_set<std::string_view> seen;
    for (uint64_t i = n_strings; i < strings.size(); ++i)
      if (seen.insert(strings[i]).second) out.known_cold_symbols.push_back(strings[i]);
  }
  PROFKIT_TRY_ASSIGN(uint64_t n_hashes, c.read_le<uint64_t>("known cold hash count"));
  if (n_hashes > c.remaining() / 8)
    return c.fail(ErrorCode::truncated, "known cold hash count " + std::to_string(n_hashes) +
                                            " needs more bytes than the file has");
  {
    std::unordered_set<uint64_t> seen;
    for (uint64_t i = 0; i < n_hashes; ++i) {
      PROFKIT_TRY_ASSIGN(uint64_t h, c.read_le<uint64_t>("known cold hash"));
      if (seen.insert(h).second) out.known_cold_hashes.push_back(h);
    }
  }
  PROFKIT_TRY_ASSIGN(uint64_t n_records, c.read_le<uint64_t>("data access record count"));
  if (n_records > c.remaining() / 25)
    return c.fail(ErrorCode::truncated, "data access record count " + std::to_string(n_records) +
                                            " needs more bytes than the file has");
  std::unordered_set<std::string_view> symbols;
  std::unordered_set<uint64_t> hashes;
  for (uint64_t i = 0; i < n_records; ++i) {
    const uint64_t record_at = c.offset();
    DataAccessRecord r;
    PROFKIT_TRY_ASSIGN(uint64_t id, c.read_le<uint64_t>("data access symbol"));
    const uint64_t flag_at = c.offset();
    PROFKIT_TRY_ASSIGN(uint8_t literal, c.read_le<uint8_t>("string literal flag"));
    if (literal > 1) return malformed(flag_at, "expected a string literal flag of 0 or 1");
    r.is_string_literal = literal != 0;
    if (r.is_string_literal) {
      r.hash = id;
      if (!hashes.insert(id).second)
        return malformed(record_at, "string literal hash " + std::to_string(id) + " recorded twice");
    } else {
      if (id >= n_strings)
        return malformed(record_at, "symbol index " + std::to_string(id) +
                                        " outside the " + std::to_string(n_strings) + " strings");
      r.symbol = strings[id];
      if (!symbols.insert(strings[id]).second)
        return malformed(record_at, "symbol '" + r.symbol + "' recorded twice");
    }
    PROFKIT_TRY_ASSIGN(r.access_count, c.read_le<uint64_t>("access count"));
    PROFKIT_TRY_ASSIGN(uint64_t n_locs, c.read_le<uint64_t>("location count"));
    if (n_locs > c.remaining() / 12)
      return c.fail(ErrorCode::truncated, "location count " + std::to_string(n_locs) +
                                              " needs more bytes than the file has");
    for (uint64_t k = 0; k < n_locs; ++k) {
      const uint64_t loc_at = c.offset();
      PROFKIT_TRY_ASSIGN(uint64_t file_index, c.read_le<uint64_t>("location file index"));
      if (file_index >= n_strings)
        return malformed(loc_at, "file name index " + std::to_string(file_index) +
                                     " outside the " + std::to_string(n_strings) + " strings");
      PROFKIT_TRY_ASSIGN(uint32_t line, c.read_le<uint32_t>("location line"));
      r.locations.push_back({strings[file_index], line});
    }
    out.records.push_back(std::move(r));
  }
  return out;
}

Expected<IndexedMemProf> read_memprof_section(Bytes file, uint64_t section_offset) {
  IndexedMemProf out;
  PROFKIT_TRY_ASSIGN(Cursor c, at(file, section_offset, "MemProf section"));
  PROFKIT_TRY_ASSIGN(out.version, c.read_le<uint64_t>("MemProf version"));
  const IndexedLayout* layout = indexed_layout(out.version);
  if (layout == nullptr)
    return make_error(ErrorCode::unsupported_version, section_offset,
                      "MemProf version " + std::to_string(out.version) +
                          " not supported; requires version between 2 and 4, inclusive");
  uint64_t offsets[kNumHeaderWords] = {};
  for (const HeaderWord word : layout->header()) {
    PROFKIT_TRY_ASSIGN(offsets[static_cast<size_t>(word)],
                       c.read_le<uint64_t>(header_word_name(word)));
  }
  const auto offset_of = [&](HeaderWord word) { return offsets[static_cast<size_t>(word)]; };
  const uint64_t record_table = offset_of(HeaderWord::record_table),
                 frame_table = offset_of(HeaderWord::frame_table),
                 stack_table = offset_of(HeaderWord::stack_table),
                 stack_payload = offset_of(HeaderWord::stack_payload),
                 record_payload = offset_of(HeaderWord::record_payload),
                 data_access = offset_of(HeaderWord::data_access);
  if (layout->summary) {
    PROFKIT_TRY_ASSIGN(uint32_t n_fields, c.read_le<uint32_t>("summary field count"));
    if (n_fields < 6) return c.fail(ErrorCode::malformed, "expected at least 6 summary fields");
    if (n_fields > c.remaining() / 8)
      return c.fail(ErrorCode::truncated, "summary fields run past the end of the file");
    uint64_t v[6];
    for (uint64_t& x : v) {
      PROFKIT_TRY_ASSIGN(x, c.read_le<uint64_t>("summary field"));
    }
    PROFKIT_TRY(c.skip(8 * (n_fields - 6), "extra summary fields"));
    out.summary = MemProfSummary{v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  PROFKIT_TRY_ASSIGN(uint64_t n_schema, c.read_le<uint64_t>("schema size"));
  if (n_schema > kNumTags) return c.fail(ErrorCode::malformed, "memprof schema invalid");
  for (uint64_t i = 0; i < n_schema; ++i) {
    PROFKIT_TRY_ASSIGN(uint64_t tag, c.read_le<uint64_t>("schema tag"));
    if (tag == 0 || tag >= kNumTags)
      return c.fail(ErrorCode::malformed, "memprof schema invalid: tag " + std::to_string(tag));
    out.schema.push_back(tag);
  }
  const uint64_t mib_bytes = schema_mib_size(out.schema.data(), out.schema.size());

  // Call stack resolution, per version.
  std::unordered_map<uint64_t, Frame> v2_frames;
  std::unordered_map<uint64_t, CallStack> v2_stacks;
  Radix radix;
  if (!layout->radix_stacks) {
    PROFKIT_TRY(walk_table(file, frame_table, true,
                           [&](Cursor& item, uint64_t, uint64_t data_len) -> Expected<void> {
                             PROFKIT_TRY_ASSIGN(uint64_t id, item.read_le<uint64_t>("frame id"));
                             if (data_len != 17)
                               return item.fail(ErrorCode::malformed, "expected a 17-byte frame");
                             PROFKIT_TRY_ASSIGN(Frame f, read_frame(item));
                             v2_frames.emplace(id, f);
                             return {};
                           }));
    PROFKIT_TRY(walk_table(
        file, stack_table, false, [&](Cursor& item, uint64_t, uint64_t data_len) -> Expected<void> {
          PROFKIT_TRY_ASSIGN(uint64_t id, item.read_le<uint64_t>("call stack id"));
          if (data_len % 8 != 0)
            return item.fail(ErrorCode::malformed, "call stack size is not a multiple of 8");
          CallStack cs;
          for (uint64_t i = 0; i < data_len / 8; ++i) {
            const uint64_t where = item.offset();
            PROFKIT_TRY_ASSIGN(uint64_t fid, item.read_le<uint64_t>("frame id"));
            auto it = v2_frames.find(fid);
            if (it == v2_frames.end()) return malformed(where, "frame id not in the frame table");
            cs.push_back(it->second);
          }
          v2_stacks.emplace(id, std::move(cs));
          return {};
        }));
  } else {
    const uint64_t frames_start = c.offset();
    if (stack_payload < frames_start || record_payload < stack_payload ||
        record_payload > file.size() || (stack_payload - frames_start) % 17 != 0 ||
        (record_payload - stack_payload) % 4 != 0)
      return malformed(section_offset + 8,
                       "frame / call stack payload offsets are inconsistent with the section");
    Cursor fc(file.subspan(frames_start, stack_payload - frames_start), frames_start);
    while (!fc.at_end()) {
      PROFKIT_TRY_ASSIGN(Frame f, read_frame(fc));
      radix.frames.push_back(f);
    }
    radix.array = file.subspan(stack_payload, record_payload - stack_payload);
    radix.array_offset = stack_payload;
  }

  // Stacks join the table in first-use order (records in table order, each record's
  // allocation sites then call sites), the order the writer would give them.
  StackTable& table = out.data.stacks;
  std::unordered_map<uint64_t, uint32_t> stack_index;  // stored id -> table index
  constexpr uint32_t kUnset = ~uint32_t{0};
  std::vector<uint32_t> frame_at(radix.frames.size(), kUnset);  // frame array -> table
  std::vector<uint32_t> indices;
  auto stack_of = [&](uint64_t id, uint64_t where) -> Expected<uint32_t> {
    if (auto it = stack_index.find(id); it != stack_index.end()) return it->second;
    uint32_t s;
    if (!layout->radix_stacks) {
      auto it = v2_stacks.find(id);
      if (it == v2_stacks.end())
        return malformed(where, "call stack id not in the call stack table");
      s = table.add_stack(it->second);
    } else {
      PROFKIT_TRY_ASSIGN(std::vector<uint32_t> in_array,
                         radix_stack(radix, static_cast<uint32_t>(id), where));
      indices.clear();
      for (uint32_t v : in_array) {
        if (frame_at[v] == kUnset) frame_at[v] = table.add_frame(radix.frames[v]);
        indices.push_back(frame_at[v]);
      }
      s = table.add_stack(indices);
    }
    stack_index.emplace(id, s);
    return s;
  };
  const uint64_t id_size = layout->stack_id_size();
  // A call stack id: a 64-bit hash (version 2) or a 32-bit radix array index (3 and 4).
  auto read_stack_id = [&](Cursor& item) -> Expected<uint64_t> {
    if (id_size == 8) return item.read_le<uint64_t>("call stack id");
    PROFKIT_TRY_ASSIGN(const uint32_t index, item.read_le<uint32_t>("call stack id"));
    return index;
  };

  PROFKIT_TRY(walk_table(
      file, record_table, true, [&](Cursor& item, uint64_t, uint64_t) -> Expected<void> {
        Record r;
        PROFKIT_TRY_ASSIGN(r.guid, item.read_le<uint64_t>("record GUID"));
        PROFKIT_TRY_ASSIGN(uint64_t n_alloc, item.read_le<uint64_t>("allocation site count"));
        if (n_alloc > item.remaining() / (id_size + mib_bytes))
          return item.fail(ErrorCode::truncated, "allocation site count " +
                                                     std::to_string(n_alloc) +
                                                     " exceeds the record size");
        for (uint64_t i = 0; i < n_alloc; ++i) {
          const uint64_t where = item.offset();
          PROFKIT_TRY_ASSIGN(const uint64_t id, read_stack_id(item));
          AllocSite a;
          PROFKIT_TRY_ASSIGN(a.stack, stack_of(id, where));
          PROFKIT_TRY_ASSIGN(a.mib, read_mib(item, out.schema));
          r.alloc_sites.push_back(std::move(a));
        }
        PROFKIT_TRY_ASSIGN(uint64_t n_calls, item.read_le<uint64_t>("call site count"));
        if (n_calls > item.remaining() / id_size)
          return item.fail(ErrorCode::truncated,
                           "call site count " + std::to_string(n_calls) + " exceeds the record size");
        for (uint64_t i = 0; i < n_calls; ++i) {
          const uint64_t where = item.offset();
          PROFKIT_TRY_ASSIGN(const uint64_t id, read_stack_id(item));
          CallSite cs;
          PROFKIT_TRY_ASSIGN(cs.stack, stack_of(id, where));
          if (layout->callee_guids) {
            PROFKIT_TRY_ASSIGN(uint64_t n_guids, item.read_le<uint64_t>("callee GUID count"));
            if (n_guids > item.remaining() / 8)
              return item.fail(ErrorCode::truncated, "callee GUID count exceeds the record size");
            for (uint64_t g = 0; g < n_guids; ++g) {
              PROFKIT_TRY_ASSIGN(uint64_t guid, item.read_le<uint64_t>("callee GUID"));
              cs.callee_guids.push_back(guid);
            }
          }
          r.call_sites.push_back(std::move(cs));
        }
        if (!item.at_end())
          return item.fail(ErrorCode::malformed, "record data longer than its contents");
        out.data.records.push_back(std::move(r));
        return {};
      }));
  if (data_access != 0) {
    if (data_access <= record_table)
      return malformed(section_offset + layout->word_offset(HeaderWord::data_access),
                       "data access profile offset " +
                                                std::to_string(data_access) +
                                                " is not after the record table");
    PROFKIT_TRY_ASSIGN(out.data.data_access, read_data_access_payload(file, data_access));
    out.has_data_access_profile = true;
  }
  return out;
}

bool indexed_has_memprof_content(Bytes file) {
  const auto u64 = [&](uint64_t at, uint64_t& v) {
    if (at > file.size() || file.size() - at < 8) return false;
    v = load_le<uint64_t>(file.data() + at);
    return true;
  };
  auto header = instrprof::read_indexed_header(file);
  if (!header || header->version() < 8 || (header->version_word & instrprof::kFlagMemProf) == 0)
    return false;
  const uint64_t section = header->memprof_offset;
  uint64_t memprof_version, record_table, data_access = 0, entries;
  if (!u64(section, memprof_version)) return false;
  const IndexedLayout* layout = indexed_layout(memprof_version);
  if (layout == nullptr) return false;
  if (!u64(section + layout->word_offset(HeaderWord::record_table), record_table)) return false;
  if (const uint64_t at = layout->word_offset(HeaderWord::data_access);
      at != 0 && !u64(section + at, data_access))
    return false;
  if (data_access != 0) return true;
  return u64(record_table + 8, entries) && entries != 0;
}

Expected<IndexedMemProf> read_indexed_memprof(Bytes file) {
  PROFKIT_TRY_ASSIGN(const instrprof::IndexedHeader header, instrprof::read_indexed_header(file));
  if (header.version() < 8 || (header.version_word & instrprof::kFlagMemProf) == 0)
    return make_error(ErrorCode::invalid_argument, 8,
                      "the indexed profile has no MemProf section (version < 8 or no MemProf flag)");
  return read_memprof_section(file, header.memprof_offset);
}

}  // namespace profkit::memprof
