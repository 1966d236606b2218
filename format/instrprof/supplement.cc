// Supplementing an IR-PGO profile with a sample profile (see supplement.h and
// docs/irpgo-merge.md). The facts reproduced here, each observable in llvm-profdata 22's
// output: which names count as static and how they are matched, how inlinees are folded,
// which summary entries give the thresholds, and the order warnings come in (LLVM keeps
// its maps in StringMaps; llvm_order.h gives their iteration order).
#include "format/instrprof/supplement.h"

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>
#include <vector>

#include "format/bytes/hash.h"
#include "format/instrprof/llvm_order.h"
#include "format/instrprof/summary.h"

namespace profkit::instrprof {

namespace {

// The static-name map marks a short name shared by several static functions with this
// value; an instr function that happens to be named so is found by it, as in LLVM.
constexpr std::string_view kAmbiguous = "----";
constexpr std::string_view kUniqueSuffix = ".__uniq.";
// Indices into the 16 default cutoffs: 990000 (hot) and 999999 (cold).
constexpr size_t kHotCutoffIndex = 11;
constexpr size_t kColdCutoffIndex = 15;
// Scaled counts end at this many times the threshold.
constexpr uint64_t kScaleFactor = 3;
// LLVM 22's largest real count (the two above are pseudo counts).
constexpr uint64_t kMaxCount = ~uint64_t{0} - 2;

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// First position of `needle` in `hay`, ASCII letters compared without case.
size_t find_ignoring_case(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return std::string_view::npos;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && ascii_lower(hay[i + k]) == ascii_lower(needle[k])) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

// What one instr function looks like to the supplement.
struct Entry {
  Record* record = nullptr;
  uint64_t max_count = 0;
  uint64_t num_counters = 0;
  float zero_ratio = 0;
};

Entry make_entry(Record& r) {
  Entry e;
  e.record = &r;
  uint64_t zeros = 0;
  for (uint64_t c : r.counts) {
    e.max_count = std::max(e.max_count, c);
    zeros += c == 0;
  }
  e.num_counters = r.counts.size();
  // Single-precision division, as LLVM computes the ratio.
  e.zero_ratio = static_cast<float>(zeros) / static_cast<float>(e.num_counters);
  return e;
}

// A string-keyed map that remembers the order keys were first inserted in, so that its
// keys can be listed in the order an llvm::StringMap with the same history lists them.
template <class V>
class InsertionMap {
 public:
  V* find(std::string_view key) {
    auto it = index_.find(std::string(key));
    return it == index_.end() ? nullptr : &values_[it->second];
  }
  // The value for `key`, default-constructed and appended when new; `inserted` says which.
  V& get(std::string_view key, bool* inserted = nullptr) {
    auto [it, added] = index_.try_emplace(std::string(key), keys_.size());
    if (added) {
      keys_.emplace_back(key);
      values_.emplace_back();
    }
    if (inserted) *inserted = added;
    return values_[it->second];
  }
  // Indices in llvm::StringMap (LLVM 22) iteration order.
  std::vector<uint32_t> llvm_order() const {
    std::vector<std::string_view> views(keys_.begin(), keys_.end());
    return string_map_order(views, StringMapHash::xxh3_low32);
  }
  const std::string& key(size_t i) const { return keys_[i]; }
  V& value(size_t i) { return values_[i]; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::string> keys_;
  std::vector<V> values_;
};

// Short names of static functions -> their instr (PGO) names.
class StaticNames {
 public:
  explicit StaticNames(bool samples_use_unique_names) : samples_unique_(samples_use_unique_names) {}

  // Registers `pgo_name` when it has the "FILE;NAME" form of a static function whose FILE
  // ends in one of the extensions LLVM looks for (tried in this order; "cc" without its dot
  // is how LLVM lists it, so "xcc;f" qualifies too).
  void add(const std::string& pgo_name) {
    static constexpr std::array<std::string_view, 5> kExtensions = {".cpp;", "cc;", ".c;",
                                                                    ".hpp;", ".h;"};
    size_t name_at = std::string_view::npos;
    for (std::string_view ext : kExtensions) {
      const size_t at = find_ignoring_case(pgo_name, ext);
      if (at == std::string_view::npos) continue;
      name_at = at + ext.size();
      break;
    }
    if (name_at == std::string_view::npos || name_at == pgo_name.size()) return;
    std::string_view short_name = std::string_view(pgo_name).substr(name_at);
    const std::string_view file = std::string_view(pgo_name).substr(0, name_at - 1);
    const size_t suffix_at = short_name.find(kUniqueSuffix);
    const bool instr_unique = suffix_at != std::string_view::npos;
    if (instr_unique != samples_unique_) {
      if (instr_unique) {
        short_name = short_name.substr(0, suffix_at);
      } else {
        // The sample profile names statics with the suffix this file would have given.
        std::string key(short_name);
        key += unique_linkage_suffix(file);
        map_.get(key) = pgo_name;  // a later name of the same key replaces an earlier one
        return;
      }
    }
    bool inserted = false;
    std::string& value = map_.get(short_name, &inserted);
    value = inserted ? pgo_name : std::string(kAmbiguous);
  }

