// llvm-profdata's merge semantics (docs/formats/irpgo.md 3.7), keyed by (NameRef, FuncHash) in a
// flat hash map so that merging a raw input allocates only for records seen the first time.
#include "format/instrprof/merge.h"

#include <algorithm>
#include <limits>

#include "format/bytes/hash.h"
#include "format/instrprof/llvm_order.h"

namespace profkit::instrprof {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
constexpr size_t kMaxValuesPerSite = 255;

uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return mul_overflows(a, b, &r) ? kMax : r;
}
uint64_t sat_mul_add(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t r = sat_mul(a, b);
  return add_overflows(r, c, &r) ? kMax : r;
}

// std::stable_sort, without its temporary buffer (one allocation per call) for the short
// lists value sites almost always are: a stable insertion sort.
template <class Less>
void stable_sort_small(ValueData* first, ValueData* last, Less less) {
  if (last - first > 32) {
    std::stable_sort(first, last, less);
    return;
  }
  for (ValueData* i = first + (first != last); i < last; ++i) {
    const ValueData v = *i;
    ValueData* j = i;
    for (; j > first && less(v, j[-1]); --j) *j = j[-1];
    *j = v;
  }
}

// LLVM's sortValueData: stable by descending count, then at most 255 per site.
bool sort_site(ValueSite& site) {
  stable_sort_small(site.data(), site.data() + site.size(),
                    [](const ValueData& a, const ValueData& b) { return a.count > b.count; });
  if (site.size() <= kMaxValuesPerSite) return false;
  site.resize(kMaxValuesPerSite);
  return true;
}

// The runs of one program mostly record the same values at a site: when each of the input's
// values (distinct) is already in `site`, merging is adding their counts where they are.
// Returns false, changing nothing, otherwise.
bool add_in_place(ValueSite& site, const ValueData* in, size_t m, uint64_t w) {
  constexpr size_t kMaxIn = 8;
  if (m > kMaxIn || site.size() > 4 * kMaxIn) return false;
  size_t where[kMaxIn];
  for (size_t a = 0; a < m; ++a) {
    for (size_t b = 0; b < a; ++b)
      if (in[b].value == in[a].value) return false;
    size_t k = 0;
    while (k < site.size() && site[k].value != in[a].value) ++k;
    if (k == site.size()) return false;
    where[a] = k;
  }
  for (size_t a = 0; a < m; ++a)
    site[where[a]].count = sat_mul_add(in[a].count, w, site[where[a]].count);
  return true;
}

enum class Pseudo { none, hot, warm };
Pseudo pseudo_kind(std::span<const uint64_t> counts) {
  if (counts.empty()) return Pseudo::none;
  if (counts[0] == kPseudoHot) return Pseudo::hot;
  if (counts[0] == kPseudoWarm) return Pseudo::warm;
  return Pseudo::none;
}

// A Record seen through the same view the raw reader produces. One view is reused for
// many records (its buffers keep their capacity).
struct RecordView {
  RawFunction f;
  std::array<std::vector<uint8_t>, kNumValueKinds> sizes;
  std::vector<ValueData> values;
  void assign(const Record& r, uint64_t name_ref) {
    f = RawFunction();
    values.clear();
    f.name = r.name;
    f.name_ref = name_ref;
    f.name_known = true;
    f.hash = r.hash;
    f.counts = r.counts;
    f.bitmap = r.bitmap;
    for (size_t k = 0; k < kNumValueKinds; ++k) {
      sizes[k].clear();
      for (const ValueSite& s : r.value_sites[k]) {
        sizes[k].push_back(static_cast<uint8_t>(std::min<size_t>(s.size(), 255)));
        values.insert(values.end(), s.begin(), s.begin() + sizes[k].back());
      }
      f.site_sizes[k] = sizes[k];
    }
    f.values = values;
  }
};

}  // namespace

// ---- Merger ----

Merger::Merger(MergeOptions options, MergeWarning warn)
    : options_(options), warn_(std::move(warn)) {}

namespace {
std::string_view r_name(const RawFunction& f) {
  bool known = false;
  return f.resolve_name(&known);
}
}  // namespace

