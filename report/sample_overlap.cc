#include "report/sample_overlap.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "format/bytes/number_text.h"

namespace profkit::report {
namespace {

using sampleprof::FunctionSamples;
using sampleprof::Profile;

// Counts of "units" (functions, lines or blocks) and their samples in the two profiles.
struct OverlapStats {
  std::string base_name, test_name;
  uint64_t overlap_count = 0, overlap_sample = 0;
  uint64_t base_unique_count = 0, base_unique_sample = 0;
  uint64_t test_unique_count = 0, test_unique_sample = 0;
  uint64_t base_count = 0, base_sample = 0;
  uint64_t test_count = 0, test_sample = 0;
  uint64_t union_count = 0, union_sample = 0;
  double similarity = 0, base_weight = 0, test_weight = 0;
};

struct FunctionStats {
  uint64_t sum = 0, max = 0, hot_blocks = 0;
  const FunctionSamples* profile = nullptr;
};

// llvm-profdata matches functions by context equality: the same key is not enough (an MD5
// name and the string it hashes are different functions to it).
bool same_context(const FunctionSamples& a, const FunctionSamples& b) {
  if (!(a.name == b.name) || a.context.size() != b.context.size()) return false;
  for (size_t i = 0; i < a.context.size(); ++i)
    if (!(a.context[i] == b.context[i])) return false;
  return true;
}

void function_stats(const FunctionSamples& f, FunctionStats& s, uint64_t hot) {
  for (const auto& [loc, rec] : f.body) {
    s.sum += rec.samples;
    s.max = std::max(s.max, rec.samples);
    if (rec.samples >= hot) ++s.hot_blocks;
  }
  for (const auto& [loc, callees] : f.callsites)
    for (const auto& [name, callee] : callees) function_stats(callee, s, hot);
}

enum class Match { both, first, second };

// Walks two sorted maps together: both at equal keys, else the side with the smaller key.
template <class Map, class Visit>
void match_join(const Map& a, const Map& b, Visit visit) {
  auto i = a.begin(), j = b.begin();
  while (i != a.end() || j != b.end()) {
    if (i != a.end() && (j == b.end() || i->first < j->first)) {
      visit(Match::first, i, j);
      ++i;
    } else if (j != b.end() && (i == a.end() || j->first < i->first)) {
      visit(Match::second, i, j);
      ++j;
    } else {
      visit(Match::both, i, j);
      ++i;
      ++j;
    }
  }
}

class Aggregator {
 public:
  Aggregator(uint64_t base_hot, uint64_t test_hot, double low_similarity)
      : base_hot_(base_hot), test_hot_(test_hot), low_similarity_(low_similarity) {}

  OverlapStats prog, hot_functions, hot_blocks;
  std::multimap<double, OverlapStats, std::greater<double>> listed;
  std::unordered_map<uint64_t, FunctionStats> base_stats, test_stats;

  void initialize(const Profile& base, const Profile& test) {
    auto side = [](const Profile& p, uint64_t hot, uint64_t& count, uint64_t& sample,
                   std::unordered_map<uint64_t, FunctionStats>& stats) {
      for (const auto& [key, f] : p.functions) {
        ++count;
        FunctionStats s;
        function_stats(f, s, hot);
        s.profile = &f;
        sample += s.sum;
        stats.try_emplace(key, s);
      }
    };
    side(base, base_hot_, prog.base_count, prog.base_sample, base_stats);
    side(test, test_hot_, prog.test_count, prog.test_sample, test_stats);
  }

