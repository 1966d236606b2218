#include "report/instrprof_overlap.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "format/bytes/number_text.h"
#include "format/instrprof/merge.h"

namespace profkit::report {
namespace {

using instrprof::kNumValueKinds;
using instrprof::Record;
using instrprof::ValueData;
using instrprof::ValueSite;

// Adds one record to a side's totals. Counter sums are taken in 64 bits (wrapping) per
// record and per kind, then added as doubles, as llvm-profdata sums them.
void accumulate(const Record& r, OverlapSums& sums) {
  sums.entries += r.counts.size();
  uint64_t record_sum = 0;
  for (uint64_t c : r.counts) record_sum += c;
  sums.counts += static_cast<double>(record_sum);
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    uint64_t kind_sum = 0;
    for (const ValueSite& site : r.value_sites[k])
      for (const ValueData& v : site) kind_sum += v.count;
    sums.values[k] += static_cast<double>(kind_sum);
  }
}

// A profile's program totals. In an IR-level profile only the records of one kind count:
// context-sensitive ones under --cs, the others without it. `entries` is the number of
// records counted.
OverlapSums profile_sums(const instrprof::Profile& p, bool cs) {
  OverlapSums sums;
  uint64_t records = 0;
  for (const Record& r : p.records) {
    if (p.is_ir() && r.is_context_sensitive() != cs) continue;
    accumulate(r, sums);
    ++records;
  }
  sums.entries = records;
  return sums;
}

// The share both sides agree on for one pair of counts: the smaller of the two shares of
// their totals; nothing when either total is below one.
double score(uint64_t base, uint64_t test, double base_total, double test_total) {
  if (base_total < 1.0 || test_total < 1.0) return 0.0;
  return std::min(static_cast<double>(base) / base_total, static_cast<double>(test) / test_total);
}

// Adds the shares of a function's totals (as fractions of the program's test totals) to a
// mismatch or only-in-test tally.
void add_share(OverlapSums& tally, const OverlapSums& function, const OverlapSums& program_test) {
  tally.entries += 1;
  tally.counts += function.counts / program_test.counts;
  for (size_t k = 0; k < kNumValueKinds; ++k)
    if (program_test.values[k] >= 1.0) tally.values[k] += function.values[k] / program_test.values[k];
}

void sort_by_value(ValueSite& site) {
  std::sort(site.begin(), site.end(),
            [](const ValueData& a, const ValueData& b) { return a.value < b.value; });
}

// BASE's records merged as `llvm-profdata merge` would (one record per name and hash),
// found by name, then hash. A TEST record whose name is known but whose hash is not leaves
// an empty record behind under that hash, as llvm-profdata does (a later TEST record with
// the same name and hash then meets that empty record and counts as a mismatch).
class BaseIndex {
 public:
  // Fails where merging BASE alone fails (an implausible trace stream claim).
  static Expected<BaseIndex> build(const instrprof::Profile& base) {
    PROFKIT_TRY_ASSIGN(instrprof::Profile merged,
                       instrprof::merge_profiles(std::span(&base, 1), {}));
    BaseIndex index;
    index.records_ = std::move(merged.records);
    for (size_t i = 0; i < index.records_.size(); ++i)
      index.by_name_[index.records_[i].name].push_back(i);
    return index;
  }

  bool has_name(const std::string& name) const { return by_name_.contains(name); }

  // The record under (name, hash); nullptr (after adding an empty one) when it is new.
  Record* find_or_add(const std::string& name, uint64_t hash) {
    std::vector<size_t>& ids = by_name_[name];
    for (size_t i : ids)
      if (records_[i].hash == hash) return &records_[i];
    ids.push_back(records_.size());
    Record empty;
    empty.name = name;
    empty.hash = hash;
    records_.push_back(std::move(empty));
    return nullptr;
  }

