// Indexed profile serialization (docs/formats/irpgo.md 3.1-3.8). Layout written:
//
//   Header     Magic Version Unused HashType HashOffset [MemProfOffset v8+]
//              [BinaryIdOffset v9+] [TemporalProfTracesOffset v10+] [VTableNamesOffset v12+]
//   Summary    (CS summary too when flag 57 is set)
//   Buckets    u16 ItemCount; { u64 KeyHash, KeyLen, DataLen; Key; Data }...   (unaligned)
//   pad to 8
//   Metadata   u64 NumBuckets, NumEntries, BucketOffset[NumBuckets]       <- HashOffset
//   MemProf (flag 62), binary ids (v9+), vtable names (v12+), temporal traces (flag 63)
//
// All integers little-endian. Header offsets are back-patched once known.
#include "format/instrprof/indexed_writer.h"

#include "format/instrprof/indexed_header.h"

#include <algorithm>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/bytes/hash.h"
#include "format/bytes/flat_map.h"
#include "format/bytes/zlib.h"
#include "format/instrprof/llvm_order.h"
#include "format/instrprof/summary.h"

namespace profkit::instrprof {

namespace {


void patch64(std::string& out, size_t at, uint64_t v) {
  store_le<uint64_t>(reinterpret_cast<uint8_t*>(out.data() + at), v);
}
void pad_to_8(std::string& out) {
  while (out.size() % 8 != 0) out.push_back('\0');
}

void put_summary(std::string& out, const Summary& s) {
  append_le<uint64_t>(out, 6);
  append_le<uint64_t>(out, s.detailed.size());
  append_le<uint64_t>(out, s.total_num_functions);
  append_le<uint64_t>(out, s.total_num_blocks);
  append_le<uint64_t>(out, s.max_function_count);
  append_le<uint64_t>(out, s.max_block_count);
  append_le<uint64_t>(out, s.max_internal_block_count);
  append_le<uint64_t>(out, s.total_block_count);
  for (const SummaryEntry& e : s.detailed) {
    append_le<uint64_t>(out, e.cutoff);
    append_le<uint64_t>(out, e.min_count);
    append_le<uint64_t>(out, e.num_counts);
  }
}
constexpr size_t kSummarySize = 16 + 8 * 6 + 24 * kDefaultCutoffs.size();

// ValueProfData (docs/formats/irpgo.md 1.12), little-endian: TotalSize, NumValueKinds, then per kind with
// sites: Kind, NumValueSites, u8 counts padded to 8, (value, count) pairs.
void put_value_data(std::string& out, const Record& r, size_t num_kinds) {
  const size_t start = out.size();
  append_le<uint32_t>(out, 0);  // TotalSize, patched below
  uint32_t kinds = 0;
  for (size_t k = 0; k < num_kinds; ++k) kinds += !r.value_sites[k].empty();
  append_le<uint32_t>(out, kinds);
  for (size_t k = 0; k < num_kinds; ++k) {
    const auto& sites = r.value_sites[k];
    if (sites.empty()) continue;
    append_le<uint32_t>(out, static_cast<uint32_t>(k));
    append_le<uint32_t>(out, static_cast<uint32_t>(sites.size()));
    for (const ValueSite& s : sites)
      out.push_back(static_cast<char>(std::min<size_t>(s.size(), 255)));
    while ((out.size() - start) % 8 != 0) out.push_back('\0');  // aligned within the blob
    for (const ValueSite& s : sites)
      for (size_t i = 0; i < std::min<size_t>(s.size(), 255); ++i) {
        append_le<uint64_t>(out, s[i].value);
        append_le<uint64_t>(out, s[i].count);
      }
  }
  store_le<uint32_t>(reinterpret_cast<uint8_t*>(out.data() + start),
                     static_cast<uint32_t>(out.size() - start));
}

}  // namespace

Expected<std::string> write_indexed_profile(const Profile& merged, uint32_t version,
                                            const IndexedWriteOptions& options) {
  if (version != 7 && version != 11 && version != 13)
    return make_error(ErrorCode::invalid_argument, kNoOffset,
                      "indexed profile version " + std::to_string(version) +
                          " cannot be written (choose 7, 11 or 13)");
  const bool llvm14 = version == 7;

  // Names in first-seen order, each with its records in first-seen order: a list threaded
  // through next_record (most names have one record; no allocation per name).
  constexpr uint32_t kNone = ~uint32_t{0};
  std::vector<std::string_view> names;
  std::vector<uint64_t> name_refs;  // MD5 of names[i]
  std::vector<uint32_t> first_record, last_record;
  std::vector<uint32_t> next_record(merged.records.size(), kNone);
  {
    const bool have_refs = options.name_refs.size() == merged.records.size();
    FlatMap64 at;
    at.reserve(merged.records.size());
    names.reserve(merged.records.size());
    name_refs.reserve(merged.records.size());
    for (uint32_t i = 0; i < merged.records.size(); ++i) {
      const std::string& n = merged.records[i].name;
      const uint64_t ref = have_refs ? options.name_refs[i] : md5_name_ref(n);
      const uint32_t name = at.insert(ref, static_cast<uint32_t>(names.size()));
      if (name == names.size()) {
        names.push_back(n);
        name_refs.push_back(ref);
        first_record.push_back(i);
        last_record.push_back(i);
      } else {
        next_record[last_record[name]] = i;
        last_record[name] = i;
      }
    }
  }
  auto encode = [&](uint32_t name) {
    if (options.keep_name && !options.keep_name(names[name])) return false;
    if (!options.sparse) return true;
    for (uint32_t i = first_record[name]; i != kNone; i = next_record[i]) {
      const Record& r = merged.records[i];
      if (std::any_of(r.counts.begin(), r.counts.end(), [](uint64_t c) { return c != 0; }))
        return true;
      if (!llvm14 &&
          std::any_of(r.bitmap.begin(), r.bitmap.end(), [](uint8_t b) { return b != 0; }))
        return true;
    }
    return false;
  };
  std::vector<uint32_t> key_order;
  if (llvm14) {
    for (uint32_t n : string_map_order(names, StringMapHash::djb))
      if (encode(n)) key_order.push_back(n);
  } else {
    for (uint32_t n = 0; n < names.size(); ++n)
      if (encode(n)) key_order.push_back(n);
    std::sort(key_order.begin(), key_order.end(),
              [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  }

  // Header.
  constexpr uint64_t kFlags22 = 0xFF80000000000000ull;  // bits 55..63
  uint64_t flags = merged.flags & (llvm14 ? (kFlagIR | kFlagCSIR | kFlagEntryFirst |
                                             kFlagByteCoverage | kFlagFunctionEntryOnly)
                                          : kFlags22);
  flags &= ~kFlagDebugCorrelate;
  const bool memprof_writer = !llvm14 && static_cast<bool>(options.memprof_section);
  const bool memprof = memprof_writer ||
                       (!llvm14 && (flags & kFlagMemProf) && !merged.memprof_section.empty());
  if (memprof)
    flags |= kFlagMemProf;
  else
    flags &= ~kFlagMemProf;
  const bool cs = (flags & kFlagCSIR) != 0;
  std::string out;
  IndexedHeader header;  // offsets filled in as the sections are placed, then rewritten
  header.version_word = version | flags;
  append_indexed_header(out, header);
  const size_t summary_at = out.size();
  out.append(kSummarySize * (cs ? 2 : 1), '\0');

  // Items, then bucket placement.
  const size_t num_kinds = llvm14 ? 2 : kNumValueKinds;
  SummaryBuilder summary(!llvm14), cs_summary(!llvm14);
  std::vector<uint64_t> key_hashes(key_order.size());
  for (size_t i = 0; i < key_order.size(); ++i) key_hashes[i] = name_refs[key_order[i]];
  const auto buckets = on_disk_hash_buckets(key_hashes);
  std::vector<uint64_t> bucket_offsets(buckets.size(), 0);
  {
    // Size first so the payload is written into one buffer without regrowing.
    size_t estimate = out.size() + 16 * buckets.size() + 4096;
    for (const Record& r : merged.records) {
      estimate += 64 + r.name.size() + 8 * (r.counts.size() + r.bitmap.size());
      for (const auto& sites : r.value_sites) {
        estimate += 16 + sites.size();
        for (const ValueSite& site : sites) estimate += 16 * site.size();
      }
    }
    for (const auto& id : merged.binary_ids) estimate += 16 + id.size();
    for (const TemporalTrace& t : merged.traces) estimate += 16 + 8 * t.function_refs.size();
    out.reserve(estimate + merged.memprof_section.size());
  }
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> by_hash;  // record index per entry of `hashes`
  const DenseMapHash dense_hash = llvm14 ? DenseMapHash::llvm14 : DenseMapHash::llvm22;
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b].empty()) continue;
    bucket_offsets[b] = out.size();
    append_le<uint16_t>(out, static_cast<uint16_t>(buckets[b].size()));
    for (uint32_t item : buckets[b]) {
      const uint32_t name = key_order[item];
      hashes.clear();
      by_hash.clear();
      for (uint32_t r = first_record[name]; r != kNone; r = next_record[r]) {
        const uint64_t h = merged.records[r].hash;
        if (std::find(hashes.begin(), hashes.end(), h) != hashes.end()) continue;
        hashes.push_back(h);
        by_hash.push_back(r);
      }
      append_le<uint64_t>(out, key_hashes[item]);
      append_le<uint64_t>(out, names[name].size());
      const size_t data_len_at = out.size();
      append_le<uint64_t>(out, 0);  // DataLen, patched below
      out.append(names[name]);
      const size_t data_at = out.size();
      const std::vector<uint64_t> ordered =
          hashes.size() == 1 ? hashes : dense_map_order(hashes, dense_hash);
      for (uint64_t h : ordered) {
        const size_t at = std::find(hashes.begin(), hashes.end(), h) - hashes.begin();
        const Record& r = merged.records[by_hash[at]];
        (r.is_context_sensitive() ? cs_summary : summary).add_record(r);
        append_le<uint64_t>(out, r.hash);
        append_le<uint64_t>(out, r.counts.size());
        const size_t counts_at = out.size();
        out.resize(counts_at + 8 * r.counts.size());
        auto* dst = reinterpret_cast<uint8_t*>(out.data() + counts_at);
        for (size_t i = 0; i < r.counts.size(); ++i) store_le<uint64_t>(dst + 8 * i, r.counts[i]);
        if (version >= 11) {
          append_le<uint64_t>(out, r.bitmap.size());
          for (uint8_t byte : r.bitmap) append_le<uint64_t>(out, byte);
        }
        put_value_data(out, r, num_kinds);
      }
      patch64(out, data_len_at, out.size() - data_at);
    }
  }
  pad_to_8(out);
  header.hash_offset = out.size();
  append_le<uint64_t>(out, buckets.size());
  append_le<uint64_t>(out, key_order.size());
  for (uint64_t o : bucket_offsets) append_le<uint64_t>(out, o);

