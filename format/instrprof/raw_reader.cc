// Raw (.profraw) decoding, following docs/formats/irpgo.md section 1 (LLVM's
// InstrProfReader.cpp and compiler-rt's InstrProfilingWriter.c describe the same layout).
#include "format/instrprof/raw_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_set>

#include "format/bytes/hash.h"
#include "format/bytes/zlib.h"

namespace profkit::instrprof {

namespace {

uint64_t pad8(uint64_t n) { return (8 - n % 8) % 8; }

// Header layouts (docs/formats/irpgo.md 1.4 / 1.5): every field a u64 in writer byte order.
//   v8  (88 bytes): Magic Version BinaryIdsSize NumData PadBefore NumCounters PadAfter
//                   NamesSize CountersDelta NamesDelta ValueKindLast
//   v10 (128 bytes): Magic Version BinaryIdsSize NumData PadBefore NumCounters PadAfter
//                   NumBitmapBytes PadAfterBitmap NamesSize CountersDelta BitmapDelta
//                   NamesDelta NumVTables VNamesSize ValueKindLast
struct RawHeader {
  uint64_t binary_ids_size = 0;
  uint64_t num_data = 0;
  uint64_t padding_before_counters = 0;
  uint64_t num_counters = 0;
  uint64_t padding_after_counters = 0;
  uint64_t num_bitmap_bytes = 0;
  uint64_t padding_after_bitmap = 0;
  uint64_t names_size = 0;
  uint64_t counters_delta = 0;
  uint64_t bitmap_delta = 0;
  uint64_t names_delta = 0;
  uint64_t num_vtables = 0;
  uint64_t vnames_size = 0;
  uint64_t value_kind_last = 0;
};

Expected<RawHeader> read_header(Cursor& c, uint64_t version) {
  RawHeader h;
  PROFKIT_TRY_ASSIGN(h.binary_ids_size, c.read<uint64_t>("BinaryIdsSize"));
  PROFKIT_TRY_ASSIGN(h.num_data, c.read<uint64_t>("NumData"));
  PROFKIT_TRY_ASSIGN(h.padding_before_counters, c.read<uint64_t>("PaddingBytesBeforeCounters"));
  PROFKIT_TRY_ASSIGN(h.num_counters, c.read<uint64_t>("NumCounters"));
  PROFKIT_TRY_ASSIGN(h.padding_after_counters, c.read<uint64_t>("PaddingBytesAfterCounters"));
  if (version >= 10) {
    PROFKIT_TRY_ASSIGN(h.num_bitmap_bytes, c.read<uint64_t>("NumBitmapBytes"));
    PROFKIT_TRY_ASSIGN(h.padding_after_bitmap, c.read<uint64_t>("PaddingBytesAfterBitmapBytes"));
  }
  PROFKIT_TRY_ASSIGN(h.names_size, c.read<uint64_t>("NamesSize"));
  PROFKIT_TRY_ASSIGN(h.counters_delta, c.read<uint64_t>("CountersDelta"));
  if (version >= 10) {
    PROFKIT_TRY_ASSIGN(h.bitmap_delta, c.read<uint64_t>("BitmapDelta"));
  }
  PROFKIT_TRY_ASSIGN(h.names_delta, c.read<uint64_t>("NamesDelta"));
  if (version >= 10) {
    PROFKIT_TRY_ASSIGN(h.num_vtables, c.read<uint64_t>("NumVTables"));
    PROFKIT_TRY_ASSIGN(h.vnames_size, c.read<uint64_t>("VNamesSize"));
  }
  PROFKIT_TRY_ASSIGN(h.value_kind_last, c.read<uint64_t>("ValueKindLast"));
  return h;
}

// Calls fn(name) for every name of a names section (docs/formats/irpgo.md 1.11): blobs of
// ULEB UncompressedLen, ULEB CompressedLen (0 = stored), payload; names joined by 0x01.
template <class Fn>
Expected<void> for_each_name(Bytes section, uint64_t offset, std::string& scratch, Fn&& fn) {
  Cursor c(section, offset);
  while (!c.at_end()) {
    if (c.data()[c.position()] == 0) {  // padding between blobs
      PROFKIT_TRY(c.skip(1, "padding"));
      continue;
    }
    PROFKIT_TRY_ASSIGN(const uint64_t uncompressed, c.read_uleb128("name blob length"));
    PROFKIT_TRY_ASSIGN(const uint64_t compressed, c.read_uleb128("compressed name blob length"));
    std::string_view text;
    if (compressed == 0) {
      PROFKIT_TRY_ASSIGN(Bytes raw, c.read_bytes(uncompressed, "uncompressed names"));
      text = as_string_view(raw);
    } else {
      const uint64_t at = c.offset();
      PROFKIT_TRY_ASSIGN(Bytes z, c.read_bytes(compressed, "compressed names"));
      // zlib cannot expand more than ~1032:1; a larger claim is corrupt, not a reason to
      // allocate gigabytes.
      if (uncompressed / 1032 > compressed + 64)
        return make_error(ErrorCode::malformed, at,
                          "name blob claims " + std::to_string(uncompressed) +
                              " bytes from a " + std::to_string(compressed) +
                              "-byte zlib stream");
      PROFKIT_TRY_ASSIGN(scratch, zlib_uncompress(z, uncompressed, at));
      text = scratch;
    }
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\x01', start);
      if (end == std::string_view::npos) end = text.size();
      if (end > start) fn(text.substr(start, end - start));  // LLVM skips empty names
      start = end + 1;
    }
  }
  return {};
}

struct VTableRange {
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t name_hash = 0;
};

}  // namespace