 private:
  std::vector<Record> records_;
  std::unordered_map<std::string, std::vector<size_t>> by_name_;
};

bool sites_match(const Record& a, const Record& b) {
  if (a.counts.size() != b.counts.size()) return false;
  for (size_t k = 0; k < kNumValueKinds; ++k)
    if (a.value_sites[k].size() != b.value_sites[k].size()) return false;
  return true;
}

// Scores one function present in both profiles under the same hash: value sites first
// (both sides ordered by target value, matching values scored), then the counters. The
// function's own figures are complete (returns true) when its largest TEST counter reaches
// `cutoff`.
bool overlap_record(Record& base, Record& test, OverlapFigures& program, OverlapFigures& function,
                    uint64_t cutoff) {
  accumulate(base, function.base);
  if (!sites_match(base, test)) {
    add_share(program.mismatch, function.test, program.test);
    return false;
  }
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    for (size_t s = 0; s < base.value_sites[k].size(); ++s) {
      ValueSite& b = base.value_sites[k][s];
      ValueSite& t = test.value_sites[k][s];
      sort_by_value(b);
      sort_by_value(t);
      double site_score = 0, function_site_score = 0;
      auto i = b.begin();
      auto j = t.begin();
      while (i != b.end() && j != t.end()) {
        if (i->value == j->value) {
          site_score += score(i->count, j->count, program.base.values[k], program.test.values[k]);
          function_site_score +=
              score(i->count, j->count, function.base.values[k], function.test.values[k]);
          ++i;
        } else if (i->value < j->value) {
          ++i;
          continue;
        }
        ++j;
      }
      program.overlap.values[k] += site_score;
      function.overlap.values[k] += function_site_score;
    }
  }
  double edge_score = 0;
  uint64_t max_count = 0;
  for (size_t c = 0; c < test.counts.size(); ++c) {
    edge_score += score(base.counts[c], test.counts[c], program.base.counts, program.test.counts);
    max_count = std::max(max_count, test.counts[c]);
  }
  program.overlap.counts += edge_score;
  program.overlap.entries += 1;
  if (max_count < cutoff) return false;
  double function_score = 0;
  for (size_t c = 0; c < test.counts.size(); ++c)
    function_score +=
        score(base.counts[c], test.counts[c], function.base.counts, function.test.counts);
  function.overlap.counts = function_score;
  function.overlap.entries = test.counts.size();
  return true;
}

const char* kind_name(size_t kind) {
  switch (kind) {
    case 0: return "IndirectCall";
    case 1: return "MemOP";
    case 2: return "VTable";
    default: return "VP";
  }
}

void append_percent(std::string& out, double share) { append_printf(out, "%.3f%%", share * 100); }
void append_whole(std::string& out, double v) { append_printf(out, "%.0f", v); }

void append_figures(std::string& out, const OverlapFigures& f, bool program) {
  const char* entry = program ? "functions" : "edge counters";
  out += "  # of ";
  out += entry;
  out += " overlap: ";
  append_decimal(out, f.overlap.entries);
  out += '\n';
  if (f.mismatch.entries) {
    out += std::string("  # of ") + entry + " mismatch: ";
    append_decimal(out, f.mismatch.entries);
    out += '\n';
  }
  if (f.unique.entries) {
    out += std::string("  # of ") + entry + " only in test_profile: ";
    append_decimal(out, f.unique.entries);
    out += '\n';
  }
  out += "  Edge profile overlap: ";
  append_percent(out, f.overlap.counts);
  out += '\n';
  if (f.mismatch.entries) {
    out += "  Mismatched count percentage (Edge): ";
    append_percent(out, f.mismatch.counts);
    out += '\n';
  }
  if (f.unique.entries) {
    out += "  Percentage of Edge profile only in test_profile: ";
    append_percent(out, f.unique.counts);
    out += '\n';
  }
  out += "  Edge profile base count sum: ";
  append_whole(out, f.base.counts);
  out += "\n  Edge profile test count sum: ";
  append_whole(out, f.test.counts);
  out += '\n';
  for (size_t k = 0; k < kNumValueKinds; ++k) {
    if (f.base.values[k] < 1.0 && f.test.values[k] < 1.0) continue;
    const std::string name = kind_name(k);
    out += "  " + name + " profile overlap: ";
    append_percent(out, f.overlap.values[k]);
    out += '\n';
    if (f.mismatch.entries) {
      out += "  Mismatched count percentage (" + name + "): ";
      append_percent(out, f.mismatch.values[k]);
      out += '\n';
    }
    if (f.unique.entries) {
      out += "  Percentage of " + name + " profile only in test_profile: ";
      append_percent(out, f.unique.values[k]);
      out += '\n';
    }
    out += "  " + name + " profile base count sum: ";
    append_whole(out, f.base.values[k]);
    out += "\n  " + name + " profile test count sum: ";
    append_whole(out, f.test.values[k]);
    out += '\n';
  }
}

