#include "profgen/generate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "format/bytes/hash.h"

namespace profkit::profgen {

namespace {

using sampleprof::FunctionId;
using sampleprof::FunctionSamples;
using sampleprof::LineLocation;
using sampleprof::MergeResult;
using sampleprof::Profile;


// Splits overlapping ranges at every boundary into disjoint pieces carrying the sum of the
// counts covering them. Zero-count ranges keep the gaps they cover as zero pieces; gaps
// covered by no range are dropped.
RangeCounts disjoint_ranges(const RangeCounts& ranges) {
  struct Boundary {
    uint64_t begin = UINT64_MAX;  // sum of counts beginning here (UINT64_MAX: none)
    uint64_t end = UINT64_MAX;    // sum of counts ending here
    bool zero_begin = false, zero_end = false;
  };
  std::map<uint64_t, Boundary> points;
  for (const auto& [range, count] : ranges) {
    Boundary& b = points[range.first];
    Boundary& e = points[range.second];
    b.begin = (b.begin == UINT64_MAX ? 0 : b.begin) + count;
    e.end = (e.end == UINT64_MAX ? 0 : e.end) + count;
    if (count == 0) {
      b.zero_begin = true;
      e.zero_end = true;
    }
  }
  RangeCounts out;
  uint64_t begin = UINT64_MAX;
  int zero_depth = 0;
  uint64_t count = 0;
  for (const auto& [address, p] : points) {
    if (p.begin != UINT64_MAX) {
      if (begin != UINT64_MAX) out[{begin, address - 1}] = count;
      count += p.begin;
      begin = address;
      zero_depth += p.zero_begin;
    }
    if (p.end != UINT64_MAX) {
      out[{begin, address}] = count;
      count -= p.end;
      begin = address + 1;
      zero_depth -= p.zero_end;
      if (count == 0 && zero_depth == 0) begin = UINT64_MAX;
    }
  }
  return out;
}

// The sampled ranges plus every range of each sampled function with count 0, made disjoint.
RangeCounts ranges_with_zero_fill(const ProfiledBinary& binary, const RangeCounts& ranges,
                                  bool all_functions) {
  RangeCounts all = ranges;
  if (all_functions) {
    for (const auto& f : binary.functions())
      for (const auto& [start, end] : f.ranges) all[{start, end - 1}] += 0;
  } else {
    for (const auto& [range, count] : ranges) {
      const FuncRange* r = binary.find_func_range(range.first);
      if (r == nullptr) continue;
      for (const auto& [start, end] : binary.functions()[r->function].ranges)
        all[{start, end - 1}] += 0;
    }
  }
  return disjoint_ranges(all);
}

// Calls fn(index) for each instruction in [start, end]: from the first at or after start.
template <class Fn>
void for_each_instruction(const ProfiledBinary& binary, uint64_t start, uint64_t end, Fn fn) {
  for (size_t i = binary.lower_bound(start);
       i < binary.instruction_count() && binary.instruction_address(i) <= end; ++i)
    fn(i);
}

using sampleprof::Frame;  // the call site in each frame, or the leaf's line or probe

class Builder {
 public:
  Builder(ProfiledBinary& binary, Profile& profile) : binary_(binary), profile_(profile) {}

  FunctionSamples& top_level(FunctionId id) {
    auto [it, added] = profile_.functions.try_emplace(id.hash());
    if (added) it->second.name = id;
    return it->second;
  }

  void set_hash(FunctionSamples& f) {
    if (binary_.uses_probes()) f.checksum = binary_.probe_function_hash(f.name.hash());
  }

  // The profile of the innermost frame, created along the inline chain; `count` is added to
  // the total of every level.
  FunctionSamples& leaf_profile(const std::vector<Frame>& frames, uint64_t count) {
    FunctionSamples* f = &top_level(frames[0].name);
    add_saturating(f->total, count);
    set_hash(*f);
    for (size_t i = 1; i < frames.size(); ++i) {
      const LineLocation site{frames[i - 1].location.line,
                              base_discriminator(frames[i - 1].location.discriminator,
                                                 binary_.uses_fs_discriminators())};
      auto& callees = f->callsites[site];
      const FunctionId id = frames[i].name;
      auto [it, added] = callees.try_emplace(id);
      if (added) it->second.name = id;
      f = &it->second;
      add_saturating(f->total, count);
      set_hash(*f);
    }
    return *f;
  }