bool has_raw_magic(Bytes data) {
  if (data.size() < 8) return false;
  const uint64_t m = load_le<uint64_t>(data.data());
  return m == kRawMagic64 || m == kRawMagic32 || byteswap_int(m) == kRawMagic64 ||
         byteswap_int(m) == kRawMagic32;
}

bool RawReader::lookup_name(const void* ctx, uint64_t name_ref, std::string_view* name) {
  const auto& table = *static_cast<const NameTable*>(ctx);
  const uint32_t index = table.by_ref.find(name_ref);
  if (index == FlatMap64::kMissing) return false;
  *name = table.views[index];
  return true;
}

Expected<void> RawReader::decode_names(Bytes section, uint64_t offset, NameTable& table) {
  if (!table.section.empty() && as_string_view(section) == table.section) return {};
  table.section.assign(as_string_view(section));
  table.storage.clear();
  table.spans.clear();
  table.by_ref.clear();
  table.refs.clear();
  std::string scratch;
  auto decoded = for_each_name(section, offset, scratch, [&](std::string_view name) {
    const uint32_t index = static_cast<uint32_t>(table.spans.size());
    table.spans.emplace_back(static_cast<uint32_t>(table.storage.size()),
                             static_cast<uint32_t>(name.size()));
    table.storage.append(name);
    table.refs.push_back(md5_name_ref(name));
    table.by_ref.insert(table.refs.back(), index);
  });
  if (!decoded) {
    table.section.clear();  // do not cache a half-decoded table
    return decoded;
  }
  table.views.clear();
  for (const auto& [off, size] : table.spans)
    table.views.push_back(std::string_view(table.storage).substr(off, size));
  table.fingerprint = xxh3_64(table.section) ^ table.section.size();
  return {};
}