nlohmann::ordered_json sums_json(const OverlapSums& s) {
  nlohmann::ordered_json j;
  j["entries"] = s.entries;
  j["edge"] = s.counts;
  nlohmann::ordered_json values;
  for (size_t k = 0; k < kNumValueKinds; ++k) values[kind_name(k)] = s.values[k];
  j["values"] = std::move(values);
  return j;
}

nlohmann::ordered_json figures_json(const OverlapFigures& f) {
  nlohmann::ordered_json j;
  j["base_sums"] = sums_json(f.base);
  j["test_sums"] = sums_json(f.test);
  j["overlap"] = sums_json(f.overlap);
  j["mismatch"] = sums_json(f.mismatch);
  j["only_in_test"] = sums_json(f.unique);
  return j;
}

}  // namespace

Expected<InstrOverlap> overlap_instr(const instrprof::Profile& base,
                                     const instrprof::Profile& test,
                                     const InstrOverlapOptions& options) {
  InstrOverlap result;
  OverlapFigures& program = result.program;
  program.base = profile_sums(base, options.cs);
  program.test = profile_sums(test, options.cs);
  if (program.base.counts < 1.0) {
    result.zero_sum_profile = options.base_name;
    return result;
  }
  if (program.test.counts < 1.0) {
    result.zero_sum_profile = options.test_name;
    return result;
  }
  PROFKIT_TRY_ASSIGN(BaseIndex index, BaseIndex::build(base));
  for (const Record& original : test.records) {
    OverlapFigures function;
    function.name = original.name;
    function.hash = original.hash;
    accumulate(original, function.test);
    if (!index.has_name(original.name)) {
      add_share(program.unique, function.test, program.test);
      continue;
    }
    if (function.test.counts < 1.0) {
      program.overlap.entries += 1;
      continue;
    }
    Record* match = index.find_or_add(original.name, original.hash);
    if (match == nullptr) {
      add_share(program.mismatch, function.test, program.test);
      continue;
    }
    const bool listed =
        !options.function.empty() && original.name.find(options.function) != std::string::npos;
    Record test_record = original;
    if (overlap_record(*match, test_record, program, function,
                       listed ? 0 : options.value_cutoff))
      result.functions.push_back(std::move(function));
  }
  return result;
}

std::string render_overlap_text(const InstrOverlap& overlap, const InstrOverlapOptions& options) {
  std::string out;
  if (!overlap.zero_sum_profile.empty()) {
    out = "Sum of edge counts for profile " + overlap.zero_sum_profile + " is 0.\n";
    return out;
  }
  for (const OverlapFigures& f : overlap.functions) {
    out += "Function level:\n  Function: " + f.name + " (Hash=";
    append_decimal(out, f.hash);
    out += ")\n";
    append_figures(out, f, false);
  }
  out += "Profile overlap information for base_profile: " + options.base_name +
         " and test_profile: " + options.test_name + "\nProgram level:\n";
  append_figures(out, overlap.program, true);
  return out;
}

std::string render_overlap_json(const InstrOverlap& overlap, const InstrOverlapOptions& options) {
  nlohmann::ordered_json j;
  j["base_profile"] = options.base_name;
  j["test_profile"] = options.test_name;
  if (!overlap.zero_sum_profile.empty()) {
    j["zero_sum_profile"] = overlap.zero_sum_profile;
    return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  j["program"] = figures_json(overlap.program);
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const OverlapFigures& f : overlap.functions) {
    nlohmann::ordered_json fj;
    fj["name"] = f.name;
    fj["hash"] = f.hash;
    fj.update(figures_json(f));
    functions.push_back(std::move(fj));
  }
  j["functions"] = std::move(functions);
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace profkit::report