void Merger::warn(std::string_view function, std::string_view message) {
  order_sensitive_ = true;
  bulk_.usable = false;
  if (warn_) warn_(source_, function, message);
}

Expected<void> Merger::add_kind(uint64_t flags, bool front_end, std::string_view source) {
  flags &= kFlagMask22;
  if (!have_kind_ || (flags_ == 0 && !front_end_)) {
    have_kind_ = true;
    flags_ = flags;
    front_end_ = front_end;
    return {};
  }
  if (front_end_ != front_end)
    return make_error(ErrorCode::mismatch, kNoOffset,
                      std::string(source.empty() ? "input" : source) +
                          ": cannot merge IR-level and front-end (clang) profiles");
  auto incompatible = [&](uint64_t a, uint64_t b) {
    return ((flags_ & a) && (flags & b)) || ((flags_ & b) && (flags & a));
  };
  if (incompatible(kFlagFunctionEntryOnly, kFlagEntryFirst) ||
      incompatible(kFlagFunctionEntryOnly, kFlagInstrLoopEntries))
    return make_error(ErrorCode::mismatch, kNoOffset,
                      "cannot merge function-entry-only profiles with block profiles");
  flags_ |= flags;
  return {};
}

void Merger::on_name_table(uint64_t fingerprint, std::span<const std::string_view> names,
                           std::span<const uint64_t> refs) {
  names_fp_ = fingerprint;
  if (!name_tables_seen_.insert(fingerprint).second) return;
  extra_names_.insert(extra_names_.end(), names.begin(), names.end());
  extra_refs_.insert(extra_refs_.end(), refs.begin(), refs.end());
}

bool Merger::on_image(const RawImage& image) {
  // The first image of the first input usually names every function of the program.
  if (records_.empty() && image.num_data < (uint64_t{1} << 24)) {
    records_.reserve(image.num_data);
    record_keys_.reserve(image.num_data);
    index_.reserve(image.num_data);
  }
  if (image.layout != 0 && image.checked && image.layout == bulk_.layout && bulk_.usable &&
      bulk_.record.size() == image.num_data) {
    // Counters of 2^62 and more could be pseudo counts or overflow a sum: such an image is
    // merged record by record.
    uint64_t any = 0;
    const uint8_t* c = image.counters.data();
    const size_t n = image.counters.size() / 8;
    for (size_t k = 0; k < n; ++k) any |= load_le<uint64_t>(c + 8 * k);
    if ((any >> 62) == 0) return true;
  }
  flush_bulk();
  bulk_.layout = image.layout;
  bulk_.usable = image.layout != 0;
  bulk_.record.clear();
  bulk_.counter_at.clear();
  bulk_.bitmap_at.clear();
  bulk_.counts.clear();
  bulk_.bitmap.clear();
  return false;
}

void Merger::on_bulk_image(const RawImage& image) {
  const size_t n = image.counters.size() / 8;
  if (bulk_.counts.size() != n) bulk_.counts.assign(n, 0);
  if (bulk_.bitmap.size() != image.bitmap.size()) bulk_.bitmap.assign(image.bitmap.size(), 0);
  uint64_t* acc = bulk_.counts.data();
  const uint8_t* c = image.counters.data();
  if (weight_ == 1) {
    for (size_t k = 0; k < n; ++k) {
      const uint64_t v = acc[k] + load_le<uint64_t>(c + 8 * k);
      acc[k] = v < acc[k] ? kMax : v;
    }
  } else {
    for (size_t k = 0; k < n; ++k) acc[k] = sat_mul_add(load_le<uint64_t>(c + 8 * k), weight_, acc[k]);
  }
  for (size_t k = 0; k < image.bitmap.size(); ++k) bulk_.bitmap[k] |= image.bitmap[k];
  bulk_.pending = true;
  ++bulk_images_;
}