Expected<uint64_t> RawReader::read_image(Cursor& file, uint64_t magic, RawSink& sink,
                                         RawFileInfo& info, std::vector<std::string>* names_out,
                                         bool first) {
  const uint64_t image_start = file.position();
  const bool is64 = magic == kRawMagic64;
  Cursor c(file.data().subspan(image_start), file.base_offset() + image_start, file.swapped());
  PROFKIT_TRY_ASSIGN(const uint64_t image_magic, c.read<uint64_t>("raw profile magic"));
  if (image_magic != magic)
    return make_error(ErrorCode::bad_magic, c.offset() - 8,
                      "profile image magic differs from the first image's");
  const uint64_t version_at = c.offset();
  PROFKIT_TRY_ASSIGN(const uint64_t version_word, c.read<uint64_t>("raw profile version"));
  const uint64_t version = version_word & 0xFFFFFFFFull;
  const uint64_t flags = version_word & kFlagMask22;
  if (version != 8 && version != 10)
    return make_error(ErrorCode::unsupported_version, version_at,
                      "raw profile version " + std::to_string(version) +
                          " (supported: 8 from LLVM 14, 10 from LLVM 22)");
  if (version == 8 && (flags & ~kFlagMask14) != 0)
    return make_error(ErrorCode::unsupported_version, version_at,
                      "raw profile version 8 with flag bits LLVM 14 does not define");
  if (!first && version != info.version)
    return make_error(ErrorCode::unsupported_version, version_at,
                      "profile image has raw version " + std::to_string(version) +
                          ", the first image has " + std::to_string(info.version));
  if (first) {
    info.version = version;
    info.version_word = version_word;
  }
  info.flags |= flags;

  PROFKIT_TRY_ASSIGN(const RawHeader h, read_header(c, version));
  const uint64_t header_size = c.position();
  const bool byte_coverage = (flags & kFlagByteCoverage) != 0;
  const bool temporal = (flags & kFlagTemporal) != 0;
  const uint64_t ptr_size = is64 ? 8 : 4;
  const uint64_t record_size = version == 8 ? (is64 ? 48 : 40) : (is64 ? 64 : 48);
  const uint64_t counter_size = byte_coverage ? 1 : 8;
  const uint64_t vtable_size = is64 ? 24 : 16;
  const uint64_t max_kind = version == 8 ? 1 : 2;

  if (version >= 10 && h.binary_ids_size % 8 != 0)
    return make_error(ErrorCode::malformed, file.base_offset() + image_start + 16,
                      "BinaryIdsSize " + std::to_string(h.binary_ids_size) +
                          " is not a multiple of 8");
  if (h.value_kind_last > 2)
    return make_error(ErrorCode::malformed, c.offset() - 8,
                      "ValueKindLast " + std::to_string(h.value_kind_last) + " is not 0..2");

  // Section offsets relative to the image start (docs/formats/irpgo.md 1.6), with overflow checks.
  uint64_t data_bytes = 0, counter_bytes = 0, vtable_bytes = 0;
  uint64_t data_off = 0, cnt_off = 0, bitmap_off = 0, names_off = 0, vtab_off = 0,
           vnames_off = 0, values_off = 0;
  bool overflow = mul_overflows(h.num_data, record_size, &data_bytes) ||
                  mul_overflows(h.num_counters, counter_size, &counter_bytes) ||
                  mul_overflows(h.num_vtables, vtable_size, &vtable_bytes) ||
                  add_overflows(header_size, h.binary_ids_size, &data_off) ||
                  add_overflows(data_off, data_bytes, &cnt_off) ||
                  add_overflows(cnt_off, h.padding_before_counters, &cnt_off) ||
                  add_overflows(cnt_off, counter_bytes, &bitmap_off) ||
                  add_overflows(bitmap_off, h.padding_after_counters, &bitmap_off) ||
                  add_overflows(bitmap_off, h.num_bitmap_bytes, &names_off) ||
                  add_overflows(names_off, h.padding_after_bitmap, &names_off) ||
                  add_overflows(names_off, h.names_size, &vtab_off) ||
                  add_overflows(vtab_off, pad8(h.names_size), &vtab_off) ||
                  add_overflows(vtab_off, vtable_bytes, &vnames_off) ||
                  add_overflows(vnames_off, pad8(vtable_bytes), &vnames_off) ||
                  add_overflows(vnames_off, h.vnames_size, &values_off) ||
                  add_overflows(values_off, pad8(h.vnames_size), &values_off);
  if (version == 8) values_off = vtab_off;  // no vtable sections: vtab_off = names end
  if (overflow || values_off > c.size())
    return make_error(ErrorCode::truncated, file.base_offset() + image_start,
                      "raw profile header describes " +
                          (overflow ? std::string("more than 2^64") : std::to_string(values_off)) +
                          " bytes of sections but the image has " + std::to_string(c.size()));
  const uint64_t base = file.base_offset() + image_start;
  const Bytes image = c.data();

  // A correlated image (docs/irpgo-merge.md, "Correlated raw profiles") has counters only:
  // its data records and names come from the binary. Without a correlation it is read as
  // it stands, with no records, as llvm-profdata reads it.
  if (correlation_ != nullptr && (h.num_data != 0 || h.names_size != 0 ||
                                  h.counters_delta != 0 || h.names_delta != 0))
    return make_error(ErrorCode::invalid_argument, base,
                      "raw profile has its own data records and names, so a binary to "
                      "correlate it with is not needed (--binary-file/--debug-info)");
  const uint64_t num_records =
      correlation_ != nullptr ? correlation_->functions.size() : h.num_data;

  // Binary ids (docs/formats/irpgo.md 1.14).
  {
    Cursor ids(image.subspan(header_size, h.binary_ids_size), base + header_size, c.swapped());
    while (!ids.at_end()) {
      PROFKIT_TRY_ASSIGN(const uint64_t len, ids.read<uint64_t>("binary id length"));
      if (len == 0)
        return make_error(ErrorCode::malformed, ids.offset() - 8, "binary id of length 0");
      PROFKIT_TRY_ASSIGN(Bytes id, ids.read_bytes(len, "binary id bytes"));
      info.binary_ids.emplace_back(id.begin(), id.end());
      PROFKIT_TRY(ids.skip(std::min<uint64_t>(pad8(len), ids.remaining()), "binary id padding"));
    }
  }

  // Names (docs/formats/irpgo.md 1.11).
  if (correlation_ != nullptr) {
    PROFKIT_TRY(decode_names(as_bytes(correlation_->names_blob), 0, names_));
  } else {
    PROFKIT_TRY(decode_names(image.subspan(names_off, h.names_size), base + names_off, names_));
  }
  if (names_out) {
    for (const auto& [off, size] : names_.spans) names_out->emplace_back(names_.storage, off, size);
  }
  sink.on_name_table(names_.fingerprint, names_.views, names_.refs);

  // VTables and their names (docs/formats/irpgo.md 1.13).
  std::vector<VTableRange> vtables;
  if (version >= 10 && h.num_vtables > 0 && correlation_ == nullptr) {
    Cursor vt(image.subspan(vtab_off, vtable_bytes), base + vtab_off, c.swapped());
    vtables.reserve(h.num_vtables);
    for (uint64_t i = 0; i < h.num_vtables; ++i) {
      VTableRange r;
      PROFKIT_TRY_ASSIGN(r.name_hash, vt.read<uint64_t>("VTableNameHash"));
      if (is64) {
        PROFKIT_TRY_ASSIGN(r.start, vt.read<uint64_t>("VTablePointer"));
      } else {
        PROFKIT_TRY_ASSIGN(r.start, vt.read<uint32_t>("VTablePointer"));
      }
      PROFKIT_TRY_ASSIGN(r.size, vt.read<uint32_t>("VTableSize"));
      if (is64) PROFKIT_TRY(vt.skip(4, "vtable record padding"));
      vtables.push_back(r);
    }
    std::stable_sort(vtables.begin(), vtables.end(),
                     [](const VTableRange& a, const VTableRange& b) { return a.start < b.start; });
  }
  if (version >= 10 && h.vnames_size > 0 && correlation_ == nullptr) {
    std::string scratch;
    PROFKIT_TRY(for_each_name(image.subspan(vnames_off, h.vnames_size), base + vnames_off,
                              scratch, [&](std::string_view n) {
                                info.vtable_names.emplace_back(n);
                              }));
  }

  // A data record's fields (docs/formats/irpgo.md 1.7), read at its fixed offsets.
  struct DataRecord {
    uint64_t name_ref, hash, counter_ptr, bitmap_ptr, function_ptr;
    uint32_t num_counters, num_bitmap_bytes;
    uint16_t num_sites[kNumValueKinds];
  };
  const bool swap = c.swapped();
  auto u64_at = [&](uint64_t off) {
    uint64_t v = load_le<uint64_t>(image.data() + off);
    return swap ? byteswap_int(v) : v;
  };
  auto u32_at = [&](uint64_t off) {
    uint32_t v = load_le<uint32_t>(image.data() + off);
    return swap ? byteswap_int(v) : v;
  };
  auto u16_at = [&](uint64_t off) {
    uint16_t v = load_le<uint16_t>(image.data() + off);
    return swap ? byteswap_int(v) : v;
  };
  auto ptr_at = [&](uint64_t off) { return is64 ? u64_at(off) : uint64_t{u32_at(off)}; };
  auto record_at = [&](uint64_t i) {
    DataRecord d{};
    if (correlation_ != nullptr) {
      const CorrelatedFunction& f = correlation_->functions[i];
      d.name_ref = f.name_ref;
      d.hash = f.hash;
      d.counter_ptr = f.counter_offset;
      d.function_ptr = f.function_ptr;
      d.num_counters = f.num_counters;
      return d;
    }
    const uint64_t o = data_off + i * record_size;
    d.name_ref = u64_at(o);
    d.hash = u64_at(o + 8);
    d.counter_ptr = ptr_at(o + 16);
    uint64_t p = o + 16 + ptr_size;
    if (version >= 10) {
      d.bitmap_ptr = ptr_at(p);
      p += ptr_size;
    }
    d.function_ptr = ptr_at(p);
    p += 2 * ptr_size;  // FunctionPointer, Values
    d.num_counters = u32_at(p);
    p += 4;
    const int kinds = version >= 10 ? 3 : 2;
    for (int k = 0; k < kinds; ++k) d.num_sites[k] = u16_at(p + 2 * k);
    if (version >= 10) d.num_bitmap_bytes = u32_at(p + 8);
    return d;
  };

  // Address -> NameRef for indirect-call targets (docs/formats/irpgo.md 1.12), built on the first record
  // that has value sites.
  bool address_map_built = false;
  const uint64_t function_ptr_at = 16 + ptr_size + (version >= 10 ? ptr_size : 0);
  auto build_address_map = [&] {
    address_map_built = true;
    // The runs of one program list the same data records, and loading it elsewhere (ASLR)
    // moves every function pointer by one bias: then the previous input's map serves,
    // shifted. Checking that is a sequential pass; rebuilding the map is 20 000 random
    // inserts for a large program.
    if (num_records > 0 && address_keys_.size() == num_records && correlation_ == nullptr) {
      bool same = true, have_bias = false;
      uint64_t bias = 0;
      auto check = [&](uint64_t ref, uint64_t fp, const std::pair<uint64_t, uint64_t>& known) {
        const auto& [known_ref, known_fp] = known;
        if (ref != known_ref || (fp == 0) != (known_fp == 0)) {
          same = false;
        } else if (fp != 0) {
          if (!have_bias) bias = fp - known_fp;
          have_bias = true;
          same = fp - known_fp == bias;
        }
      };
      if (is64 && !swap) {  // the common case, with plain loads
        const uint8_t* r = image.data() + data_off;
        for (uint64_t i = 0; i < num_records && same; ++i, r += record_size)
          check(load_le<uint64_t>(r), load_le<uint64_t>(r + function_ptr_at), address_keys_[i]);
      } else {
        for (uint64_t i = 0; i < num_records && same; ++i) {
          const uint64_t o = data_off + i * record_size;
          check(u64_at(o), ptr_at(o + function_ptr_at), address_keys_[i]);
        }
      }
      if (same) {
        address_bias_ = bias;
        return;
      }
    }
    address_bias_ = 0;
    address_to_ref_.clear();
    address_to_ref_.reserve(num_records);
    address_refs_.clear();
    address_keys_.clear();
    address_keys_.reserve(num_records);
    for (uint64_t i = 0; i < num_records; ++i) {
      const DataRecord d = record_at(i);
      address_keys_.emplace_back(d.name_ref, d.function_ptr);
      if (d.function_ptr == 0) continue;
      const uint32_t at = address_to_ref_.insert(d.function_ptr,
                                                 static_cast<uint32_t>(address_refs_.size()));
      if (at == address_refs_.size()) {
        address_refs_.push_back(d.name_ref);
      } else {
        address_refs_[at] = std::min(address_refs_[at], d.name_ref);  // LLVM: sorted, first
      }
    }
  };
  auto remap = [&](uint32_t kind, uint64_t value) -> uint64_t {
    if (kind == 0) {
      const uint32_t at = address_to_ref_.find(value - address_bias_);
      return at == FlatMap64::kMissing ? 0 : address_refs_[at];
    }
    if (kind == 2) {
      auto it = std::upper_bound(vtables.begin(), vtables.end(), value,
                                 [](uint64_t v, const VTableRange& r) { return v < r.start; });
      if (it == vtables.begin()) return 0;
      --it;
      return value - it->start < it->size ? it->name_hash : 0;
    }
    return value;
  };

  // Data record i as the sink sees it, before its counters and values.
  auto function_of = [&](const DataRecord& d, uint64_t i) {
    RawFunction fn;
    fn.name_ref = d.name_ref;
    fn.hash = d.hash;
    fn.name_fn = &RawReader::lookup_name;
    fn.name_ctx = &names_;
    fn.ordinal = static_cast<uint32_t>(i);
    return fn;
  };

  // Value data (docs/formats/irpgo.md 1.12) of a record with value sites: each such record
  // has its block in the value section, in record order.
  Cursor values(image.subspan(values_off), base + values_off, swap);
  // The common block (native byte order, every field in range) decoded with plain loads and
  // one bounds check per field; false leaves `values` where it was, for the checked decoding
  // below to find and name the fault. Same results as that decoding when it returns true.
  auto read_values_fast = [&](RawFunction& fn) {
    if (swap || values.remaining() < 8) return false;
    const uint8_t* p = values.data().data() + values.position();
    const uint32_t total = load_le<uint32_t>(p);
    const uint32_t num_kinds = load_le<uint32_t>(p + 4);
    if (total % 8 != 0 || total < 8 || total > values.remaining() || num_kinds > max_kind + 1)
      return false;
    const uint8_t* q = p + 8;
    const uint8_t* const end = p + total;
    size_t kind_sites_begin[kNumValueKinds] = {};
    size_t kind_sites_end[kNumValueKinds] = {};
    int64_t last_kind = -1;
    for (uint32_t k = 0; k < num_kinds; ++k) {
      if (end - q < 8) return false;
      const uint32_t kind = load_le<uint32_t>(q);
      const uint32_t nsites = load_le<uint32_t>(q + 4);
      if (kind > max_kind || static_cast<int64_t>(kind) <= last_kind) return false;
      last_kind = kind;
      const uint64_t header = 8 + uint64_t{nsites} + pad8(8 + uint64_t{nsites});
      if (static_cast<uint64_t>(end - q) < header) return false;
      const uint8_t* counts = q + 8;
      uint64_t pairs = 0;
      for (uint32_t i = 0; i < nsites; ++i) pairs += counts[i];
      q += header;
      if (pairs * 16 > static_cast<uint64_t>(end - q)) return false;
      kind_sites_begin[kind] = sites_.size();
      if (nsites != 0) {
        sites_.resize(sites_.size() + nsites);
        std::memcpy(sites_.data() + kind_sites_begin[kind], counts, nsites);
      }
      kind_sites_end[kind] = sites_.size();
      const size_t first_value = values_.size();
      values_.resize(first_value + pairs);
      ValueData* out = values_.data() + first_value;
      for (uint64_t i = 0; i < pairs; ++i, q += 16)
        out[i] = ValueData{remap(kind, load_le<uint64_t>(q)), load_le<uint64_t>(q + 8)};
    }
    (void)values.skip(total, "value data block");  // checked above
    for (size_t k = 0; k < kNumValueKinds; ++k)
      fn.site_sizes[k] = std::span<const uint8_t>(sites_.data() + kind_sites_begin[k],
                                                  kind_sites_end[k] - kind_sites_begin[k]);
    fn.values = values_;
    return true;
  };
  auto read_values = [&](RawFunction& fn) -> Expected<void> {
    sites_.clear();
    values_.clear();
    if (!address_map_built) build_address_map();
    if (read_values_fast(fn)) return {};
    sites_.clear();
    values_.clear();
    const uint64_t block_at = values.offset();
    PROFKIT_TRY_ASSIGN(const uint32_t total, values.read<uint32_t>("value data TotalSize"));
    PROFKIT_TRY_ASSIGN(const uint32_t num_kinds, values.read<uint32_t>("NumValueKinds"));
    if (total % 8 != 0 || total < 8)
      return make_error(ErrorCode::malformed, block_at,
                        "value data TotalSize " + std::to_string(total) +
                            " is not a positive multiple of 8");
    if (num_kinds > max_kind + 1)
      return make_error(ErrorCode::malformed, block_at + 4,
                        "NumValueKinds " + std::to_string(num_kinds) + " is more than " +
                            std::to_string(max_kind + 1));
    PROFKIT_TRY_ASSIGN(Cursor block, values.take(total - 8, "value data block"));
    size_t kind_sites_begin[kNumValueKinds + 1] = {};
    size_t kind_sites_end[kNumValueKinds] = {};
    int64_t last_kind = -1;
    for (uint32_t k = 0; k < num_kinds; ++k) {
      const uint64_t rec_at = block.offset();
      PROFKIT_TRY_ASSIGN(const uint32_t kind, block.read<uint32_t>("value kind"));
      PROFKIT_TRY_ASSIGN(const uint32_t nsites, block.read<uint32_t>("NumValueSites"));
      if (kind > max_kind || static_cast<int64_t>(kind) <= last_kind)
        return make_error(ErrorCode::malformed, rec_at,
                          "value kind " + std::to_string(kind) +
                              " is invalid or out of ascending order");
      last_kind = kind;
      PROFKIT_TRY_ASSIGN(Bytes site_counts, block.read_bytes(nsites, "value site counts"));
      PROFKIT_TRY(block.skip(pad8(8 + uint64_t{nsites}), "value site count padding"));
      uint64_t pairs = 0;
      for (uint8_t s : site_counts) pairs += s;
      if (pairs * 16 > block.remaining()) return block.truncated("value data pairs");
      kind_sites_begin[kind] = sites_.size();
      sites_.insert(sites_.end(), site_counts.begin(), site_counts.end());
      kind_sites_end[kind] = sites_.size();
      PROFKIT_TRY_ASSIGN(Bytes pair_bytes, block.read_bytes(pairs * 16, "value data pairs"));
      const size_t first_value = values_.size();
      values_.resize(first_value + pairs);
      ValueData* out = values_.data() + first_value;
      for (uint64_t p = 0; p < pairs; ++p) {
        uint64_t value = load_le<uint64_t>(pair_bytes.data() + 16 * p);
        uint64_t count = load_le<uint64_t>(pair_bytes.data() + 16 * p + 8);
        if (swap) value = byteswap_int(value), count = byteswap_int(count);
        out[p] = ValueData{remap(kind, value), count};
      }
    }
    for (size_t k = 0; k < kNumValueKinds; ++k)
      fn.site_sizes[k] = std::span<const uint8_t>(sites_.data() + kind_sites_begin[k],
                                                  kind_sites_end[k] - kind_sites_begin[k]);
    fn.values = values_;
    return {};
  };

  // Images of one program's runs share their data records: the layout check below lets a
  // sink add such an image's counters as one array (docs/irpgo-merge.md, "Bulk images").
  RawImage shape;
  shape.num_data = num_records;
  const uint64_t moved_at = function_ptr_at;  // FunctionPointer, then Values: 16 bytes ASLR moves
  if (is64 && !swap && !byte_coverage && !temporal && correlation_ == nullptr &&
      num_records > 0 && num_records <= std::numeric_limits<uint32_t>::max()) {
    // BitmapDelta is an address difference that ASLR moves when there is no bitmap.
    const uint64_t words[] = {version_word,
                              h.num_data,
                              h.num_counters,
                              h.num_bitmap_bytes,
                              h.counters_delta,
                              h.num_bitmap_bytes != 0 ? h.bitmap_delta : 0,
                              names_.fingerprint,
                              h.value_kind_last};
    const uint8_t* recs = image.data() + data_off;
    bool same = layout_id_ != 0 && layout_records_.size() == data_bytes &&
                std::equal(std::begin(words), std::end(words), layout_words_.begin(),
                           layout_words_.end());
    if (same) {
      // Word by word, the two moved words masked out (they are zero in the copy).
      auto differs = [&]<uint64_t kWords>() {
        uint64_t keep[kWords];
        for (uint64_t w = 0; w < kWords; ++w)
          keep[w] = w * 8 == moved_at || w * 8 == moved_at + 8 ? 0 : ~uint64_t{0};
        uint64_t diff = 0;
        const uint8_t* a = recs;
        const uint8_t* b = layout_records_.data();
        for (uint64_t r = 0; r < num_records; ++r, a += kWords * 8, b += kWords * 8)
          for (uint64_t w = 0; w < kWords; ++w)
            diff |= (load_le<uint64_t>(a + 8 * w) & keep[w]) ^ load_le<uint64_t>(b + 8 * w);
        return diff != 0;
      };
      same = record_size == 64 ? !differs.template operator()<8>()
                               : !differs.template operator()<6>();
    }
    if (!same) {
      static std::atomic<uint64_t> next_layout{1};
      layout_id_ = next_layout.fetch_add(1, std::memory_order_relaxed);
      layout_checked_ = false;
      layout_words_.assign(std::begin(words), std::end(words));
      layout_records_.assign(recs, recs + data_bytes);
      layout_sited_.clear();
      for (uint64_t i = 0; i < num_records; ++i) {
        std::memset(layout_records_.data() + i * record_size + moved_at, 0, 16);
        const DataRecord d = record_at(i);
        if (d.num_sites[0] | d.num_sites[1] | d.num_sites[2])
          layout_sited_.push_back(static_cast<uint32_t>(i));
      }
    }
    shape.layout = layout_id_;
    shape.checked = layout_checked_;
    shape.counters = image.subspan(cnt_off, counter_bytes);
    shape.bitmap = image.subspan(bitmap_off, h.num_bitmap_bytes);
  }

  if (sink.on_image(shape)) {
    // Bulk: the records were checked when this layout was first read whole.
    const size_t num_sited = layout_sited_.size();
    for (size_t at = 0; at < num_sited; ++at) {
      const uint32_t i = layout_sited_[at];
      // A bulk image is 64-bit, native and uncorrelated: its NameRef and hash are plain loads.
      DataRecord d{};
      const uint8_t* r = image.data() + data_off + uint64_t{i} * record_size;
      d.name_ref = load_le<uint64_t>(r);
      d.hash = load_le<uint64_t>(r + 8);
      RawFunction fn = function_of(d, i);
      fn.values_only = true;
      for (size_t a = 0; a < 3; ++a) {
        const size_t next = at + (size_t{3} << a);
        if (next < num_sited) fn.ahead[a] = layout_sited_[next];
      }
      PROFKIT_TRY(read_values(fn));
      PROFKIT_TRY(sink.on_function(fn));
    }
    sink.on_bulk_image(shape);
    return image_start + values_off + values.position();
  }

  const uint64_t counters_end = counter_bytes;  // relative to cnt_off
  for (uint64_t i = 0; i < num_records; ++i) {
    const DataRecord d = record_at(i);
    // A correlated record has no place in the file: errors name the image.
    const uint64_t rec_off = correlation_ != nullptr ? base : base + data_off + i * record_size;
    RawFunction fn = function_of(d, i);

    // Counters (docs/formats/irpgo.md 1.8 / 1.9).
    // CounterPtr minus CountersDelta is the offset in the counter section; the delta shrinks
    // by one record per record. A correlated record holds the offset itself.
    const uint64_t delta = correlation_ != nullptr ? 0 : h.counters_delta - i * record_size;
    const int64_t cnt_rel = static_cast<int64_t>(d.counter_ptr - delta);
    if (d.num_counters == 0)
      return make_error(ErrorCode::malformed, rec_off, "data record has 0 counters");
    if (cnt_rel < 0 || static_cast<uint64_t>(cnt_rel) >= counters_end ||
        static_cast<uint64_t>(cnt_rel) % counter_size != 0 ||
        uint64_t{d.num_counters} * counter_size > counters_end - static_cast<uint64_t>(cnt_rel))
      return make_error(ErrorCode::malformed, rec_off,
                        "counter pointer gives offset " + std::to_string(cnt_rel) + " for " +
                            std::to_string(d.num_counters) +
                            " counters, outside the counter section of " +
                            std::to_string(counters_end) + " bytes");
    const uint8_t* cp = image.data() + cnt_off + static_cast<uint64_t>(cnt_rel);
    uint32_t n = d.num_counters;
    if (temporal) {
      const uint64_t ts = byte_coverage ? cp[0] : u64_at(cp - image.data());
      if (ts != 0 && ts != std::numeric_limits<uint64_t>::max())
        timestamps_.emplace_back(ts, d.name_ref);
      cp += counter_size;
      --n;
    }
    fn.counter_at = static_cast<uint64_t>(cp - (image.data() + cnt_off)) / counter_size;
    if (!byte_coverage && !swap && reinterpret_cast<uintptr_t>(cp) % alignof(uint64_t) == 0) {
      // The file's own counters, in place (the common case: no copy per record).
      fn.counts = std::span<const uint64_t>(reinterpret_cast<const uint64_t*>(cp), n);
    } else {
      counts_.resize(n);
      if (byte_coverage) {
        for (uint32_t k = 0; k < n; ++k) counts_[k] = cp[k] == 0 ? 1 : 0;
      } else if (!swap) {
        for (uint32_t k = 0; k < n; ++k) counts_[k] = load_le<uint64_t>(cp + 8 * k);
      } else {
        for (uint32_t k = 0; k < n; ++k) counts_[k] = byteswap_int(load_le<uint64_t>(cp + 8 * k));
      }
      fn.counts = std::span<const uint64_t>(counts_.data(), n);
    }

    // Bitmap (docs/formats/irpgo.md 1.10).
    if (d.num_bitmap_bytes > 0) {
      const int64_t bm_rel = static_cast<int64_t>(d.bitmap_ptr - (h.bitmap_delta - i * record_size));
      if (bm_rel < 0 || static_cast<uint64_t>(bm_rel) >= h.num_bitmap_bytes ||
          d.num_bitmap_bytes > h.num_bitmap_bytes - static_cast<uint64_t>(bm_rel))
        return make_error(ErrorCode::malformed, rec_off,
                          "bitmap pointer gives offset " + std::to_string(bm_rel) +
                              ", outside the bitmap section");
      const uint8_t* bp = image.data() + bitmap_off + static_cast<uint64_t>(bm_rel);
      fn.bitmap_at = static_cast<uint64_t>(bm_rel);
      fn.bitmap = std::span<const uint8_t>(bp, d.num_bitmap_bytes);
    }

    if (d.num_sites[0] | d.num_sites[1] | d.num_sites[2]) PROFKIT_TRY(read_values(fn));
    PROFKIT_TRY(sink.on_function(fn));
  }
  layout_checked_ = shape.layout != 0;
  return image_start + values_off + values.position();
}

