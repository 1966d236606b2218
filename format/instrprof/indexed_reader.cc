// Indexed (.profdata) reader: header, summaries, hash-table payload in storage order and
// the trailing sections, each parsed through its own bounded cursor.
#include "format/instrprof/indexed_reader.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "format/bytes/hash.h"
#include "format/bytes/zlib.h"

namespace profkit::instrprof {
namespace {

constexpr uint64_t kLastValueKind = kNumValueKinds - 1;

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  bool started = false;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const unsigned d = (v >> shift) & 0xF;
    if (d != 0 || started || shift == 0) {
      s.push_back(digits[d]);
      started = true;
    }
  }
  return s;
}

Unexpected malformed_at(uint64_t offset, std::string message) {
  return make_error(ErrorCode::malformed, offset, std::move(message));
}

// Summary (docs/formats/irpgo.md 3.4): u64 NumSummaryFields, u64 NumCutoffEntries, fields, then entries.
Expected<Summary> read_summary(Cursor& c, std::string_view what) {
  const uint64_t start = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t num_fields, c.read_le<uint64_t>("NumSummaryFields"));
  PROFKIT_TRY_ASSIGN(uint64_t num_entries, c.read_le<uint64_t>("NumCutoffEntries"));
  if (num_fields > c.remaining() / 8)
    return malformed_at(start, std::string(what) + ": NumSummaryFields " +
                                   std::to_string(num_fields) + " exceeds the file");
  Summary s;
  uint64_t* const known[] = {&s.total_num_functions, &s.total_num_blocks,
                             &s.max_function_count,  &s.max_block_count,
                             &s.max_internal_block_count, &s.total_block_count};
  for (uint64_t i = 0; i < num_fields; ++i) {
    PROFKIT_TRY_ASSIGN(uint64_t v, c.read_le<uint64_t>("summary field"));
    if (i < std::size(known)) *known[i] = v;
  }
  if (num_entries > c.remaining() / 24)
    return malformed_at(start + 8, std::string(what) + ": NumCutoffEntries " +
                                       std::to_string(num_entries) + " exceeds the file");
  s.detailed.reserve(num_entries);
  uint64_t previous_cutoff = 0;
  for (uint64_t i = 0; i < num_entries; ++i) {
    const uint64_t at = c.offset();
    SummaryEntry e;
    PROFKIT_TRY_ASSIGN(e.cutoff, c.read_le<uint64_t>("summary cutoff"));
    PROFKIT_TRY_ASSIGN(e.min_count, c.read_le<uint64_t>("summary MinBlockCount"));
    PROFKIT_TRY_ASSIGN(e.num_counts, c.read_le<uint64_t>("summary NumBlocks"));
    if (e.cutoff > 1000000 || (i > 0 && e.cutoff < previous_cutoff))
      return malformed_at(at, std::string(what) +
                                  ": expected ascending cutoffs of at most 1000000, got " +
                                  std::to_string(e.cutoff));
    previous_cutoff = e.cutoff;
    s.detailed.push_back(e);
  }
  return s;
}