// Called for each record of an image that may later be taken in bulk.
void Merger::note_layout(const RawFunction& f, uint32_t index) {
  if (!bulk_.usable) return;
  const Record& r = records_[index];
  if (f.ordinal != bulk_.record.size() || r.counts.size() != f.counts.size() ||
      r.bitmap.size() != f.bitmap.size() ||
      (!options_.llvm14_semantics && pseudo_kind(r.counts) != Pseudo::none)) {
    bulk_.usable = false;
    return;
  }
  bulk_.record.push_back(index);
  bulk_.counter_at.push_back(f.counter_at);
  bulk_.bitmap_at.push_back(f.bitmap_at);
}

// A site's values are three dependent loads away (the record, its site array, the site's
// own array), each likely a cache miss, and the same records come in the same order in
// every image: each level is requested for a record further ahead than the next level, so
// that every prefetch reads lines an earlier one brought in.
void Merger::prefetch_sites(const RawFunction& f) {
  auto record = [&](size_t a) -> const Record* {
    return f.ahead[a] < bulk_.record.size() ? &records_[bulk_.record[f.ahead[a]]] : nullptr;
  };
  if (const Record* r = record(2)) {
    __builtin_prefetch(&r->value_sites[0]);
    __builtin_prefetch(&r->value_sites[2]);
  }
  if (const Record* r = record(1))
    for (const auto& sites : r->value_sites)
      if (!sites.empty()) __builtin_prefetch(sites.data());
  if (const Record* r = record(0))
    for (const auto& sites : r->value_sites)
      for (const ValueSite& site : sites) __builtin_prefetch(site.data());
}

void Merger::flush_bulk() {
  if (!bulk_.pending) return;
  bulk_.pending = false;
  const uint64_t cap = options_.llvm14_semantics ? kMax : kMax - 2;
  for (size_t i = 0; i < bulk_.record.size(); ++i) {
    Record& r = records_[bulk_.record[i]];
    const uint64_t* a = bulk_.counts.data() + bulk_.counter_at[i];
    for (size_t j = 0; j < r.counts.size(); ++j) {
      uint64_t v;
      if (add_overflows(r.counts[j], a[j], &v)) v = kMax;
      r.counts[j] = v > cap ? cap : v;
    }
    const uint8_t* b = bulk_.bitmap.data() + bulk_.bitmap_at[i];
    for (size_t j = 0; j < r.bitmap.size(); ++j) r.bitmap[j] |= b[j];
  }
  std::fill(bulk_.counts.begin(), bulk_.counts.end(), 0);
  std::fill(bulk_.bitmap.begin(), bulk_.bitmap.end(), 0);
}

Expected<void> Merger::on_function(const RawFunction& f) {
  if (f.values_only) {
    prefetch_sites(f);
    merge_values(bulk_.record[f.ordinal], f);
    return {};
  }
  KeyPair key{f.name_ref, f.hash};
  // Inputs of one program list their records in the same order: the record after the last
  // one found is checked first, which spares the hash probe (a cache miss) nearly always.
  // Keys are unique, so a match there is what the probe would find.
  uint32_t found = next_ < record_keys_.size() && record_keys_[next_] == key
                       ? next_
                       : index_.find(key);
  bool known = false, resolved = false;
  std::string_view name;
  if (found != FlatMapPair::kMissing && (names_fp_ == 0 || named_in_[found] != names_fp_)) {
    // Its key came from an image (or profile) that named it; is it named in this one?
    name = f.resolve_name(&known);
    resolved = true;
    if (known && names_fp_ != 0) named_in_[found] = names_fp_;
    if (!known) found = FlatMapPair::kMissing;
  }
  if (found != FlatMapPair::kMissing) {
    next_ = found + 1;
    merge_into(found, f);
    note_layout(f, found);
    return {};
  }
  if (!resolved) name = f.resolve_name(&known);
  if (!known) {
    // LLVM names such records "" and merges them by hash alone.
    static const uint64_t kEmptyRef = md5_name_ref("");
    key.a = kEmptyRef;
    found = index_.find(key);
    if (found != FlatMapPair::kMissing) {
      next_ = found + 1;
      merge_into(found, f);
      note_layout(f, found);
      return {};
    }
  }
  index_.insert(key, static_cast<uint32_t>(records_.size()));
  record_keys_.push_back(key);
  next_ = static_cast<uint32_t>(records_.size() + 1);
  Record& r = records_.emplace_back();
  by_value_.push_back(0);
  named_in_.push_back(known ? names_fp_ : 0);
  assign_record(f, name, r);
  const uint64_t w = weight_;
  const uint64_t cap = options_.llvm14_semantics ? kMax : kMax - 2;
  if (w > 1) {
    for (uint64_t& c : r.counts) c = std::min(sat_mul(c, w), cap);
  }
  for (auto& sites : r.value_sites)
    for (auto& site : sites) {
      if (w > 1)
        for (ValueData& v : site) v.count = sat_mul(v.count, w);
      order_sensitive_ |= sort_site(site);
    }
  note_layout(f, static_cast<uint32_t>(records_.size() - 1));
  return {};
}