Expected<RawFileInfo> RawReader::read(Bytes data, RawSink& sink,
                                      std::vector<std::string>* names_out) {
  RawFileInfo info;
  timestamps_.clear();
  if (data.size() < 8)
    return make_error(ErrorCode::truncated, 0, "expected an 8-byte raw profile magic");
  const uint64_t m = load_le<uint64_t>(data.data());
  bool swap = false;
  uint64_t magic = 0;
  if (m == kRawMagic64 || m == kRawMagic32) {
    magic = m;
  } else if (byteswap_int(m) == kRawMagic64 || byteswap_int(m) == kRawMagic32) {
    magic = byteswap_int(m);
    swap = true;
  } else {
    return make_error(ErrorCode::bad_magic, 0, "expected a raw profile magic (\\xFFlprofr\\x81)");
  }
  if constexpr (std::endian::native == std::endian::big) swap = !swap;
  Cursor file(data, 0, swap);
  bool first = true;
  for (;;) {
    PROFKIT_TRY_ASSIGN(const uint64_t end, read_image(file, magic, sink, info, names_out, first));
    first = false;
    PROFKIT_TRY(file.seek(end, "image end"));
    while (!file.at_end() && data[file.position()] == 0) PROFKIT_TRY(file.skip(1, "padding"));
    if (file.at_end()) break;
    if (file.position() % 8 != 0)
      return file.fail(ErrorCode::malformed,
                       "next profile image does not start on an 8-byte boundary "
                       "(insufficient padding)");
  }
  if (!timestamps_.empty()) {
    std::sort(timestamps_.begin(), timestamps_.end());
    TemporalTrace trace;
    trace.weight = 1;
    trace.function_refs.reserve(timestamps_.size());
    for (const auto& [ts, ref] : timestamps_) trace.function_refs.push_back(ref);
    info.traces.push_back(std::move(trace));
  }
  return info;
}

