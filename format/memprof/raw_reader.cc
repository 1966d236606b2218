// Raw memprof reader: every count is checked against the bytes left before it is used.
#include "format/memprof/raw_reader.h"

#include <algorithm>

#include "format/bytes/flat_map.h"
#include "format/instrprof/llvm_order.h"

namespace profkit::memprof {
namespace {

bool version_supported(uint64_t version) { return raw_layout(version) != nullptr; }

// Reports the input consumed so far to a ConsumedRange, in steps of at least kStep bytes.
class ConsumedReporter {
 public:
  explicit ConsumedReporter(const ConsumedRange& report) : report_(report) {}
  // A section starts at `offset`.
  void start(uint64_t offset) { begin_ = offset; }
  // The section is consumed up to `offset` (`last`: and ends there).
  void reached(uint64_t offset, bool last = false) {
    if (report_ && offset > begin_ && (offset - begin_ >= kStep || last)) {
      report_(begin_, offset - begin_);
      begin_ = offset;
    }
  }

 private:
  static constexpr uint64_t kStep = uint64_t{1} << 20;
  const ConsumedRange& report_;
  uint64_t begin_ = 0;
};

Unexpected malformed(uint64_t offset, std::string message) {
  return make_error(ErrorCode::malformed, offset, std::move(message));
}

// Cursor over [offset, end of profile) of a profile; `what` names the section, `field_at`
// is the file offset of the header field that holds `offset` (where an error points).
Expected<Cursor> section_at(const Cursor& profile, uint64_t offset, std::string_view what,
                            uint64_t field_at) {
  if (offset < kRawHeaderSize || offset > profile.size())
    return malformed(field_at,
                     std::string(what) + " offset " + std::to_string(offset) +
                         " is outside the profile (size " + std::to_string(profile.size()) + ")");
  return Cursor(profile.data().subspan(offset), profile.base_offset() + offset);
}

Expected<std::vector<Segment>> read_segments(Cursor c, uint64_t version) {
  PROFKIT_TRY_ASSIGN(uint64_t count, c.read_le<uint64_t>("segment count"));
  const RawLayout& layout = *raw_layout(version);
  const uint64_t entry = layout.segment_entry_size();
  if (count > c.remaining() / entry)
    return c.fail(ErrorCode::truncated, "segment count " + std::to_string(count) +
                                            " needs more bytes than the profile has");
  std::vector<Segment> segments(count);
  for (Segment& s : segments) {
    PROFKIT_TRY_ASSIGN(s.start, c.read_le<uint64_t>("segment start"));
    PROFKIT_TRY_ASSIGN(s.end, c.read_le<uint64_t>("segment end"));
    PROFKIT_TRY_ASSIGN(s.offset, c.read_le<uint64_t>("segment offset"));
    uint64_t id_size = 0;
    if (layout.build_id_size) {
      const uint64_t at = c.offset();
      PROFKIT_TRY_ASSIGN(id_size, c.read_le<uint64_t>("build id size"));
      if (id_size > kBuildIdMaxSize)
        return malformed(at, "expected a build id size of at most 32, got " +
                                 std::to_string(id_size));
    }
    PROFKIT_TRY_ASSIGN(Bytes id, c.read_bytes(kBuildIdMaxSize, "build id"));
    s.build_id.assign(id.begin(), id.begin() + static_cast<ptrdiff_t>(id_size));
  }
  return segments;
}

Expected<void> read_mib_fields(Cursor& c, uint64_t version, MemInfoBlock& m) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge)                            \
  if (version >= First) {                                                    \
    PROFKIT_TRY_ASSIGN(m.Name, c.read_le<Type>("MIB field " #Name));         \
  }
#include "format/memprof/mib_fields.def"
  return {};
}

Expected<std::vector<RawMib>> read_mibs(Cursor c, uint64_t version, ConsumedReporter& consumed) {
  PROFKIT_TRY_ASSIGN(uint64_t count, c.read_le<uint64_t>("MIB count"));
  const uint64_t entry = 8 + raw_mib_size(version);
  if (count > c.remaining() / entry)
    return c.fail(ErrorCode::truncated, "MIB count " + std::to_string(count) +
                                            " needs more bytes than the profile has");
  std::vector<RawMib> mibs(count);
  const uint64_t width = raw_layout(version)->histogram_width;  // bytes per histogram entry
  consumed.start(c.offset());
  for (RawMib& r : mibs) {
    consumed.reached(c.offset());
    r.file_offset = c.offset();
    PROFKIT_TRY_ASSIGN(r.stack_id, c.read_le<uint64_t>("MIB stack id"));
    PROFKIT_TRY(read_mib_fields(c, version, r.mib));
    if (width != 0) {
      const uint64_t n = r.mib.AccessHistogramSize;
      if (n > c.remaining() / width)
        return c.fail(ErrorCode::truncated, "access histogram of " + std::to_string(n) +
                                                " entries needs more bytes than the profile has");
      r.histogram.resize(n);
      for (uint64_t& v : r.histogram) {
        if (width == 8) {
          PROFKIT_TRY_ASSIGN(v, c.read_le<uint64_t>("histogram entry"));
        } else {
          PROFKIT_TRY_ASSIGN(uint16_t e, c.read_le<uint16_t>("histogram entry"));
          v = decode_histogram_count(e);
        }
      }
    }
  }
  consumed.reached(c.offset(), true);
  return mibs;
}

// Fills p.stacks and p.pc_pool. The pool is reserved for the most PCs the section can hold,
// so it never moves while the stacks' spans are set (only the pages written become
// resident), and each entry is read once, as the consumed range advances.
Expected<void> read_stacks(Cursor& c, RawProfile& p, ConsumedReporter& consumed) {
  PROFKIT_TRY_ASSIGN(uint64_t count, c.read_le<uint64_t>("stack count"));
  if (count > c.remaining() / 16)
    return c.fail(ErrorCode::truncated, "stack count " + std::to_string(count) +
                                            " needs more bytes than the profile has");
  p.stacks.resize(count);
  p.pc_pool.reserve((c.remaining() - 16 * count) / 8);
  consumed.start(c.offset());
  for (uint64_t i = 0; i < count; ++i) {
    RawStack& s = p.stacks[i];
    consumed.reached(c.offset());
    s.file_offset = c.offset();
    PROFKIT_TRY_ASSIGN(s.stack_id, c.read_le<uint64_t>("stack id"));
    PROFKIT_TRY_ASSIGN(uint64_t n, c.read_le<uint64_t>("PC count"));
    // The stacks after this one need 16 bytes each at least: a PC count that leaves less
    // is corrupt (and would outgrow the pool reserved above, moving the spans already set).
    const uint64_t later = 16 * (count - i - 1);
    if (n > (c.remaining() - later) / 8)
      return c.fail(ErrorCode::truncated,
                    "PC count " + std::to_string(n) + " leaves too few bytes for the " +
                        std::to_string(count - i - 1) + " stacks after it");
    PROFKIT_TRY_ASSIGN(Bytes pcs, c.read_bytes(8 * n, "PCs"));
    const size_t first = p.pc_pool.size();
    for (size_t k = 0; k < n; ++k) p.pc_pool.push_back(load_le<uint64_t>(pcs.data() + 8 * k));
    s.pcs = std::span<const uint64_t>(p.pc_pool.data() + first, n);
  }
  consumed.reached(c.offset(), true);
  return {};
}

// profkit's extension at `c` (8-aligned after the stacks), if its magic is there.
Expected<std::optional<LivePeak>> read_live_peak(Cursor c) {
  if (c.remaining() < 8 || load_le<uint64_t>(c.data().data()) != kHeapExtMagic) return std::nullopt;
  const uint64_t start = c.offset();
  uint64_t h[9];
  for (uint64_t& v : h) {
    PROFKIT_TRY_ASSIGN(v, c.read_le<uint64_t>("live/peak extension header"));
  }
  if (h[2] != kHeapExtVersion)
    return make_error(ErrorCode::unsupported_version, start + 16,
                      "expected profkit live/peak extension version 1, got " + std::to_string(h[2]));
  const uint64_t count = h[8];
  if (count > c.remaining() / kHeapExtEntrySize || h[1] != kHeapExtHeaderSize + kHeapExtEntrySize * count)
    return malformed(start + 8, "profkit live/peak extension of " + std::to_string(count) +
                                    " entries does not fit its size " + std::to_string(h[1]) +
                                    " or the profile");
  LivePeak lp;
  lp.at_exit = (h[3] & kHeapExtAtExit) != 0;
  lp.dump_time_ms = h[4];
  lp.peak_time_ms = h[5];
  lp.peak_bytes = h[6];
  lp.peak_blocks = h[7];
  lp.entries.resize(count);
  for (LivePeakEntry& e : lp.entries) {
    for (uint64_t* v : {&e.stack_id, &e.live_blocks, &e.live_bytes, &e.peak_blocks, &e.peak_bytes}) {
      PROFKIT_TRY_ASSIGN(*v, c.read_le<uint64_t>("live/peak entry"));
    }
  }
  return lp;
}

Expected<RawProfile> read_one(Cursor& file, ConsumedReporter& consumed) {
  RawProfile p;
  p.file_offset = file.offset();
  Cursor h = file;
  PROFKIT_TRY_ASSIGN(uint64_t magic, h.read_le<uint64_t>("memprof raw magic"));
  if (magic != kRawMagic)
    return make_error(ErrorCode::bad_magic, p.file_offset,
                      "expected the memprof raw magic 0xff6d70726f667281");
  const uint64_t version_at = h.offset();
  PROFKIT_TRY_ASSIGN(p.version, h.read_le<uint64_t>("raw version"));
  if (!version_supported(p.version))
    return make_error(ErrorCode::unsupported_version, version_at,
                      "expected memprof raw version 1 to 5, got " + std::to_string(p.version));
  const uint64_t size_at = h.offset();
  PROFKIT_TRY_ASSIGN(p.total_size, h.read_le<uint64_t>("profile size"));
  const uint64_t seg_at = h.offset();
  PROFKIT_TRY_ASSIGN(uint64_t seg_off, h.read_le<uint64_t>("segment offset"));
  const uint64_t mib_at = h.offset();
  PROFKIT_TRY_ASSIGN(uint64_t mib_off, h.read_le<uint64_t>("MIB offset"));
  const uint64_t stack_at = h.offset();
  PROFKIT_TRY_ASSIGN(uint64_t stack_off, h.read_le<uint64_t>("stack offset"));
  if (p.total_size < kRawHeaderSize)
    return malformed(size_at, "expected a profile size of at least 48, got " +
                                  std::to_string(p.total_size));
  if (p.total_size > file.remaining())
    return make_error(ErrorCode::truncated, size_at,
                      "profile size " + std::to_string(p.total_size) + " exceeds the " +
                          std::to_string(file.remaining()) + " bytes left in the file");
  PROFKIT_TRY_ASSIGN(Cursor profile, file.take(p.total_size, "profile"));
  PROFKIT_TRY_ASSIGN(Cursor segs, section_at(profile, seg_off, "segment section", seg_at));
  PROFKIT_TRY_ASSIGN(p.segments, read_segments(segs, p.version));
  PROFKIT_TRY_ASSIGN(Cursor mibs, section_at(profile, mib_off, "MIB section", mib_at));
  PROFKIT_TRY_ASSIGN(p.mibs, read_mibs(mibs, p.version, consumed));
  PROFKIT_TRY_ASSIGN(Cursor stacks, section_at(profile, stack_off, "stack section", stack_at));
  PROFKIT_TRY(read_stacks(stacks, p, consumed));
  const uint64_t after = (stacks.offset() - profile.base_offset() + 7) & ~uint64_t{7};
  if (after < profile.size()) {
    PROFKIT_TRY_ASSIGN(p.live_peak,
                       read_live_peak(Cursor(profile.data().subspan(after), profile.base_offset() + after)));
  }
  return p;
}

}  // namespace

bool is_raw_memprof(Bytes data) {
  return data.size() >= 8 && load_le<uint64_t>(data.data()) == kRawMagic;
}

Expected<std::vector<RawProfile>> read_raw_profiles(Bytes data, const ConsumedRange& consumed) {
  Cursor file(data);
  if (data.size() < kRawHeaderSize)
    return make_error(ErrorCode::truncated, 0,
                      "expected a 48-byte memprof raw header, the file has " +
                          std::to_string(data.size()) + " bytes");
  std::vector<RawProfile> profiles;
  while (!file.at_end()) {
    const uint64_t before = file.offset();
    ConsumedReporter reporter(consumed);
    PROFKIT_TRY_ASSIGN(RawProfile p, read_one(file, reporter));
    if (file.offset() == before) return malformed(before, "profile of size 0");
    profiles.push_back(std::move(p));
  }
  return profiles;
}

void merge_mib(MemInfoBlock& m, std::vector<uint64_t>& m_hist, const MemInfoBlock& n,
               const std::vector<uint64_t>& n_hist) {
  merge_mib_fields(m, n);  // sum, min and max fields, by mib_fields.def's Merge column
  m.NumLifetimeOverlaps += n.AllocTimestamp < m.DeallocTimestamp ? 1 : 0;
  m.AllocTimestamp = n.AllocTimestamp;
  m.DeallocTimestamp = n.DeallocTimestamp;
  m.NumSameAllocCpu += m.AllocCpuId == n.AllocCpuId ? 1 : 0;
  m.NumSameDeallocCpu += m.DeallocCpuId == n.DeallocCpuId ? 1 : 0;
  m.AllocCpuId = n.AllocCpuId;
  m.DeallocCpuId = n.DeallocCpuId;
  // Keep the longer histogram and add the shorter into it.
  if (n_hist.size() > m_hist.size()) m_hist.resize(n_hist.size(), 0);
  for (size_t i = 0; i < n_hist.size(); ++i) m_hist[i] += n_hist[i];
  if (!m_hist.empty()) m.AccessHistogramSize = static_cast<uint32_t>(m_hist.size());
}

// Folds one profile's entries (MIBs or stacks) into `out`, keyed by stack id through
// `index`: the first entry of an id is kept, a later one goes to `same_id(kept, entry)`,
// which may fail. `in_place`: `out` holds the entries themselves (the first profile's), so
// kept ones are compacted toward the front; otherwise `items` are appended.
template <class T, class SameId>
Expected<void> fold_by_stack_id(std::vector<T>& out, std::vector<T>& items, bool in_place,
                                FlatMap64& index, SameId same_id) {
  std::vector<T>& source = in_place ? out : items;
  size_t kept = in_place ? 0 : out.size();
  index.reserve(kept + source.size());
  for (T& item : source) {
    const uint32_t at = index.insert(item.stack_id, static_cast<uint32_t>(kept));
    if (at != kept) {
      PROFKIT_TRY(same_id(out[at], item));
    } else if (in_place) {
      if (&out[kept] != &item) out[kept] = std::move(item);
      ++kept;
    } else {
      out.push_back(std::move(item));
      ++kept;
    }
  }
  if (in_place) out.resize(kept);
  return {};
}

Expected<MergedRaw> merge_raw_profiles(std::vector<RawProfile> profiles) {
  MergedRaw out;
  if (profiles.empty()) return out;
  out.segments = profiles.front().segments;
  FlatMap64 mib_index;    // stack id -> index in out.mibs
  FlatMap64 stack_index;  // stack id -> index in out.stacks
  // llvm-profdata's stack map (D.8): the first profile's ids inserted in file order, each
  // later profile's new ids in the iteration order of that profile's own map.
  std::vector<uint64_t> llvm_insertions;
  for (RawProfile& p : profiles) {
    std::vector<uint64_t> ids;
    ids.reserve(p.stacks.size());
    for (const RawStack& st : p.stacks) ids.push_back(st.stack_id);
    if (llvm_insertions.empty()) {
      llvm_insertions = std::move(ids);
    } else {
      const auto order = instrprof::dense_map_order(ids, instrprof::DenseMapHash::llvm22, 0);
      llvm_insertions.insert(llvm_insertions.end(), order.begin(), order.end());
    }
    out.version = p.version;
    if (p.segments != out.segments)
      return malformed(p.file_offset,
                       "memprof raw profile has different segment information than the first");
    // The first profile's entries are merged in place, so that a file with one profile (the
    // usual case) never holds its MIBs twice; later profiles' entries are appended.
    const bool in_place = out.mibs.empty() && out.stacks.empty();
    if (in_place) {
      out.mibs = std::move(p.mibs);
      out.stacks = std::move(p.stacks);
    }
    PROFKIT_TRY(fold_by_stack_id(out.mibs, p.mibs, in_place, mib_index,
                                 [](RawMib& kept, RawMib& r) -> Expected<void> {
                                   merge_mib(kept.mib, kept.histogram, r.mib, r.histogram);
                                   return {};
                                 }));
    PROFKIT_TRY(fold_by_stack_id(
        out.stacks, p.stacks, in_place, stack_index,
        [](RawStack& kept, RawStack& st) -> Expected<void> {
          if (std::equal(kept.pcs.begin(), kept.pcs.end(), st.pcs.begin(), st.pcs.end()))
            return {};
          return malformed(st.file_offset, "memprof raw profile got different call stack for id " +
                                               std::to_string(st.stack_id));
        }));
    out.pc_pools.push_back(std::move(p.pc_pool));
    if (p.live_peak) out.live_peak = std::move(p.live_peak);
  }
  out.mib_stack.reserve(out.mibs.size());
  for (const RawMib& r : out.mibs) {
    const uint32_t at = stack_index.find(r.stack_id);
    if (at == FlatMap64::kMissing)
      return malformed(r.file_offset, "memprof callstack record does not contain id: " +
                                          std::to_string(r.stack_id));
    out.mib_stack.push_back(at);
  }
  const auto order = instrprof::dense_map_order(llvm_insertions, instrprof::DenseMapHash::llvm22, 0);
  out.llvm_stack_order.reserve(order.size());
  for (uint64_t id : order) out.llvm_stack_order.push_back(stack_index.find(id));
  return out;
}

}  // namespace profkit::memprof