// ValueProfData (docs/formats/irpgo.md 1.12, little-endian in indexed files). `c` is positioned at the
// block; on success it has moved past TotalSize bytes.
Expected<void> read_value_prof_data(Cursor& c, Record& record) {
  const uint64_t start = c.offset();
  PROFKIT_TRY_ASSIGN(uint32_t total_size, c.read_le<uint32_t>("value data TotalSize"));
  PROFKIT_TRY_ASSIGN(uint32_t num_kinds, c.read_le<uint32_t>("value data NumValueKinds"));
  if (total_size < 8 || total_size % 8 != 0)
    return malformed_at(start, "expected value data TotalSize to be a multiple of 8 and >= 8, "
                               "got " + std::to_string(total_size));
  if (total_size - 8 > c.remaining())
    return malformed_at(start, "value data TotalSize " + std::to_string(total_size) +
                                   " runs past the record (" +
                                   std::to_string(c.remaining() + 8) + " bytes left)");
  if (num_kinds > kNumValueKinds)
    return malformed_at(start + 4, "expected at most " + std::to_string(kNumValueKinds) +
                                       " value kinds, got " + std::to_string(num_kinds));
  PROFKIT_TRY_ASSIGN(Cursor block, c.take(total_size - 8, "value data records"));
  for (uint32_t k = 0; k < num_kinds; ++k) {
    const uint64_t rec_at = block.offset();
    PROFKIT_TRY_ASSIGN(uint32_t kind, block.read_le<uint32_t>("value kind"));
    PROFKIT_TRY_ASSIGN(uint32_t num_sites, block.read_le<uint32_t>("NumValueSites"));
    if (kind > kLastValueKind)
      return malformed_at(rec_at, "expected a value kind <= " + std::to_string(kLastValueKind) +
                                      ", got " + std::to_string(kind));
    if (!record.value_sites[kind].empty())
      return malformed_at(rec_at, "value kind " + std::to_string(kind) + " appears twice");
    if (num_sites > block.remaining())
      return malformed_at(rec_at + 4, "NumValueSites " + std::to_string(num_sites) +
                                          " exceeds the value data block");
    PROFKIT_TRY_ASSIGN(Bytes site_counts, block.read_bytes(num_sites, "site count array"));
    const uint64_t pad = (8 - (8 + uint64_t{num_sites}) % 8) % 8;
    PROFKIT_TRY(block.skip(pad, "site count padding"));
    uint64_t total_values = 0;
    for (uint8_t n : site_counts) total_values += n;
    if (total_values > block.remaining() / 16)
      return malformed_at(block.offset(), "value data of kind " + std::to_string(kind) +
                                              " claims " + std::to_string(total_values) +
                                              " pairs, more than the block holds");
    auto& sites = record.value_sites[kind];
    sites.resize(num_sites);
    for (uint32_t s = 0; s < num_sites; ++s) {
      sites[s].reserve(site_counts[s]);
      for (uint8_t v = 0; v < site_counts[s]; ++v) {
        ValueData vd;
        PROFKIT_TRY_ASSIGN(vd.value, block.read_le<uint64_t>("value"));
        PROFKIT_TRY_ASSIGN(vd.count, block.read_le<uint64_t>("value count"));
        sites[s].push_back(vd);
      }
    }
  }
  // LLVM leaves unused trailing bytes of the block alone; so do we.
  return {};
}

// The records of one key (docs/formats/irpgo.md 3.6).
Expected<void> read_item_data(Cursor& data, uint64_t version, const std::string& name,
                              std::vector<Record>& out) {
  while (!data.at_end()) {
    const uint64_t rec_at = data.offset();
    Record r;
    r.name = name;
    PROFKIT_TRY_ASSIGN(r.hash, data.read_le<uint64_t>("FuncHash"));
    uint64_t num_counters = 0;
    if (version == 1) {
      num_counters = data.remaining() / 8;
    } else {
      PROFKIT_TRY_ASSIGN(num_counters, data.read_le<uint64_t>("NumCounters"));
      if (num_counters > data.remaining() / 8)
        return malformed_at(rec_at + 8, "NumCounters " + std::to_string(num_counters) +
                                            " exceeds the record data (" +
                                            std::to_string(data.remaining()) + " bytes left)");
    }
    PROFKIT_TRY_ASSIGN(Bytes counters, data.read_bytes(8 * num_counters, "counters"));
    r.counts.resize(num_counters);
    for (uint64_t i = 0; i < num_counters; ++i)
      r.counts[i] = load_le<uint64_t>(counters.data() + 8 * i);
    if (version >= 11) {
      const uint64_t at = data.offset();
      PROFKIT_TRY_ASSIGN(uint64_t num_bytes, data.read_le<uint64_t>("NumBitmapBytes"));
      if (num_bytes > data.remaining() / 8)
        return malformed_at(at, "NumBitmapBytes " + std::to_string(num_bytes) +
                                    " exceeds the record data");
      r.bitmap.resize(num_bytes);
      for (uint64_t i = 0; i < num_bytes; ++i) {
        PROFKIT_TRY_ASSIGN(uint64_t word, data.read_le<uint64_t>("bitmap byte"));
        r.bitmap[i] = static_cast<uint8_t>(word);
      }
    }
    if (version >= 3) PROFKIT_TRY(read_value_prof_data(data, r));
    out.push_back(std::move(r));
    if (version == 1) break;  // one record per key
  }
  return {};
}