void Merger::merge_into(uint32_t index, const RawFunction& src) {
  Record& dst = records_[index];
  const uint64_t w = weight_;
  if (dst.counts.size() != src.counts.size()) {
    warn(r_name(src), "function basic block count change detected (counter mismatch)");
    return;
  }
  if (!options_.llvm14_semantics) {
    const Pseudo mine = pseudo_kind(dst.counts), theirs = pseudo_kind(src.counts);
    if (mine != Pseudo::none || theirs != Pseudo::none) {
      if (mine == Pseudo::none || theirs == Pseudo::none) {
        warn(r_name(src), "function basic block count change detected (counter mismatch)");
        return;
      }
      dst.counts[0] = (mine == Pseudo::hot || theirs == Pseudo::hot) ? kPseudoHot : kPseudoWarm;
      return;
    }
  }
  const uint64_t cap = options_.llvm14_semantics ? kMax : kMax - 2;
  uint64_t* d = dst.counts.data();
  const uint64_t* s = src.counts.data();
  const size_t n = dst.counts.size();
  if (w == 1) {
    for (size_t i = 0; i < n; ++i) {
      uint64_t v;
      if (add_overflows(d[i], s[i], &v)) v = kMax;
      d[i] = v > cap ? cap : v;
    }
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = std::min(sat_mul_add(s[i], w, d[i]), cap);
  }
  if (dst.bitmap.size() != src.bitmap.size()) {
    warn(r_name(src), "function bitmap size change detected (bitmap size mismatch)");
    return;
  }
  for (size_t i = 0; i < dst.bitmap.size(); ++i) dst.bitmap[i] |= src.bitmap[i];
  merge_values(index, src);
}

void Merger::merge_values(uint32_t index, const RawFunction& src) {
  Record& dst = records_[index];
  const uint64_t w = weight_;
  // LLVM sorts each site by value, merges, and sorts it by count (stably) after every
  // input. With distinct values the value sort undoes the previous count sort, so only the
  // last count sort shows: sites stay in value order between merges and finish() sorts them
  // by count once (by_value_[index]). Where the order of one merge matters (a site cut at
  // 255 entries, repeated values, a site count mismatch), the record is sorted at once.
  const bool dst_by_value = by_value_[index] != 0;
  bool now = false;
  const auto by_value = [](const ValueData& a, const ValueData& b) { return a.value < b.value; };
  size_t at = 0;
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    const auto sizes = src.site_sizes[k];
    size_t kind_values = 0;
    for (uint8_t c : sizes) kind_values += c;
    auto& sites = dst.value_sites[k];
    if (sites.size() != sizes.size()) {
      warn(r_name(src), "function value site count change detected (counter mismatch)");
      at += kind_values;
      now = true;
      continue;
    }
    for (size_t si = 0; si < sites.size(); ++si) {
      const size_t m = sizes[si];
      ValueSite& site = sites[si];
      // Merging a site orders it by value first even when the input's site is empty, so
      // equal counts end in ascending value order once a record was merged at all (only a
      // record seen once keeps its input order among ties).
      if (!dst_by_value) {
        stable_sort_small(site.data(), site.data() + site.size(), by_value);
        for (size_t t = 1; t < site.size(); ++t) now |= site[t - 1].value == site[t].value;
      }
      if (m == 0) continue;
      if (add_in_place(site, src.values.data() + at, m, w)) {
        at += m;
        continue;
      }
      // Both lists by ascending value; equal values add count*weight, new values are
      // inserted as they come (LLVM inserts the input's pair without applying the weight).
      scratch_.assign(src.values.begin() + at, src.values.begin() + at + m);
      at += m;
      stable_sort_small(scratch_.data(), scratch_.data() + scratch_.size(), by_value);
      merged_.clear();
      size_t i = 0;
      for (size_t jn = 0; jn < scratch_.size(); ++jn) {
        const ValueData& j = scratch_[jn];
        if (jn > 0 && scratch_[jn - 1].value == j.value) order_sensitive_ = now = true;
        while (i < site.size() && site[i].value < j.value) merged_.push_back(site[i++]);
        if (i < site.size() && site[i].value == j.value) {
          ValueData v = site[i++];
          v.count = sat_mul_add(j.count, w, v.count);
          merged_.push_back(v);
          continue;
        }
        merged_.push_back(j);
      }
      merged_.insert(merged_.end(), site.begin() + i, site.end());
      site.assign(merged_.begin(), merged_.end());
      now |= site.size() > kMaxValuesPerSite;
    }
  }
  by_value_[index] = !now;
  if (now)
    for (auto& sites : dst.value_sites)
      for (ValueSite& site : sites) order_sensitive_ |= sort_site(site);
}

