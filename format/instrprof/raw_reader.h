// Reader for raw IR-PGO profiles (.profraw): raw v8 (LLVM 14) and v10 (LLVM 22), 64- and
// 32-bit, either byte order, several images per file. See docs/formats/irpgo.md section 1.
//
// Two entry points: read_raw_profile() builds a Profile (simple, for printers and tests);
// RawReader::read() streams each function to a RawSink without building per-record
// strings, which is what the merge fast path uses.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/cursor.h"
#include "format/bytes/expected.h"
#include "format/bytes/flat_map.h"
#include "format/instrprof/correlation.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

inline constexpr uint64_t kRawMagic64 = 0xFF6C70726F667281ull;
inline constexpr uint64_t kRawMagic32 = 0xFF6C70726F665281ull;

// True when `data` starts with a raw magic in either byte order.
bool has_raw_magic(Bytes data);

// One function of a raw image, as views valid only during RawSink::on_function.
struct RawFunction {
  uint64_t name_ref = 0;        // NameRef from the data record
  // The PGO name is resolved on demand (a merge only needs it for records it has not seen):
  // with name_fn null, `name`/`name_known` hold it; otherwise name_fn looks it up.
  std::string_view name;        // empty when not in the image's name table
  bool name_known = false;
  using NameFn = bool (*)(const void* ctx, uint64_t name_ref, std::string_view* name);
  NameFn name_fn = nullptr;
  const void* name_ctx = nullptr;
  // Returns the name; *known is false when the name table lacks name_ref (name empty).
  std::string_view resolve_name(bool* known) const {
    if (name_fn == nullptr) {
      *known = name_known;
      return name;
    }
    std::string_view n;
    *known = name_fn(name_ctx, name_ref, &n);
    return n;
  }
  uint64_t hash = 0;            // FuncHash
  std::span<const uint64_t> counts;  // converted: byte coverage -> 0/1, timestamp removed
  std::span<const uint8_t> bitmap;
  // Number of value sites per kind, and the (value,count) pair count of each site.
  std::array<std::span<const uint8_t>, kNumValueKinds> site_sizes;
  // All pairs, kind 0 sites first, then kind 1, kind 2; values already remapped to NameRefs.
  std::span<const ValueData> values;
  // Where the record sits in its image: its index among the data records, its first
  // counter's index in the counter section and its bitmap's offset in the bitmap section.
  uint32_t ordinal = 0;
  uint64_t counter_at = 0;
  uint64_t bitmap_at = 0;
  // Set in an image taken in bulk (RawSink::on_image): counts and bitmap are empty and only
  // records with value data are passed.
  bool values_only = false;
  // In an image taken in bulk: the ordinals of the records with value data that follow this
  // one, 3, 6 and 12 places on (UINT32_MAX past the last), for prefetching.
  uint32_t ahead[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
};

// `f` as a Record named `name` (unweighted; value sites in the raw order).
void assign_record(const RawFunction& f, std::string_view name, Record& r);

// One image as RawSink::on_image sees it.
struct RawImage {
  uint64_t num_data = 0;
  // Nonzero when the image may be taken in bulk. Images a RawReader gives the same id have
  // equal data records apart from the addresses ASLR moves (so the same keys, counter and
  // bitmap positions, and value sites), the same names and no byte-coverage or temporal
  // counters. Ids are unique in the process.
  uint64_t layout = 0;
  // True when an earlier image with this layout was read whole without an error (its
  // records were checked); only then may a sink take the image in bulk.
  bool checked = false;
  // The counter section (u64 counters in host order, possibly unaligned) and the bitmap
  // section; valid until read() returns.
  Bytes counters;
  Bytes bitmap;
};

class RawSink {
 public:
  virtual ~RawSink() = default;
  virtual Expected<void> on_function(const RawFunction& function) = 0;
  // Called at the start of each image's records. Returning true (only allowed when
  // image.layout is nonzero) takes its counters and bitmap in bulk: on_function then sees
  // only the records with value data (values_only), and on_bulk_image follows the last one.
  virtual bool on_image(const RawImage& /*image*/) { return false; }
  virtual void on_bulk_image(const RawImage& /*image*/) {}
  // Called once per image before its functions: the image's name-table names with their
  // NameRefs (MD5), and a fingerprint of the names section (equal sections give equal
  // fingerprints).
  virtual void on_name_table(uint64_t /*fingerprint*/,
                             std::span<const std::string_view> /*names*/,
                             std::span<const uint64_t> /*refs*/) {}
};

// What a raw file says besides its functions.
struct RawFileInfo {
  uint64_t version = 0;       // 8 or 10
  uint64_t version_word = 0;  // first image's
  uint64_t flags = 0;         // OR over images
  std::vector<std::vector<uint8_t>> binary_ids;  // storage order, all images
  std::vector<TemporalTrace> traces;             // at most one (LLVM 22 builds one per file)
  std::vector<std::string> vtable_names;
};

// Reusable decoder: keeps buffers and the last decoded name table between files, so that
// merging many raw files of one program decodes and hashes the names only once.
class RawReader {
 public:
  // Decodes every image of `data`, calling sink.on_function for each data record in order.
  // When collect_names is set, names_out receives the name-table names of every image.
  Expected<RawFileInfo> read(Bytes data, RawSink& sink,
                             std::vector<std::string>* names_out = nullptr);