 private:
  ProfiledBinary& binary_;
  Profile& profile_;
};

void line_frames(ProfiledBinary& binary, uint64_t address, std::vector<Frame>& out) {
  out.clear();
  for (const InlineFrame& f : binary.inline_stack(address))
    out.push_back(Frame{FunctionId(f.function), LineLocation{f.line_offset, f.discriminator}});
}

void probe_frames(const ProfiledBinary& binary, const probe::Probe& p, std::vector<Frame>& out) {
  out.clear();
  append_probe_frames(binary.probes(), p, out);
}

void generate_line_based(ProfiledBinary& binary, const SampleCounter& counter,
                         const GenerateOptions& options, Profile& profile) {
  Builder builder(binary, profile);
  const bool fs = binary.uses_fs_discriminators();
  std::vector<Frame> frames;
  // Bodies: per instruction, totals in bytes x count, per line the largest count.
  for (const auto& [range, count] :
       ranges_with_zero_fill(binary, counter.ranges, options.fill_zero_for_all_funcs)) {
    for_each_instruction(binary, range.first, range.second, [&](size_t i) {
      line_frames(binary, binary.instruction_address(i), frames);
      if (frames.empty()) return;
      FunctionSamples& f =
          builder.leaf_profile(frames, count * binary.instruction_size(i));
      const uint32_t disc = frames.back().location.discriminator;
      const LineLocation loc{frames.back().location.line, base_discriminator(disc, fs)};
      const uint64_t scaled = count * duplication_factor(disc, fs);
      auto found = f.body.find(loc);
      const uint64_t previous = found == f.body.end() ? 0 : found->second.samples;
      if (previous <= scaled) f.add_body(loc, scaled - previous);
    });
  }
  // Calls: targets at the calling line, head samples of the callee.
  for (const auto& [branch, count] : counter.branches) {
    const std::string_view callee = binary.callee_name(branch.second);
    if (callee.empty()) continue;
    line_frames(binary, branch.first, frames);
    if (!frames.empty()) {
      FunctionSamples& f = builder.leaf_profile(frames, 0);
      const LineLocation loc{frames.back().location.line,
                             base_discriminator(frames.back().location.discriminator, fs)};
      f.add_target(loc, FunctionId(callee), count);
    }
    add_saturating(builder.top_level(FunctionId(callee)).head, count);
  }
}

// llvm-profgen keeps its per-probe counts in an unordered_map keyed by the address of each
// probe object; the objects sit in one vector in decode order, holding only the probes of
// functions that have samples. Bucket equality of such keys (and so the map's iteration
// order) depends only on their differences, so position x object size reproduces it.
// llvm-profgen decodes only the probes of functions with samples: the others (which
// --fill-zero-for-all-funcs ranges reach) are never counted.
constexpr uint64_t kNotDecoded = UINT64_MAX;

std::vector<uint64_t> probe_slots(const ProfiledBinary& binary, const SampleCounter& counter) {
  constexpr uint64_t kDecodedProbeSize = 32;  // sizeof(MCDecodedPseudoProbe), LLVM 22
  std::set<uint32_t> functions;
  note_profiled_functions(binary, counter, functions);
  std::unordered_set<uint64_t> profiled;  // their GUIDs
  for (uint32_t f : functions) profiled.insert(md5_name_ref(binary.functions()[f].name));
  const probe::ProbeMap& map = binary.probes();
  std::vector<uint64_t> slots(map.probes().size(), 0);
  uint64_t next = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    const auto& node = map.nodes()[map.probes()[i].node];
    if (profiled.count(map.nodes()[node.top_level].guid)) slots[i] = next++ * kDecodedProbeSize;
    else slots[i] = kNotDecoded;
  }
  return slots;
}

void generate_probe_based(ProfiledBinary& binary, const SampleCounter& counter,
                          const GenerateOptions& options, Profile& profile) {
  profile.is_probe_based = true;
  Builder builder(binary, profile);
  const probe::ProbeMap& map = binary.probes();
  // Per probe, the count of every piece holding its address (probes sit on the first
  // instruction of their block). The profiles are created in the order llvm-profgen's
  // pointer-keyed hash map of probes yields them, which shows in extbinary's function
  // metadata; see probe_slots.
  const std::vector<uint64_t> slots = probe_slots(binary, counter);
  std::unordered_map<uint64_t, uint64_t> by_slot;  // slot -> count
  std::unordered_map<uint64_t, uint32_t> slot_probe;
  for (const auto& [range, count] :
       ranges_with_zero_fill(binary, counter.ranges, options.fill_zero_for_all_funcs)) {
    for_each_instruction(binary, range.first, range.second, [&](size_t i) {
      for (uint32_t at : map.find(binary.instruction_address(i))) {
        if (slots[at] == kNotDecoded) continue;
        by_slot[slots[at]] += count;
        slot_probe[slots[at]] = at;
      }
    });
  }
  std::vector<Frame> frames;
  std::vector<std::pair<uint32_t, uint64_t>> ordered;
  for (const auto& [slot, count] : by_slot) ordered.emplace_back(slot_probe[slot], count);
  for (const auto& [at, count] : ordered) {
    const probe::Probe& p = map.probes()[at];
    probe_frames(binary, p, frames);
    FunctionSamples& f = builder.leaf_profile(frames, count);
    f.add_body(LineLocation{p.index, p.discriminator}, count);
    if (p.index == 1) add_saturating(f.head, count);
  }
  for (const auto& [branch, count] : counter.branches) {
    const std::string_view callee = binary.callee_name(branch.second);
    if (callee.empty()) continue;
    const probe::Probe* call = map.call_probe_at(branch.first);
    if (call == nullptr) continue;
    probe_frames(binary, *call, frames);
    FunctionSamples& f = builder.leaf_profile(frames, 0);
    f.add_target(frames.back().location, FunctionId(callee), count);
  }
}


bool is_ambiguous(const FunctionSamples& f) {
  const std::string_view name = f.name.is_md5() ? std::string_view() : f.name.name;
  return name.starts_with("__cxx_global_var_init") || name.starts_with("__tls_init");
}

// Removes ambiguous inlinees; true when `f` itself is ambiguous.
bool filter_ambiguous(FunctionSamples& f) {
  if (is_ambiguous(f)) return true;
  for (auto& [loc, callees] : f.callsites)
    for (auto it = callees.begin(); it != callees.end();)
      it = filter_ambiguous(it->second) ? callees.erase(it) : std::next(it);
  return false;
}

void body_samples_and_size(const FunctionSamples& f, uint64_t& samples, uint64_t& size) {
  size += f.body.size();
  for (const auto& [loc, rec] : f.body) samples += rec.samples;
  for (const auto& [loc, callees] : f.callsites)
    for (const auto& [name, callee] : callees) body_samples_and_size(callee, samples, size);
}

double profile_density(const Profile& profile, int32_t cutoff) {
  std::vector<std::pair<double, uint64_t>> list;
  uint64_t total = 0;
  for (const auto& [key, f] : profile.functions) {
    uint64_t samples = 0, size = 0;
    body_samples_and_size(f, samples, size);
    if (size == 0) continue;
    list.emplace_back(static_cast<double>(samples) / static_cast<double>(size), samples);
    total += samples;
  }
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second < b.second;
  });
  // The cutoff is applied in single precision, as llvm-profgen computes it.
  const float goal = static_cast<float>(total) * static_cast<float>(cutoff) / 1000000;
  double density = 0.0;
  uint64_t accumulated = 0;
  for (size_t i = 0; static_cast<float>(accumulated) < goal && i < list.size(); ++i) {
    accumulated += list[i].second;
    density = list[i].first;
  }
  return density;
}