void Merger::add_traces(std::vector<TemporalTrace> traces, uint64_t stream_size,
                        uint64_t weight) {
  for (auto& t : traces) t.weight = weight == 1 ? t.weight : weight;
  trace_batches_.push_back({std::move(traces), stream_size});
}

// llvm::shuffle: from the front, swap each element with one at a distance drawn as
// rng() % (elements left), so the permutation does not depend on the C++ library.
static void shuffle_as_llvm(std::vector<TemporalTrace>::iterator first,
                            std::vector<TemporalTrace>::iterator last, std::mt19937& rng) {
  for (auto left = static_cast<size_t>(last - first); left > 1; ++first, --left) {
    const size_t offset = rng() % left;
    if (offset != 0) std::iter_swap(first, first + static_cast<ptrdiff_t>(offset));
  }
}

// One input's traces into the reservoir, as llvm-profdata 22's one-thread merge adds them
// (docs/irpgo-merge.md): traces cut to the maximum length and empty ones dropped (an input
// left with none changes nothing, not even the stream size); the reservoir filled up in
// order; the rest shuffled, then the k-th position of the input's stream beyond the
// reservoir's size draws a uniform index in [0, k] and, when it falls inside the reservoir,
// the next shuffled trace replaces the one there; the stream size grows by the input's.
void Merger::sample_traces(std::vector<TemporalTrace> traces, uint64_t stream_size) {
  const size_t reservoir = options_.trace_reservoir_size;
  if (traces_.size() > reservoir) traces_.resize(reservoir);
  for (auto& t : traces)
    if (t.function_refs.size() > options_.max_trace_length)
      t.function_refs.resize(options_.max_trace_length);
  std::erase_if(traces, [](const TemporalTrace& t) { return t.function_refs.empty(); });
  if (traces.empty()) return;
  auto next = traces.begin();
  while (traces_.size() < reservoir && next != traces.end()) traces_.push_back(*next++);
  shuffle_as_llvm(next, traces.end(), rng_);
  for (uint64_t k = traces_.size(); k < stream_size && next != traces.end(); ++k) {
    std::uniform_int_distribution<uint64_t> pick(0, k);
    const uint64_t i = pick(rng_);
    if (i < traces_.size()) traces_[i] = *next++;
  }
  trace_stream_size_ += stream_size;
}

void Merger::add_vtable_names(std::span<const std::string> names) {
  if (!options_.keep_vtable_symbols || names.empty()) return;
  std::vector<std::string_view> keys(names.begin(), names.end());
  for (uint32_t i : string_map_order(keys, StringMapHash::xxh3_low32))
    vtable_names_.push_back(names[i]);
}