void assign_record(const RawFunction& f, std::string_view name, Record& r) {
  r.name.assign(name);
  r.hash = f.hash;
  r.counts.assign(f.counts.begin(), f.counts.end());
  r.bitmap.assign(f.bitmap.begin(), f.bitmap.end());
  size_t at = 0;
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    auto& sites = r.value_sites[k];
    sites.resize(f.site_sizes[k].size());
    for (size_t s = 0; s < sites.size(); ++s) {
      const size_t n = f.site_sizes[k][s];
      sites[s].assign(f.values.begin() + at, f.values.begin() + at + n);
      at += n;
    }
  }
}

namespace {

class ProfileBuilder final : public RawSink {
 public:
  explicit ProfileBuilder(std::vector<Record>& out) : out_(out) {}
  Expected<void> on_function(const RawFunction& f) override {
    bool known = false;
    assign_record(f, f.resolve_name(&known), out_.emplace_back());
    return {};
  }

 private:
  std::vector<Record>& out_;
};

}  // namespace

Expected<Profile> read_raw_profile(Bytes data) {
  Profile p;
  p.format = ProfileFormat::raw;
  ProfileBuilder builder(p.records);
  RawReader reader;
  std::vector<std::string> names;
  PROFKIT_TRY_ASSIGN(RawFileInfo info, reader.read(data, builder, &names));
  p.version = info.version;
  p.version_word = info.version_word;
  p.flags = info.flags;
  p.binary_ids = std::move(info.binary_ids);
  p.traces = std::move(info.traces);
  p.trace_stream_size = p.traces.size();
  p.vtable_names = std::move(info.vtable_names);
  std::unordered_set<std::string_view> used;
  for (const Record& r : p.records) used.insert(r.name);
  std::unordered_set<std::string_view> added;
  for (const std::string& n : names)
    if (!used.count(n) && added.insert(n).second) p.extra_names.push_back(n);
  return p;
}

}  // namespace profkit::instrprof