uint64_t threshold_at(const sampleprof::Summary& summary, uint32_t cutoff) {
  for (const auto& e : summary.detailed)
    if (e.cutoff >= cutoff) return e.min_count;
  return 0;
}

}  // namespace

RangeCounts make_disjoint(const RangeCounts& ranges) { return disjoint_ranges(ranges); }

void append_probe_frames(const probe::ProbeMap& map, const probe::Probe& p,
                         std::vector<Frame>& out) {
  for (const auto& c : map.inline_context(p)) {
    // An unknown call site (index 0: call sites merged by the optimizer): nothing above it
    // can be named, so the whole context built so far (the callers' frames in `out` too,
    // as llvm-profgen does) restarts below it.
    if (c.site == 0) {
      out.clear();
      continue;
    }
    out.push_back(Frame{FunctionId(map.name(c.guid)), LineLocation{c.site, 0}});
  }
  out.push_back(Frame{FunctionId(map.name(map.nodes()[p.node].guid)), LineLocation{p.index, 0}});
}

void add_saturating(uint64_t& into, uint64_t n) {
  MergeResult ignored = MergeResult::ok;
  into = sampleprof::saturating_add_mul(into, n, 1, ignored);
}

void update_callsite_samples(FunctionSamples& f) {
  for (auto& [loc, rec] : f.body) {
    uint64_t calls = 0;
    for (const auto& [target, n] : rec.targets) calls += n;
    if (calls > rec.samples) add_saturating(rec.samples, calls - rec.samples);
  }
}