  void compute(const Profile& base, const Profile& test, const SampleOverlapOptions& o) {
    std::unordered_map<uint64_t, const FunctionSamples*> unmatched_base;
    for (const auto& [key, f] : base.functions) unmatched_base.try_emplace(key, &f);
    prog.union_count = unmatched_base.size();
    for (const auto& [key, t] : test.functions) {
      OverlapStats fo;
      fo.test_name = t.context_string();
      const FunctionStats& ts = test_stats[key];
      fo.test_sample = ts.sum;
      bool matched = false;
      auto match = unmatched_base.find(key);
      if (match != unmatched_base.end() && !same_context(*match->second, t))
        match = unmatched_base.end();
      if (match == unmatched_base.end()) {
        ++prog.test_unique_count;
        prog.test_unique_sample += ts.sum;
        fo.test_unique_sample = ts.sum;
        update_hot_blocks(0, ts.sum, ts.hot_blocks);
        const double fs = function_similarity(nullptr, nullptr, nullptr, 0, ts.sum);
        prog.similarity += weigh_by_importance(fs, 0, ts.sum);
        ++prog.union_count;
        prog.union_sample += ts.sum;
      } else {
        ++prog.overlap_count;
        const FunctionSamples& b = *match->second;
        fo.base_name = b.context_string();
        fo.base_sample = base_stats[key].sum;
        fo.similarity = function_similarity(&b, &t, &fo, fo.base_sample, fo.test_sample);
        prog.similarity += weigh_by_importance(fo.similarity, fo.base_sample, fo.test_sample);
        prog.overlap_sample += fo.overlap_sample;
        prog.union_sample += fo.union_sample;
        prog.base_unique_sample += fo.base_unique_sample;
        prog.test_unique_sample += fo.test_unique_sample;
        unmatched_base.erase(match);
        matched = true;
      }
      if (ts.max >= o.value_cutoff || (matched && fo.similarity < low_similarity_) ||
          (matched && !o.function.empty() && fo.base_name.find(o.function) != std::string::npos)) {
        fo.base_weight = static_cast<double>(fo.base_sample) / prog.base_sample;
        fo.test_weight = static_cast<double>(fo.test_sample) / prog.test_sample;
        listed.emplace(fo.base_weight, fo);
      }
    }
    for (const auto& [key, f] : unmatched_base) {
      const FunctionStats& bs = base_stats[key];
      ++prog.base_unique_count;
      prog.base_unique_sample += bs.sum;
      update_hot_blocks(bs.sum, 0, bs.hot_blocks);
      const double fs = function_similarity(nullptr, nullptr, nullptr, bs.sum, 0);
      prog.similarity += weigh_by_importance(fs, bs.sum, 0);
      prog.union_sample += bs.sum;
    }
    // Accumulated rounding may leave the similarity a hair above 1.
    if (std::fabs(prog.similarity - 1) < kEpsilon) prog.similarity = 1;
    hot_function_overlap();
  }

 private:
  static constexpr double kEpsilon = 0.000005;

  double block_similarity(uint64_t b, uint64_t t, const OverlapStats& fo) const {
    double bf = 0, tf = 0;
    if (fo.base_sample > 0) bf = static_cast<double>(b) / fo.base_sample;
    if (fo.test_sample > 0) tf = static_cast<double>(t) / fo.test_sample;
    return 1.0 - std::fabs(bf - tf);
  }

  void update_hot_blocks(uint64_t b, uint64_t t, uint64_t count) {
    const bool base_hot = b >= base_hot_, test_hot = t >= test_hot_;
    if (!base_hot && !test_hot) return;
    hot_blocks.union_count += count;
    if (base_hot) hot_blocks.base_count += count;
    if (test_hot) hot_blocks.test_count += count;
    if (base_hot && test_hot) hot_blocks.overlap_count += count;
  }

  void update_unit(uint64_t b, uint64_t t, uint64_t hot_count, OverlapStats& fo, double& diff,
                   Match m) {
    if (m == Match::first) {
      t = 0;
      fo.base_unique_sample += b;
    } else if (m == Match::second) {
      b = 0;
      fo.test_unique_sample += t;
    } else {
      ++fo.overlap_count;
    }
    fo.union_sample += std::max(b, t);
    fo.overlap_sample += std::min(b, t);
    diff += 1.0 - block_similarity(b, t, fo);
    update_hot_blocks(b, t, hot_count);
  }

  void unmatched_callee(const FunctionSamples& f, OverlapStats& fo, double& diff, Match m) {
    FunctionStats s;
    if (m == Match::first) {
      function_stats(f, s, base_hot_);
      update_unit(s.sum, 0, s.hot_blocks, fo, diff, m);
    } else {
      function_stats(f, s, test_hot_);
      update_unit(0, s.sum, s.hot_blocks, fo, diff, m);
    }
  }