void Merger::add_info(const RawFileInfo& info, uint64_t weight) {
  add_vtable_names(info.vtable_names);
  binary_ids_.insert(binary_ids_.end(), info.binary_ids.begin(), info.binary_ids.end());
  if (!info.traces.empty()) add_traces(info.traces, info.traces.size(), weight);
}

Expected<void> Merger::add(const Profile& profile, uint64_t weight, std::string_view source) {
  // Only a text profile says "front end" (its :fe line); a raw or indexed profile without
  // the IR flag has no kind at all for llvm-profdata, so it merges with anything.
  const bool front_end = profile.format == ProfileFormat::text && profile.text_front_end;
  // A raw profile's kind is its first image's, as add_raw takes it (llvm-profdata asks the
  // reader for the kind once, after the first image's header), not the OR of every image's.
  const uint64_t kind = profile.format == ProfileFormat::raw && profile.version_word != 0
                            ? profile.version_word
                            : profile.flags;
  PROFKIT_TRY(add_kind(kind, front_end, source));
  // Sampling draws one random index per trace of a sampled stream, so a claimed stream size
  // costs time even without traces; more than 2^30 traces is no real profile (llvm-profdata
  // would spin for hours).
  if (!profile.traces.empty() && profile.trace_stream_size > kMaxTraceStreamSize)
    return make_error(ErrorCode::malformed, kNoOffset,
                      "temporal trace stream size " + std::to_string(profile.trace_stream_size) +
                          " is implausible: expected at most 2^30 traces");
  flush_bulk();
  bulk_.usable = false;
  weight_ = weight == 0 ? 1 : weight;
  order_sensitive_ |= weight_ != 1;
  source_.assign(source);
  names_fp_ = 0;  // a profile's records carry their names
  add_vtable_names(profile.vtable_names);
  RecordView view;
  for (const Record& r : profile.records) {
    view.assign(r, md5_name_ref(r.name));
    PROFKIT_TRY(on_function(view.f));
  }
  for (const std::string& n : profile.extra_names) {
    extra_names_.push_back(n);
    extra_refs_.push_back(md5_name_ref(n));
  }
  binary_ids_.insert(binary_ids_.end(), profile.binary_ids.begin(), profile.binary_ids.end());
  // Only raw readers give their trace the input weight; indexed and text traces keep theirs.
  // As llvm-profdata: an input without traces adds nothing, whatever stream size it claims.
  if (!profile.traces.empty())
    add_traces(profile.traces, profile.trace_stream_size,
               profile.format == ProfileFormat::raw ? weight_ : 1);
  return {};
}

Expected<void> Merger::add_raw(Bytes data, uint64_t weight, RawReader& reader,
                               std::string_view source) {
  // The kind check needs the version word before any record is merged.
  if (data.size() >= 16) {
    uint64_t word = load_le<uint64_t>(data.data() + 8);
    const uint64_t m = load_le<uint64_t>(data.data());
    if (m != kRawMagic64 && m != kRawMagic32) word = byteswap_int(word);
    PROFKIT_TRY(add_kind(word, /*front_end=*/false, source));  // see add()
  }
  weight_ = weight == 0 ? 1 : weight;
  order_sensitive_ |= weight_ != 1;
  source_.assign(source);
  PROFKIT_TRY_ASSIGN(RawFileInfo info, reader.read(data, *this));
  add_info(info, weight_);
  return {};
}