  // Reads every later file as a correlated raw profile (counters only) whose data records
  // and names are `correlation`'s; a file that has its own records is then an error, as in
  // llvm-profdata. nullptr (the default) reads files as they stand. `correlation` must
  // outlive the reads.
  void set_correlation(const Correlation* correlation) { correlation_ = correlation; }

 private:
  struct NameTable {
    std::string section;             // raw bytes of the names section (cache key)
    std::string storage;             // decoded names, back to back
    std::vector<std::pair<uint32_t, uint32_t>> spans;  // offset, size in storage
    FlatMap64 by_ref;                // NameRef -> index in spans
    std::vector<std::string_view> views;  // into storage
    std::vector<uint64_t> refs;           // NameRef of views[i]
    uint64_t fingerprint = 0;
  };
  static bool lookup_name(const void* ctx, uint64_t name_ref, std::string_view* name);
  Expected<void> decode_names(Bytes section, uint64_t offset, NameTable& table);
  Expected<uint64_t> read_image(Cursor& file, uint64_t magic_swapped, RawSink& sink,
                                RawFileInfo& info, std::vector<std::string>* names_out,
                                bool first);

  const Correlation* correlation_ = nullptr;
  NameTable names_;
  std::vector<uint64_t> counts_;
  std::vector<uint8_t> bitmap_;
  std::vector<uint8_t> sites_;
  std::vector<ValueData> values_;
  std::vector<std::pair<uint64_t, uint64_t>> timestamps_;  // (timestamp, NameRef)
  // Indirect-call targets of the image that last built them: function address -> index in
  // address_refs_ (its NameRef), and each data record's (NameRef, FunctionPointer), which
  // tell whether a later image of the same program can reuse them with a load bias.
  FlatMap64 address_to_ref_;
  std::vector<uint64_t> address_refs_;
  std::vector<std::pair<uint64_t, uint64_t>> address_keys_;
  uint64_t address_bias_ = 0;  // current image's addresses minus address_to_ref_'s
  // The layout of the last image that could be taken in bulk (RawImage::layout): its header
  // words, its data records (with the address fields zeroed) and the records with value
  // sites.
  uint64_t layout_id_ = 0;
  bool layout_checked_ = false;
  std::vector<uint64_t> layout_words_;
  std::vector<uint8_t> layout_records_;
  std::vector<uint32_t> layout_sited_;
};

// Decodes a whole raw profile into a Profile (records in storage order). extra_names holds
// the name-table names no record is named by (value-profile targets).
Expected<Profile> read_raw_profile(Bytes data);

}  // namespace profkit::instrprof