  double internal_similarity(const FunctionSamples& b, const FunctionSamples& t, OverlapStats& fo) {
    double diff = 0;
    match_join(b.body, t.body, [&](Match m, auto i, auto j) {
      const uint64_t bs = i != b.body.end() ? i->second.samples : 0;
      const uint64_t ts = j != t.body.end() ? j->second.samples : 0;
      update_unit(bs, ts, 1, fo, diff, m);
    });
    match_join(b.callsites, t.callsites, [&](Match m, auto i, auto j) {
      if (m != Match::both) {
        const auto& callees = m == Match::first ? i->second : j->second;
        for (const auto& [name, callee] : callees) unmatched_callee(callee, fo, diff, m);
        return;
      }
      match_join(i->second, j->second, [&](Match cm, auto ci, auto cj) {
        if (cm != Match::both) {
          unmatched_callee(cm == Match::first ? ci->second : cj->second, fo, diff, cm);
          return;
        }
        diff += 2.0 - 2 * internal_similarity(ci->second, cj->second, fo);
      });
    });
    return (2.0 - diff) / 2;
  }

  double function_similarity(const FunctionSamples* b, const FunctionSamples* t, OverlapStats* fo,
                             uint64_t base_sum, uint64_t test_sum) {
    double internal = 0;
    if (b != nullptr && t != nullptr) {
      internal = internal_similarity(*b, *t, *fo);
      if (std::fabs(internal - 0) < kEpsilon) internal = 0;
    }
    const double bf = static_cast<double>(base_sum) / prog.base_sample;
    const double tf = static_cast<double>(test_sum) / prog.test_sample;
    return internal * (1 - std::fabs(bf - tf));
  }

  double weigh_by_importance(double similarity, uint64_t base_sum, uint64_t test_sum) const {
    const double bf = static_cast<double>(base_sum) / prog.base_sample / 2.0;
    const double tf = static_cast<double>(test_sum) / prog.test_sample / 2.0;
    return similarity * (bf + tf);
  }

  void hot_function_overlap() {
    std::unordered_map<uint64_t, const FunctionSamples*> test_hot;
    for (const auto& [key, s] : test_stats)
      if (s.max >= test_hot_) test_hot.try_emplace(key, s.profile);
    hot_functions.test_count = test_hot.size();
    hot_functions.union_count = hot_functions.test_count;
    for (const auto& [key, s] : base_stats) {
      if (s.max < base_hot_) continue;
      ++hot_functions.base_count;
      auto it = test_hot.find(key);
      if (it != test_hot.end() && same_context(*it->second, *s.profile))
        ++hot_functions.overlap_count;
      else
        ++hot_functions.union_count;
    }
  }