// One blob of the names encoding (docs/formats/irpgo.md 1.11): several { ULEB uncompressed, ULEB compressed,
// payload } groups, optional zero bytes between them, names joined by 0x01.
Expected<void> read_name_blobs(Cursor c, std::vector<std::string>& names) {
  while (!c.at_end()) {
    if (c.data()[c.position()] == 0) {
      PROFKIT_TRY(c.skip(1, "padding"));
      continue;
    }
    PROFKIT_TRY_ASSIGN(uint64_t uncompressed, c.read_uleb128("uncompressed names length"));
    PROFKIT_TRY_ASSIGN(uint64_t compressed, c.read_uleb128("compressed names length"));
    std::string joined;
    if (compressed == 0) {
      PROFKIT_TRY_ASSIGN(Bytes raw, c.read_bytes(uncompressed, "names"));
      joined.assign(as_string_view(raw));
    } else {
      const uint64_t stream_at = c.offset();
      PROFKIT_TRY_ASSIGN(Bytes stream, c.read_bytes(compressed, "compressed names"));
      PROFKIT_TRY_ASSIGN(joined, zlib_uncompress(stream, uncompressed, stream_at));
    }
    size_t begin = 0;
    while (begin <= joined.size()) {
      size_t end = joined.find('\x01', begin);
      if (end == std::string::npos) end = joined.size();
      if (end > begin) names.emplace_back(joined.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  return {};
}

// A section that starts at `offset` and may extend to `end` (exclusive). Errors point at
// the header field (`field_at`) that holds the offset.
Expected<Cursor> section_at(Bytes data, uint64_t field_at, uint64_t offset, uint64_t end,
                            std::string_view what) {
  if (offset > data.size() || end > data.size() || offset > end)
    return malformed_at(field_at, std::string(what) + " offset " + hex(offset) +
                                      " lies outside the file (size " + hex(data.size()) +
                                      ", section end " + hex(end) + ")");
  return Cursor(data.subspan(offset, end - offset), offset);
}

// Hash-table payload (docs/formats/irpgo.md 3.5.1), iterated sequentially as llvm-profdata does, and checked
// against the bucket table a lookup would use. `c` covers the file up to HashOffset.
Expected<void> read_payload(Cursor c, const IndexedHeader& h, uint64_t version,
                            const std::vector<uint64_t>& bucket_offsets, uint64_t num_entries,
                            Profile& p) {
  // Payload, iterated sequentially: NumEntries items, bucket by bucket.
  const uint64_t payload_start = c.offset();
  if (num_entries > (h.hash_offset - payload_start) / 26)
    return malformed_at(h.hash_offset + 8, "NumEntries " + std::to_string(num_entries) +
                                               " exceeds the hash-table payload");
  p.records.reserve(num_entries);  // one record per key, nearly always
  uint64_t nonzero_buckets = 0;
  for (uint64_t off : bucket_offsets) {
    if (off == 0) continue;
    ++nonzero_buckets;
    if (off < payload_start || off >= h.hash_offset)
      return malformed_at(h.hash_offset + 16,
                          "bucket offset " + hex(off) + " lies outside the hash-table payload [" +
                              hex(payload_start) + ", " + hex(h.hash_offset) + ")");
  }
  const uint64_t mask = bucket_offsets.size() - 1;
  uint64_t items_left = num_entries;
  uint64_t buckets_seen = 0;
  while (items_left > 0) {
    const uint64_t bucket_at = c.offset();
    PROFKIT_TRY_ASSIGN(uint16_t item_count, c.read_le<uint16_t>("bucket item count"));
    if (item_count == 0 || item_count > items_left)
      return malformed_at(bucket_at, "expected a bucket item count in 1.." +
                                         std::to_string(items_left) + ", got " +
                                         std::to_string(item_count));
    ++buckets_seen;
    uint64_t bucket_index = 0;
    for (uint16_t i = 0; i < item_count; ++i) {
      const uint64_t item_at = c.offset();
      PROFKIT_TRY_ASSIGN(uint64_t key_hash, c.read_le<uint64_t>("KeyHash"));
      PROFKIT_TRY_ASSIGN(uint64_t key_len, c.read_le<uint64_t>("KeyLen"));
      PROFKIT_TRY_ASSIGN(uint64_t data_len, c.read_le<uint64_t>("DataLen"));
      if (key_len > c.remaining() || data_len > c.remaining() - key_len)
        return malformed_at(item_at + 8, "item key (" + std::to_string(key_len) +
                                             " bytes) and data (" + std::to_string(data_len) +
                                             " bytes) run past the hash-table payload");
      if (data_len % 8 != 0)
        return malformed_at(item_at + 16, "expected DataLen to be a multiple of 8, got " +
                                              std::to_string(data_len));
      PROFKIT_TRY_ASSIGN(Bytes key, c.read_bytes(key_len, "key"));
      std::string name(as_string_view(key));
      if (md5_name_ref(name) != key_hash)
        return malformed_at(item_at, "KeyHash " + hex(key_hash) + " is not the MD5 of key '" +
                                         name + "'");
      if (i == 0) {
        bucket_index = key_hash & mask;
        if (bucket_offsets[bucket_index] != bucket_at)
          return malformed_at(bucket_at, "bucket " + std::to_string(bucket_index) +
                                             " is at " + hex(bucket_at) +
                                             " but the bucket table says " +
                                             hex(bucket_offsets[bucket_index]));
      } else if ((key_hash & mask) != bucket_index) {
        return malformed_at(item_at, "item hashes to bucket " +
                                         std::to_string(key_hash & mask) + ", not bucket " +
                                         std::to_string(bucket_index) + " it is stored in");
      }
      PROFKIT_TRY_ASSIGN(Cursor blob, c.take(data_len, "item data"));
      if (data_len == 0)
        return malformed_at(item_at + 16, "expected at least one record for '" + name + "'");
      PROFKIT_TRY(read_item_data(blob, version, name, p.records));
    }
    items_left -= item_count;
  }
  if (buckets_seen != nonzero_buckets)
    return malformed_at(h.hash_offset + 16,
                        "the bucket table lists " + std::to_string(nonzero_buckets) +
                            " buckets but the payload holds " + std::to_string(buckets_seen));
  return {};
}

// The sections after the hash table (docs/formats/irpgo.md 3.8), each found through its header offset.
Expected<void> read_trailing_sections(Bytes data, const IndexedHeader& h, uint64_t version,
                                      uint64_t meta_end, Profile& p) {
  // MemProf (v8+, flag 62): opaque, up to the binary-id section (or the end of the file).
  if (version >= 8 && (p.flags & kFlagMemProf)) {
    if (h.memprof_offset == 0)
      return malformed_at(0x28, "the memprof flag is set but MemProfOffset is 0");
    if (h.memprof_offset < meta_end)
      return malformed_at(0x28, "MemProfOffset " + hex(h.memprof_offset) +
                                    " overlaps the hash table");
    const uint64_t end = version >= 9 ? h.binary_id_offset : data.size();
    PROFKIT_TRY_ASSIGN(Cursor mc, section_at(data, 0x28, h.memprof_offset, end, "MemProf section"));
    p.memprof_section.assign(as_string_view(mc.data()));
  }

  // Binary ids (v9+).
  if (version >= 9) {
    PROFKIT_TRY_ASSIGN(Cursor bc,
                       section_at(data, 0x30, h.binary_id_offset, data.size(),
                                   "binary-id section"));
    PROFKIT_TRY_ASSIGN(uint64_t section_size, bc.read_le<uint64_t>("binary-id section size"));
    PROFKIT_TRY_ASSIGN(Cursor ids, bc.take(section_size, "binary-id section"));
    while (!ids.at_end()) {
      const uint64_t at = ids.offset();
      PROFKIT_TRY_ASSIGN(uint64_t len, ids.read_le<uint64_t>("binary id length"));
      if (len > ids.remaining())
        return malformed_at(at, "binary id length " + std::to_string(len) +
                                    " runs past the binary-id section");
      PROFKIT_TRY_ASSIGN(Bytes id, ids.read_bytes(len, "binary id"));
      p.binary_ids.emplace_back(id.begin(), id.end());
      const uint64_t pad = (8 - len % 8) % 8;
      PROFKIT_TRY(ids.skip(std::min(pad, ids.remaining()), "binary id padding"));
    }
  }

  // VTable names (v12+).
  if (version >= 12) {
    PROFKIT_TRY_ASSIGN(Cursor vc, section_at(data, 0x40, h.vtable_names_offset, data.size(),
                                             "vtable-names section"));
    PROFKIT_TRY_ASSIGN(uint64_t len, vc.read_le<uint64_t>("vtable names length"));
    PROFKIT_TRY_ASSIGN(Cursor blob, vc.take(len, "vtable names"));
    PROFKIT_TRY(read_name_blobs(blob, p.vtable_names));
  }

  // Temporal traces (v10+, flag 63).
  if (version >= 10 && (p.flags & kFlagTemporal)) {
    if (h.temporal_traces_offset == 0)
      return malformed_at(0x38, "the temporal flag is set but TemporalProfTracesOffset is 0");
    PROFKIT_TRY_ASSIGN(Cursor tc, section_at(data, 0x38, h.temporal_traces_offset, data.size(),
                                             "temporal traces section"));
    const uint64_t at = tc.offset();
    PROFKIT_TRY_ASSIGN(uint64_t num_traces, tc.read_le<uint64_t>("NumTraces"));
    PROFKIT_TRY_ASSIGN(p.trace_stream_size, tc.read_le<uint64_t>("TraceStreamSize"));
    if (num_traces > tc.remaining() / 16)
      return malformed_at(at, "NumTraces " + std::to_string(num_traces) + " exceeds the file");
    p.traces.reserve(num_traces);
    for (uint64_t t = 0; t < num_traces; ++t) {
      TemporalTrace trace;
      PROFKIT_TRY_ASSIGN(trace.weight, tc.read_le<uint64_t>("trace weight"));
      const uint64_t n_at = tc.offset();
      PROFKIT_TRY_ASSIGN(uint64_t n, tc.read_le<uint64_t>("trace length"));
      if (n > tc.remaining() / 8)
        return malformed_at(n_at, "trace length " + std::to_string(n) + " exceeds the file");
      trace.function_refs.resize(n);
      for (auto& ref : trace.function_refs) {
        PROFKIT_TRY_ASSIGN(ref, tc.read_le<uint64_t>("trace function NameRef"));
      }
      p.traces.push_back(std::move(trace));
    }
  }
  return {};
}

}  // namespace

Expected<IndexedFile> read_indexed_file(Bytes data) {
  IndexedFile file;
  PROFKIT_TRY_ASSIGN(file.header, read_indexed_header(data));
  const IndexedHeader& h = file.header;
  const uint64_t version = h.version();
  Cursor c(data);

  Profile& p = file.profile;
  p.format = ProfileFormat::indexed;
  p.version_word = h.version_word;
  p.version = version;
  p.flags = h.version_word & kFlagMask22;

  // Hash-table metadata first: its offset bounds the payload.
  if (h.hash_offset < h.size_bytes || h.hash_offset > data.size())
    return malformed_at(0x20, "HashOffset " + hex(h.hash_offset) +
                                  " lies outside the file (header ends at " +
                                  hex(h.size_bytes) + ", size " + hex(data.size()) + ")");
  Cursor meta(data.subspan(h.hash_offset), h.hash_offset);
  PROFKIT_TRY_ASSIGN(file.num_buckets, meta.read_le<uint64_t>("NumBuckets"));
  PROFKIT_TRY_ASSIGN(file.num_entries, meta.read_le<uint64_t>("NumEntries"));
  if (file.num_buckets == 0 || (file.num_buckets & (file.num_buckets - 1)) != 0)
    return malformed_at(h.hash_offset, "expected NumBuckets to be a power of two, got " +
                                           std::to_string(file.num_buckets));
  if (file.num_buckets > meta.remaining() / 8)
    return malformed_at(h.hash_offset, "NumBuckets " + std::to_string(file.num_buckets) +
                                           " exceeds the file");
  std::vector<uint64_t> bucket_offsets(file.num_buckets);
  for (auto& off : bucket_offsets) {
    PROFKIT_TRY_ASSIGN(off, meta.read_le<uint64_t>("BucketOffset"));
  }
  const uint64_t meta_end = meta.offset();

  // Summaries (v4+).
  if (version >= 4) {
    Cursor sc(data.subspan(0, h.hash_offset));
    PROFKIT_TRY(sc.seek(h.size_bytes, "summary"));
    PROFKIT_TRY_ASSIGN(file.summary, read_summary(sc, "summary"));
    if (p.flags & kFlagCSIR) {
      PROFKIT_TRY_ASSIGN(file.cs_summary, read_summary(sc, "CS summary"));
    }
    c = sc;
  } else {
    c = Cursor(data.subspan(0, h.hash_offset));
    PROFKIT_TRY(c.seek(h.size_bytes, "hash-table payload"));
  }

  PROFKIT_TRY(read_payload(c, h, version, bucket_offsets, file.num_entries, p));
  PROFKIT_TRY(read_trailing_sections(data, h, version, meta_end, p));
  return file;
}

Expected<Profile> read_indexed_profile(Bytes data) {
  PROFKIT_TRY_ASSIGN(IndexedFile file, read_indexed_file(data));
  return std::move(file.profile);
}

}  // namespace profkit::instrprof