uint64_t update_total_samples(FunctionSamples& f) {
  uint64_t total = 0;
  for (const auto& [loc, rec] : f.body) add_saturating(total, rec.samples);
  for (auto& [loc, callees] : f.callsites)
    for (auto& [name, callee] : callees) add_saturating(total, update_total_samples(callee));
  f.total = total;
  return total;
}

void filter_ambiguous_profiles(Profile& profile) {
  for (auto it = profile.functions.begin(); it != profile.functions.end();)
    it = filter_ambiguous(it->second) ? profile.functions.erase(it) : std::next(it);
}

uint64_t summary_threshold(const sampleprof::Summary& summary, uint32_t cutoff) {
  return threshold_at(summary, cutoff);
}

void check_density(const Profile& profile, const PostProcessOptions& options,
                   const std::function<void(std::string_view)>& warn,
                   const std::function<void(std::string_view)>& out) {
  const double density = profile_density(profile, options.density_cutoff_hot);
  char buf[256];
  if (density == 0.0) {
    warn("The output profile is empty or the --profile-density-cutoff-hot option is set too "
         "low. Please check your command.");
  } else if (density < options.density_threshold) {
    std::snprintf(buf, sizeof buf, "%.1f", options.density_threshold / density);
    warn("Sample PGO is estimated to optimize better with " + std::string(buf) +
         "x more samples. Please consider increasing sampling rate or profiling for longer "
         "duration to get more samples.");
  }
  if (options.show_density) {
    std::snprintf(buf, sizeof buf,
                  "Functions with density >= %.1f account for %.2f%% total sample counts.\n",
                  density, static_cast<double>(options.density_cutoff_hot) / 10000);
    out(buf);
  }
}

Profile generate_context_insensitive(ProfiledBinary& binary, const SampleCounter& counter,
                                     const GenerateOptions& options) {
  Profile profile;
  profile.is_fs = binary.uses_fs_discriminators();
  if (binary.uses_probes()) generate_probe_based(binary, counter, options, profile);
  else generate_line_based(binary, counter, options, profile);
  // A call's line counts at least its calls (top-level bodies only, as LLVM does it).
  for (auto& [key, f] : profile.functions) update_callsite_samples(f);
  if (options.update_total_samples)
    for (auto& [key, f] : profile.functions) update_total_samples(f);
  return profile;
}

void post_process(Profile& profile, const PostProcessOptions& options,
                  const std::function<void(std::string_view)>& warn,
                  const std::function<void(std::string_view)>& out) {
  const sampleprof::Summary summary = sampleprof::compute_summary(profile);
  const uint64_t cold = options.cold_count ? *options.cold_count
                                           : summary_threshold(summary, options.cutoff_cold);
  if (options.trim_cold_profile) {
    for (auto it = profile.functions.begin(); it != profile.functions.end();)
      it = it->second.total < cold ? profile.functions.erase(it) : std::next(it);
  }
  filter_ambiguous_profiles(profile);
  check_density(profile, options, warn, out);
}

}  // namespace profkit::profgen