  uint64_t base_hot_, test_hot_;
  double low_similarity_;
};

// The count of the first summary entry whose cutoff reaches 99%.
Expected<uint64_t> hot_threshold(const sampleprof::Summary& s, const std::string& name) {
  for (const auto& e : s.detailed)
    if (e.cutoff >= 990000) return e.min_count;
  return make_error(ErrorCode::malformed, kNoOffset,
                    name + ": the profile summary has no entry for the 99% cutoff");
}

}  // namespace

Expected<std::string> overlap_sample(const Profile& base, const Profile& test,
                                     const SampleOverlapOptions& o) {
  if (base.is_probe_based != test.is_probe_based)
    return make_error(ErrorCode::mismatch, kNoOffset,
                      "cannot compare probe-based profile with non-probe-based profile");
  if (base.is_cs != test.is_cs)
    return make_error(ErrorCode::mismatch, kNoOffset, "cannot compare CS profile with non-CS profile");
  PROFKIT_TRY_ASSIGN(uint64_t base_hot, hot_threshold(base.summary, o.base_name));
  PROFKIT_TRY_ASSIGN(uint64_t test_hot, hot_threshold(test.summary, o.test_name));
  Aggregator a(base_hot, test_hot, static_cast<double>(o.similarity_cutoff) / 1000000);
  a.initialize(base, test);
  std::string out;
  if (a.prog.base_sample == 0 || a.prog.test_sample == 0) {
    if (a.prog.base_sample == 0) out += "Sum of sample counts for profile " + o.base_name + " is 0.\n";
    if (a.prog.test_sample == 0) out += "Sum of sample counts for profile " + o.test_name + " is 0.\n";
    return out;
  }
  a.compute(base, test, o);
  const OverlapStats& p = a.prog;
  out += "Profile overlap information for base_profile: " + o.base_name +
         " and test_profile: " + o.test_name + "\nProgram level:\n";
  append_printf(out, "  Whole program profile similarity: %.3f%%\n", p.similarity * 100);
  const double overlap = static_cast<double>(p.overlap_sample) / p.union_sample;
  const double base_unique = static_cast<double>(p.base_unique_sample) / p.base_sample;
  const double test_unique = static_cast<double>(p.test_unique_sample) / p.test_sample;
  append_printf(out, "  Whole program sample overlap: %.3f%%\n", overlap * 100);
  append_printf(out, "    percentage of samples unique in base profile: %.3f%%\n", base_unique * 100);
  append_printf(out, "    percentage of samples unique in test profile: %.3f%%\n", test_unique * 100);
  out += "    total samples in base profile: " + std::to_string(p.base_sample) + "\n";
  out += "    total samples in test profile: " + std::to_string(p.test_sample) + "\n";
  // "X overlap: P%" and its three counts, for functions, hot functions and hot blocks.
  auto section = [&](const char* title, const char* unit, uint64_t overlap_count,
                     uint64_t union_count, uint64_t base_only, uint64_t test_only) {
    append_printf(out, "  %s overlap: %.3f%%\n", title,
                  static_cast<double>(overlap_count) / union_count * 100);
    out += std::string("    overlap ") + unit + ": " + std::to_string(overlap_count) + "\n";
    out += std::string("    ") + unit + " unique in base profile: " + std::to_string(base_only) + "\n";
    out += std::string("    ") + unit + " unique in test profile: " + std::to_string(test_only) + "\n";
  };
  section("Function", "functions", p.overlap_count, p.union_count, p.base_unique_count,
          p.test_unique_count);
  const OverlapStats& hf = a.hot_functions;
  section("Hot-function", "hot functions", hf.overlap_count, hf.union_count,
          hf.base_count - hf.overlap_count, hf.test_count - hf.overlap_count);
  const OverlapStats& hb = a.hot_blocks;
  section("Hot-block", "hot blocks", hb.overlap_count, hb.union_count,
          hb.base_count - hb.overlap_count, hb.test_count - hb.overlap_count);
  if (a.listed.empty()) return out;
  const size_t columns[] = {0, 15, 30, 43, 53, 67, 81, 96, 111};
  const char* titles[] = {"Base weight", "Test weight", "Similarity", "Overlap", "Base unique",
                          "Test unique", "Base samples", "Test samples", "Function name"};
  out += "Function-level details:\n";
  size_t line = out.size();
  for (int i = 0; i < 9; ++i) {
    if (i > 0) pad_to_column(out, line, columns[i]);
    out += titles[i];
  }
  out += "\n";
  for (const auto& [weight, f] : a.listed) {
    line = out.size();
    const double ov = f.union_sample > 0 ? static_cast<double>(f.overlap_sample) / f.union_sample : 0;
    const double bu = f.base_sample > 0 ? static_cast<double>(f.base_unique_sample) / f.base_sample : 0;
    const double tu = f.test_sample > 0 ? static_cast<double>(f.test_unique_sample) / f.test_sample : 0;
    const double percents[] = {f.base_weight, f.test_weight, f.similarity, ov, bu, tu};
    for (int i = 0; i < 6; ++i) {
      if (i > 0) pad_to_column(out, line, columns[i]);
      append_printf(out, "%.2f%%", percents[i] * 100);
    }
    pad_to_column(out, line, columns[6]);
    out += std::to_string(f.base_sample);
    pad_to_column(out, line, columns[7]);
    out += std::to_string(f.test_sample);
    pad_to_column(out, line, columns[8]);
    out += f.test_name + "\n";
  }
  return out;
}

}  // namespace profkit::report