Profile Merger::finish(std::vector<uint64_t>* name_refs) {
  flush_bulk();
  Profile p;
  p.format = ProfileFormat::indexed;
  p.flags = flags_;
  p.version_word = flags_;
  for (size_t i = 0; i < records_.size(); ++i)
    if (by_value_[i])
      for (auto& sites : records_[i].value_sites)
        for (ValueSite& site : sites) sort_site(site);
  p.records = std::move(records_);
  std::sort(binary_ids_.begin(), binary_ids_.end());
  binary_ids_.erase(std::unique(binary_ids_.begin(), binary_ids_.end()), binary_ids_.end());
  p.binary_ids = std::move(binary_ids_);
  if (options_.keep_vtable_symbols) {
    std::vector<std::string_view> keys(vtable_names_.begin(), vtable_names_.end());
    for (uint32_t i : string_map_order(keys, StringMapHash::xxh3_low32))
      p.vtable_names.push_back(vtable_names_[i]);
  }
  for (TraceBatch& b : trace_batches_) sample_traces(std::move(b.traces), b.stream_size);
  p.traces = std::move(traces_);
  p.trace_stream_size = trace_stream_size_;
  // Names by NameRef (MD5): a record's key is the MD5 of its name (kEmptyRef for "").
  FlatMap64 seen;
  seen.reserve(record_keys_.size() + extra_refs_.size());
  for (const KeyPair& k : record_keys_) seen.insert(k.a, 0);
  for (size_t i = 0; i < extra_names_.size(); ++i) {
    if (seen.find(extra_refs_[i]) != FlatMap64::kMissing) continue;
    seen.insert(extra_refs_[i], 0);
    p.extra_names.push_back(std::move(extra_names_[i]));
  }
  if (name_refs != nullptr) {
    name_refs->clear();
    name_refs->reserve(record_keys_.size());
    for (const KeyPair& k : record_keys_) name_refs->push_back(k.a);
  }
  *this = Merger(options_, std::move(warn_));
  return p;
}

Expected<void> Merger::absorb(Merger&& later) {
  flush_bulk();
  bulk_.usable = false;
  later.flush_bulk();
  if (later.have_kind_) PROFKIT_TRY(add_kind(later.flags_, later.front_end_, later.source_));
  order_sensitive_ |= later.order_sensitive_;
  weight_ = 1;
  source_ = later.source_;
  if (records_.empty()) {
    records_.reserve(later.records_.size());
    record_keys_.reserve(later.records_.size());
    index_.reserve(later.records_.size());
  }
  RecordView view;
  for (size_t i = 0; i < later.records_.size(); ++i) {
    Record& r = later.records_[i];
    const KeyPair key = later.record_keys_[i];
    const uint32_t found = index_.find(key);
    if (found == FlatMapPair::kMissing) {
      index_.insert(key, static_cast<uint32_t>(records_.size()));
      record_keys_.push_back(key);
      records_.push_back(std::move(r));
      by_value_.push_back(later.by_value_[i]);
      named_in_.push_back(later.named_in_[i]);
      continue;
    }
    view.assign(r, key.a);
    merge_into(found, view.f);
  }
  for (auto& t : later.trace_batches_) trace_batches_.push_back(std::move(t));
  for (auto& id : later.binary_ids_) binary_ids_.push_back(std::move(id));
  vtable_names_.insert(vtable_names_.end(), std::make_move_iterator(later.vtable_names_.begin()),
                       std::make_move_iterator(later.vtable_names_.end()));
  for (uint64_t f : later.name_tables_seen_) name_tables_seen_.insert(f);
  extra_names_.insert(extra_names_.end(), std::make_move_iterator(later.extra_names_.begin()),
                      std::make_move_iterator(later.extra_names_.end()));
  extra_refs_.insert(extra_refs_.end(), later.extra_refs_.begin(), later.extra_refs_.end());
  later = Merger(later.options_, later.warn_);
  return {};
}

Expected<Profile> merge_profiles(std::span<const Profile> profiles,
                                 std::span<const uint64_t> weights, MergeOptions options,
                                 MergeWarning warn) {
  Merger m(options, std::move(warn));
  for (size_t i = 0; i < profiles.size(); ++i)
    PROFKIT_TRY(m.add(profiles[i], i < weights.size() ? weights[i] : 1));
  return m.finish();
}

void drop_zero_names(Profile& profile) {
  std::unordered_set<std::string> live;
  for (const Record& r : profile.records) {
    const bool nonzero =
        std::any_of(r.counts.begin(), r.counts.end(), [](uint64_t c) { return c != 0; }) ||
        std::any_of(r.bitmap.begin(), r.bitmap.end(), [](uint8_t b) { return b != 0; });
    if (nonzero) live.insert(r.name);
  }
  std::erase_if(profile.records, [&](const Record& r) { return live.count(r.name) == 0; });
}

}  // namespace profkit::instrprof
