// llvm-profdata's merge semantics (irpgo-format.md 3.7), keyed by (NameRef, FuncHash) in a
// flat hash map so that merging a raw input allocates only for records seen the first time.
#include "format/instrprof/merge.h"

#include <algorithm>
#include <limits>

#include "format/bytes/hash.h"

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

// LLVM's sortValueData: stable by descending count, then at most 255 per site.
void sort_site(ValueSite& site) {
  std::stable_sort(site.begin(), site.end(),
                   [](const ValueData& a, const ValueData& b) { return a.count > b.count; });
  if (site.size() > kMaxValuesPerSite) site.resize(kMaxValuesPerSite);
}

enum class Pseudo { none, hot, warm };
Pseudo pseudo_kind(std::span<const uint64_t> counts) {
  if (counts.empty()) return Pseudo::none;
  if (counts[0] == kPseudoHot) return Pseudo::hot;
  if (counts[0] == kPseudoWarm) return Pseudo::warm;
  return Pseudo::none;
}

// A Record seen through the same view the raw reader produces.
struct RecordView {
  RawFunction f;
  std::array<std::vector<uint8_t>, kNumValueKinds> sizes;
  std::vector<ValueData> values;
  RecordView(const Record& r, uint64_t name_ref) {
    f.name = r.name;
    f.name_ref = name_ref;
    f.name_known = true;
    f.hash = r.hash;
    f.counts = r.counts;
    f.bitmap = r.bitmap;
    for (size_t k = 0; k < kNumValueKinds; ++k) {
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

// ---- DecodedRawInput ----

Expected<void> DecodedRawInput::on_function(const RawFunction& f) {
  Entry e{};
  e.name_ref = f.name_ref;
  e.hash = f.hash;
  e.name_known = f.name_known;
  e.name_off = static_cast<uint32_t>(names_.size());
  e.name_size = static_cast<uint32_t>(f.name.size());
  names_.append(f.name);
  e.counts_off = counts_.size();
  e.counts_size = f.counts.size();
  counts_.insert(counts_.end(), f.counts.begin(), f.counts.end());
  e.bitmap_off = bytes_.size();
  e.bitmap_size = f.bitmap.size();
  bytes_.insert(bytes_.end(), f.bitmap.begin(), f.bitmap.end());
  e.sites_off = bytes_.size();
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    e.num_sites[k] = static_cast<uint32_t>(f.site_sizes[k].size());
    bytes_.insert(bytes_.end(), f.site_sizes[k].begin(), f.site_sizes[k].end());
  }
  e.values_off = values_.size();
  e.values_size = f.values.size();
  values_.insert(values_.end(), f.values.begin(), f.values.end());
  entries_.push_back(e);
  table_at_entry_.push_back(tables_.size());
  return {};
}

void DecodedRawInput::on_name_table(uint64_t fingerprint, std::span<const std::string_view> names) {
  Table t{fingerprint, table_names_.size(), names.size()};
  for (std::string_view n : names) {
    table_names_.emplace_back(static_cast<uint32_t>(names_.size()), static_cast<uint32_t>(n.size()));
    names_.append(n);
  }
  tables_.push_back(t);
}

Expected<void> DecodedRawInput::replay(RawSink& sink) const {
  size_t next_table = 0;
  std::vector<std::string_view> views;
  auto announce_until = [&](size_t end) {
    for (; next_table < end; ++next_table) {
      const Table& t = tables_[next_table];
      views.clear();
      for (size_t i = 0; i < t.num_names; ++i) {
        const auto [off, size] = table_names_[t.first_name + i];
        views.push_back(std::string_view(names_).substr(off, size));
      }
      sink.on_name_table(t.fingerprint, views);
    }
  };
  for (size_t i = 0; i < entries_.size(); ++i) {
    announce_until(table_at_entry_[i]);
    const Entry& e = entries_[i];
    RawFunction f;
    f.name_ref = e.name_ref;
    f.hash = e.hash;
    f.name_known = e.name_known;
    f.name = std::string_view(names_).substr(e.name_off, e.name_size);
    f.counts = std::span<const uint64_t>(counts_.data() + e.counts_off, e.counts_size);
    f.bitmap = std::span<const uint8_t>(bytes_.data() + e.bitmap_off, e.bitmap_size);
    size_t at = e.sites_off;
    for (size_t k = 0; k < kNumValueKinds; ++k) {
      f.site_sizes[k] = std::span<const uint8_t>(bytes_.data() + at, e.num_sites[k]);
      at += e.num_sites[k];
    }
    f.values = std::span<const ValueData>(values_.data() + e.values_off, e.values_size);
    PROFKIT_TRY(sink.on_function(f));
  }
  announce_until(tables_.size());
  return {};
}

// ---- Merger ----

Merger::Merger(MergeOptions options, MergeWarning warn)
    : options_(options), warn_(std::move(warn)) {}

void Merger::warn(std::string_view function, std::string_view message) {
  if (warn_) warn_(source_, function, message);
}

Expected<void> Merger::add_kind(uint64_t flags, std::string_view source) {
  flags &= kFlagMask22;
  if (!have_kind_) {
    have_kind_ = true;
    flags_ = flags;
    return {};
  }
  if ((flags_ & kFlagIR) != (flags & kFlagIR))
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

void Merger::on_name_table(uint64_t fingerprint, std::span<const std::string_view> names) {
  if (!name_tables_seen_.insert(fingerprint).second) return;
  for (std::string_view n : names) {
    auto [it, inserted] = extra_name_set_.emplace(n);
    if (inserted) extra_names_.push_back(*it);
  }
}

Expected<void> Merger::on_function(const RawFunction& f) {
  static const uint64_t kEmptyRef = md5_name_ref("");
  const KeyPair key{f.name_known ? f.name_ref : kEmptyRef, f.hash};
  const uint32_t found = index_.find(key);
  if (found != FlatMapPair::kMissing) {
    merge_into(records_[found], f);
    return {};
  }
  index_.insert(key, static_cast<uint32_t>(records_.size()));
  Record& r = records_.emplace_back();
  r.name.assign(f.name);
  r.hash = f.hash;
  r.counts.assign(f.counts.begin(), f.counts.end());
  r.bitmap.assign(f.bitmap.begin(), f.bitmap.end());
  const uint64_t w = weight_;
  const uint64_t cap = options_.llvm14_semantics ? kMax : kMax - 2;
  if (w > 1) {
    for (uint64_t& c : r.counts) c = std::min(sat_mul(c, w), cap);
  }
  size_t at = 0;
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    auto& sites = r.value_sites[k];
    sites.resize(f.site_sizes[k].size());
    for (size_t s = 0; s < sites.size(); ++s) {
      const size_t n = f.site_sizes[k][s];
      sites[s].assign(f.values.begin() + at, f.values.begin() + at + n);
      at += n;
      if (w > 1)
        for (ValueData& v : sites[s]) v.count = sat_mul(v.count, w);
      sort_site(sites[s]);
    }
  }
  return {};
}

void Merger::merge_into(Record& dst, const RawFunction& src) {
  const uint64_t w = weight_;
  if (dst.counts.size() != src.counts.size()) {
    warn(src.name, "function basic block count change detected (counter mismatch)");
    return;
  }
  if (!options_.llvm14_semantics) {
    const Pseudo mine = pseudo_kind(dst.counts), theirs = pseudo_kind(src.counts);
    if (mine != Pseudo::none || theirs != Pseudo::none) {
      if (mine == Pseudo::none || theirs == Pseudo::none) {
        warn(src.name, "function basic block count change detected (counter mismatch)");
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
    warn(src.name, "function bitmap size change detected (bitmap size mismatch)");
    return;
  }
  for (size_t i = 0; i < dst.bitmap.size(); ++i) dst.bitmap[i] |= src.bitmap[i];

  size_t at = 0;
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    const auto sizes = src.site_sizes[k];
    size_t kind_values = 0;
    for (uint8_t c : sizes) kind_values += c;
    auto& sites = dst.value_sites[k];
    if (sites.size() != sizes.size()) {
      warn(src.name, "function value site count change detected (counter mismatch)");
      at += kind_values;
      continue;
    }
    for (size_t si = 0; si < sites.size(); ++si) {
      const size_t m = sizes[si];
      ValueSite& site = sites[si];
      if (m == 0) {
        sort_site(site);
        continue;
      }
      // Both lists by ascending value; equal values add count*weight, new values are
      // inserted as they come (LLVM inserts the input's pair without applying the weight).
      scratch_.assign(src.values.begin() + at, src.values.begin() + at + m);
      at += m;
      std::stable_sort(scratch_.begin(), scratch_.end(),
                       [](const ValueData& a, const ValueData& b) { return a.value < b.value; });
      std::stable_sort(site.begin(), site.end(),
                       [](const ValueData& a, const ValueData& b) { return a.value < b.value; });
      merged_.clear();
      size_t i = 0;
      for (const ValueData& j : scratch_) {
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
      sort_site(site);
    }
  }
}

void Merger::add_one_trace(TemporalTrace trace) {
  if (traces_.size() < options_.trace_reservoir_size) {
    traces_.push_back(std::move(trace));
  } else {
    std::uniform_int_distribution<uint64_t> pick(0, trace_stream_size_);
    const uint64_t i = pick(rng_);
    if (i < traces_.size()) traces_[i] = std::move(trace);
  }
  ++trace_stream_size_;
}

void Merger::add_traces(std::vector<TemporalTrace> traces, uint64_t stream_size,
                        uint64_t weight) {
  for (auto& t : traces) {
    t.weight = weight == 1 ? t.weight : weight;
    if (t.function_refs.size() > options_.max_trace_length)
      t.function_refs.resize(options_.max_trace_length);
  }
  std::erase_if(traces, [](const TemporalTrace& t) { return t.function_refs.empty(); });
  bool dest_sampled = trace_stream_size_ > options_.trace_reservoir_size;
  bool src_sampled = stream_size > options_.trace_reservoir_size;
  if (!dest_sampled && src_sampled) {
    std::swap(traces_, traces);
    std::swap(trace_stream_size_, stream_size);
    std::swap(dest_sampled, src_sampled);
  }
  if (!src_sampled) {
    for (auto& t : traces) add_one_trace(std::move(t));
    return;
  }
  // Both sampled: keep a random subset in proportion to the stream sizes.
  for (auto& t : traces) {
    std::uniform_int_distribution<uint64_t> pick(0, trace_stream_size_ + stream_size);
    const uint64_t i = pick(rng_);
    if (i < traces_.size()) traces_[i] = std::move(t);
  }
  trace_stream_size_ += stream_size;
}

void Merger::add_info(const RawFileInfo& info, uint64_t weight) {
  binary_ids_.insert(binary_ids_.end(), info.binary_ids.begin(), info.binary_ids.end());
  if (!info.traces.empty()) add_traces(info.traces, info.traces.size(), weight);
}

Expected<void> Merger::add(const Profile& profile, uint64_t weight, std::string_view source) {
  PROFKIT_TRY(add_kind(profile.flags, source));
  weight_ = weight == 0 ? 1 : weight;
  source_.assign(source);
  for (const Record& r : profile.records) {
    RecordView view(r, md5_name_ref(r.name));
    PROFKIT_TRY(on_function(view.f));
  }
  for (const std::string& n : profile.extra_names) {
    auto [it, inserted] = extra_name_set_.emplace(n);
    if (inserted) extra_names_.push_back(*it);
  }
  binary_ids_.insert(binary_ids_.end(), profile.binary_ids.begin(), profile.binary_ids.end());
  if (!profile.traces.empty() || profile.trace_stream_size > 0)
    add_traces(profile.traces, profile.trace_stream_size, weight_);
  return {};
}

Expected<void> Merger::add_raw(Bytes data, uint64_t weight, RawReader& reader,
                               std::string_view source) {
  // The kind check needs the version word before any record is merged.
  if (data.size() >= 16) {
    uint64_t word = load_le<uint64_t>(data.data() + 8);
    const uint64_t m = load_le<uint64_t>(data.data());
    if (m != kRawMagic64 && m != kRawMagic32) word = byteswap_int(word);
    PROFKIT_TRY(add_kind(word, source));
  }
  weight_ = weight == 0 ? 1 : weight;
  source_.assign(source);
  PROFKIT_TRY_ASSIGN(RawFileInfo info, reader.read(data, *this));
  add_info(info, weight_);
  return {};
}

Expected<void> Merger::add_decoded(const DecodedRawInput& input, uint64_t weight,
                                   std::string_view source) {
  PROFKIT_TRY(add_kind(input.info.flags, source));
  weight_ = weight == 0 ? 1 : weight;
  source_.assign(source);
  PROFKIT_TRY(input.replay(*this));
  add_info(input.info, weight_);
  return {};
}

Profile Merger::finish() {
  Profile p;
  p.format = ProfileFormat::indexed;
  p.flags = flags_;
  p.version_word = flags_;
  p.records = std::move(records_);
  std::sort(binary_ids_.begin(), binary_ids_.end());
  binary_ids_.erase(std::unique(binary_ids_.begin(), binary_ids_.end()), binary_ids_.end());
  p.binary_ids = std::move(binary_ids_);
  p.traces = std::move(traces_);
  p.trace_stream_size = trace_stream_size_;
  std::unordered_set<std::string_view> used;
  for (const Record& r : p.records) used.insert(r.name);
  for (std::string& n : extra_names_)
    if (!used.count(n)) p.extra_names.push_back(std::move(n));
  *this = Merger(options_, std::move(warn_));
  return p;
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