  // Summaries.
  {
    std::string s;
    put_summary(s, summary.finish());
    if (cs) put_summary(s, cs_summary.finish());
    out.replace(summary_at, s.size(), s);
  }

  if (!llvm14) {
    if (memprof) {
      header.memprof_offset = out.size();
      // Not padded: a v4 section ending with a data-access profile can end at an odd
      // offset and llvm-profdata starts the binary-id section right there (C.1).
      out.append(memprof_writer ? options.memprof_section(header.memprof_offset)
                                : merged.memprof_section);
    }
    header.binary_id_offset = out.size();
    uint64_t ids_size = 0;
    for (const auto& id : merged.binary_ids) ids_size += 8 + id.size() + (8 - id.size() % 8) % 8;
    append_le<uint64_t>(out, ids_size);
    for (const auto& id : merged.binary_ids) {
      append_le<uint64_t>(out, id.size());
      out.append(reinterpret_cast<const char*>(id.data()), id.size());
      out.append((8 - id.size() % 8) % 8, '\0');  // relative: the section may start unaligned
    }
    if (version >= 12) {
      // The vtable names (only with --keep-vtable-symbols; else an empty blob): one names
      // blob as in raw files (ULEB128 sizes, names joined by \x01, zlib level 9), preceded by
      // its length and padded to 8 bytes.
      header.vtable_names_offset = out.size();
      std::string blob;
      if (!merged.vtable_names.empty()) {
        std::string joined;
        for (const std::string& n : merged.vtable_names) {
          if (!joined.empty()) joined.push_back('\x01');
          joined += n;
        }
        const std::string packed = zlib_compress(joined);
        append_uleb128(blob, joined.size());
        append_uleb128(blob, packed.size());
        blob += packed;
      }
      append_le<uint64_t>(out, blob.size());
      out += blob;
      out.append((8 - blob.size() % 8) % 8, '\0');
    }
    if (flags & kFlagTemporal) {
      header.temporal_traces_offset = out.size();
      append_le<uint64_t>(out, merged.traces.size());
      append_le<uint64_t>(out, merged.trace_stream_size);
      for (const TemporalTrace& t : merged.traces) {
        append_le<uint64_t>(out, t.weight);
        append_le<uint64_t>(out, t.function_refs.size());
        for (uint64_t ref : t.function_refs) append_le<uint64_t>(out, ref);
      }
    }
  }
  rewrite_indexed_header(out, header);
  return out;
}

}  // namespace profkit::instrprof