  const std::string* find(std::string_view short_name) { return map_.find(short_name); }

 private:
  bool samples_unique_;
  InsertionMap<std::string> map_;
};

// The smallest count of the summary entry for `cutoff`: the first entry whose cutoff is not
// below it.
Expected<uint64_t> min_count_at(std::span<const uint64_t> cutoffs,
                                std::span<const uint64_t> min_counts, uint64_t cutoff,
                                std::string_view which) {
  for (size_t i = 0; i < cutoffs.size(); ++i)
    if (cutoffs[i] >= cutoff) return min_counts[i];
  return Unexpected{Error{ErrorCode::malformed, kNoOffset,
                          std::string("the ") + std::string(which) +
                              " profile summary has no cutoff at or above " +
                              std::to_string(cutoff)}};
}

// a * b, saturating at UINT64_MAX; `overflow` set when it saturates.
uint64_t saturating_mul(uint64_t a, uint64_t b, bool& overflow) {
  uint64_t r = 0;
  overflow = __builtin_mul_overflow(a, b, &r);
  return overflow ? ~uint64_t{0} : r;
}

// Multiplies every counter and value count by n / d (n > d > 0), as LLVM scales a record.
void scale_record(Record& r, uint64_t n, uint64_t d,
                  const std::function<void(std::string_view)>& warn) {
  for (uint64_t& c : r.counts) {
    bool overflow = false;
    c = saturating_mul(c, n, overflow) / d;
    if (c > kMaxCount) {
      c = kMaxCount;
      overflow = true;
    }
    if (overflow && warn) warn("counter overflow");
  }
  for (auto& sites : r.value_sites)
    for (ValueSite& site : sites)
      for (ValueData& v : site) {
        bool overflow = false;
        v.count = saturating_mul(v.count, n, overflow) / d;
        if (overflow && warn) warn("counter overflow");
      }
}

struct Thresholds {
  uint64_t hot_instr = 0, cold_instr = 0, hot_sample = 0, cold_sample = 0;
};

void adjust(Entry& e, bool hot, const Thresholds& t, float zero_threshold,
            const std::function<void(std::string_view)>& warn) {
  if (e.max_count == 0 || e.zero_ratio > zero_threshold) {
    // The counts cannot be trusted: only mark the function hot or warm.
    e.record->counts[0] = hot ? kPseudoHot : kPseudoWarm;
    return;
  }
  // The target is computed in wrapping 64-bit arithmetic, as LLVM does.
  const uint64_t target = (hot ? t.hot_instr : t.cold_instr) * kScaleFactor;
  if (target <= e.max_count) return;
  scale_record(*e.record, target, e.max_count, warn);
}

}  // namespace

std::string unique_linkage_suffix(std::string_view file) {
  const std::array<uint8_t, 16> digest = md5_digest(file);
  unsigned __int128 v = 0;
  for (uint8_t b : digest) v = (v << 8) | b;
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(digits.begin(), digits.end());
  return std::string(kUniqueSuffix) + digits;
}

Expected<void> supplement_with_samples(Profile& instr, const sampleprof::Profile& samples,
                                       const SupplementOptions& options,
                                       const std::function<void(std::string_view)>& warn) {
  // Whether the sample profile was built with -funique-internal-linkage-symbols.
  bool samples_unique = false;
  for (const auto& [key, fs] : samples.functions)
    if (fs.context_string().find(kUniqueSuffix) != std::string::npos) {
      samples_unique = true;
      break;
    }

  // Instr names in first-seen order, with their records; the summary over every record.
  SummaryBuilder instr_summary;
  InsertionMap<std::vector<uint32_t>> by_name;
  for (uint32_t i = 0; i < instr.records.size(); ++i) {
    instr_summary.add_record(instr.records[i]);
    by_name.get(instr.records[i].name).push_back(i);
  }
  // Functions with exactly one record (one CFG hash) are the ones that can be adjusted;
  // LLVM visits them in its StringMap order, which decides the static-name map.
  InsertionMap<Entry> entries;
  StaticNames statics(samples_unique);
  for (uint32_t i : by_name.llvm_order()) {
    const std::vector<uint32_t>& recs = by_name.value(i);
    if (recs.size() != 1 || instr.records[recs[0]].counts.empty()) continue;
    entries.get(by_name.key(i)) = make_entry(instr.records[recs[0]]);
    statics.add(by_name.key(i));
  }

  // Flatten the sample profile: per instr function (or top-level sample function owning
  // inlinees that have no record), the sum of entry-sample estimates and the largest body
  // count. An inlinee with a record of its own is counted under its own name.
  struct Flat {
    uint64_t entry = 0;
    uint64_t max_body = 0;
  };
  InsertionMap<Flat> flat;
  const bool is_cs = samples.is_cs;
  auto visit = [&](auto& self, const sampleprof::FunctionSamples& fs,
                   const std::string& root) -> void {
    const std::string name = fs.name.str();
    uint64_t entry = fs.head_estimate(is_cs);
    uint64_t max_body = 0;
    for (const auto& [loc, rec] : fs.body) max_body = std::max(max_body, rec.samples);
    const std::string* owner = &root;
    if (entries.find(name)) {
      owner = &name;
    } else if (const std::string* mapped = statics.find(name)) {
      if (*mapped != kAmbiguous) owner = mapped;
    } else {
      entry = 0;  // no record of its own (top-level or inlined): its entry counts for nobody
    }
    const std::string key = *owner;  // a copy: the recursion below passes it on
    Flat& f = flat.get(key);
    f.entry += entry;  // wraps as LLVM's does
    f.max_body = std::max(f.max_body, max_body);
    for (const auto& [loc, callees] : fs.callsites)
      for (const auto& [callee_name, callee] : callees) self(self, callee, key);
  };
  for (const auto& [key, fs] : samples.functions) visit(visit, fs, fs.name.str());

  // Thresholds: the sample summary as read (stored or computed), the instr one over all
  // records; --instr-prof-cold-threshold replaces the instr cold one.
  const Summary is = instr_summary.finish(kDefaultCutoffs);
  std::vector<uint64_t> ic, im, sc, sm;
  for (const SummaryEntry& e : is.detailed) ic.push_back(e.cutoff), im.push_back(e.min_count);
  for (const sampleprof::SummaryEntry& e : samples.summary.detailed)
    sc.push_back(e.cutoff), sm.push_back(e.min_count);
  const uint64_t hot_cut = kDefaultCutoffs[kHotCutoffIndex];
  const uint64_t cold_cut = kDefaultCutoffs[kColdCutoffIndex];
  Thresholds t;
  PROFKIT_TRY_ASSIGN(t.hot_sample, min_count_at(sc, sm, hot_cut, "sample"));
  PROFKIT_TRY_ASSIGN(t.cold_sample, min_count_at(sc, sm, cold_cut, "sample"));
  PROFKIT_TRY_ASSIGN(t.hot_instr, min_count_at(ic, im, hot_cut, "instr"));
  if (options.cold_threshold != 0) {
    t.cold_instr = options.cold_threshold;
  } else {
    PROFKIT_TRY_ASSIGN(t.cold_instr, min_count_at(ic, im, cold_cut, "instr"));
  }

  for (uint32_t i : flat.llvm_order()) {
    const Flat& f = flat.value(i);
    const uint64_t sample_max = std::max(f.entry, f.max_body);
    if (sample_max < t.cold_sample) continue;
    const std::string& name = flat.key(i);
    Entry* e = entries.find(name);
    if (!e) {
      if (const std::string* mapped = statics.find(name)) {
        e = entries.find(*mapped);
        if (*mapped == kAmbiguous && warn)
          warn("Static function " + name + " has multiple promoted names, cannot adjust profile.");
      }
    }
    if (!e || e->max_count > t.cold_instr || e->num_counters < options.min_size) continue;
    adjust(*e, sample_max >= t.hot_sample, t, options.zero_counter_threshold, warn);
  }
  return {};
}

}  // namespace profkit::instrprof
