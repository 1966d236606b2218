// Loading raw, YAML and indexed memprof profiles into the heap-report model, and the
// verdicts clang 22 would give each context (docs/formats/memprof.md G.2).
#include "report/heap_profile.h"

#include <cxxabi.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <unordered_map>

#include "format/memprof/input.h"
#include "io/mapped_file.h"
#include "symbolize/function_table.h"
#include "symbolize/memprof_pipeline.h"
#include "symbolize/memprof_symbolizer.h"

namespace profkit::report {
namespace {

// Itanium demangling for people; other names are shown as they are.
std::string demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (out == nullptr || status != 0) {
    std::free(out);
    return name;
  }
  std::string result(out);
  std::free(out);
  return result;
}

std::string guid_text(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, guid);
  return buf;
}

void set_names(HeapFrame& f, const std::string& linkage) {
  f.linkage_name = linkage;
  f.function = linkage.empty() ? guid_text(f.guid) : demangle(linkage);
}

memprof::CallStack to_memprof(const std::vector<HeapFrame>& frames) {
  memprof::CallStack stack;
  stack.reserve(frames.size());
  for (const HeapFrame& f : frames)
    stack.push_back(memprof::Frame{f.guid, f.line_offset, f.column, f.inlined});
  return stack;
}

// Adds a context, merging it into an earlier one with the same frames (A.8 rules).
class ContextSet {
 public:
  explicit ContextSet(std::vector<HeapContext>& out) : out_(out) {}
  void add(std::vector<HeapFrame> frames, const memprof::MemInfoBlock& mib,
           const std::vector<uint64_t>& histogram, const memprof::LivePeakEntry* live = nullptr) {
    const uint64_t id = context_id(frames);
    auto [it, inserted] = index_.try_emplace(id, out_.size());
    if (inserted) {
      HeapContext c;
      c.id = id;
      c.frames = std::move(frames);
      c.mib = mib;
      c.histogram = histogram;
      out_.push_back(std::move(c));
    } else {
      HeapContext& c = out_[it->second];
      memprof::merge_mib(c.mib, c.histogram, mib, histogram);
    }
    if (live != nullptr) {
      HeapContext& c = out_[it->second];
      c.live_blocks += live->live_blocks;
      c.live_bytes += live->live_bytes;
      c.peak_blocks += live->peak_blocks;
      c.peak_bytes += live->peak_bytes;
    }
  }
  bool contains(uint64_t id) const { return index_.count(id) != 0; }

 private:
  std::vector<HeapContext>& out_;
  std::unordered_map<uint64_t, size_t> index_;
};

Expected<HeapProfile> load_raw(memprof::MergedRaw merged_raw, const HeapLoadOptions& options,
                               std::string* failed_path) {
  symbolize::MemProfSymbolizerOptions sym_options;
  // Every binary matched to its own segments by build id (PIE and shared libraries too).
  sym_options.llvm_compatible = false;
  // A stripped program (anything run under `profkit run`) still gets function names.
  sym_options.symbol_tables = true;
  PROFKIT_TRY_ASSIGN(symbolize::SymbolizedRaw raw,
                     symbolize::symbolize_raw(std::move(merged_raw), options.binaries, sym_options,
                                              failed_path));
  const memprof::MergedRaw& merged = raw.merged;
  symbolize::MemProfSymbolizer& symbolizer = *raw.symbolizer;
  HeapProfile profile;
  profile.kind = "raw v" + std::to_string(merged.version);
  profile.binaries = symbolizer.matched_binaries();
  std::unordered_map<uint64_t, const memprof::LivePeakEntry*> live;
  if (merged.live_peak) {
    const memprof::LivePeak& lp = *merged.live_peak;
    LivePeakSummary& s = profile.live_peak;
    s.present = true;
    s.at_exit = lp.at_exit;
    s.dump_time_ms = lp.dump_time_ms;
    s.peak_time_ms = lp.peak_time_ms;
    s.peak_bytes = lp.peak_bytes;
    s.peak_blocks = lp.peak_blocks;
    for (const memprof::LivePeakEntry& e : lp.entries) {
      live.emplace(e.stack_id, &e);
      s.live_bytes += e.live_bytes;
      s.live_blocks += e.live_blocks;
    }
  }
  ContextSet set(profile.contexts);
  const uint64_t total = merged.mibs.size();
  for (size_t m = 0; m < merged.mibs.size(); ++m) {
    if (options.progress && (m % 64 == 0)) options.progress(m, total);
    const memprof::RawMib& mib = merged.mibs[m];
    const memprof::RawStack& stack = merged.stacks[merged.mib_stack[m]];
    std::vector<HeapFrame> frames;
    for (uint64_t pc : stack.pcs) {
      const memprof::SymbolizedPc* s = symbolizer.symbolize(pc);
      if (s == nullptr) continue;
      for (size_t j = 0; j < s->frames.size(); ++j) {
        const memprof::Frame& mf = s->frames[j];
        HeapFrame f;
        f.guid = mf.function;
        f.line_offset = mf.line_offset;
        f.column = mf.column;
        f.inlined = mf.is_inline;
        f.pc = pc;
        set_names(f, j < s->names.size() ? s->names[j] : std::string());
        if (j < s->sources.size()) {
          f.file = s->sources[j].file;
          f.line = s->sources[j].line;
        }
        frames.push_back(std::move(f));
      }
    }
    if (frames.empty()) {
      ++profile.dropped_contexts;
      profile.dropped_allocations += mib.mib.AllocCount;
      continue;
    }
    const auto found = live.find(mib.stack_id);
    set.add(std::move(frames), mib.mib, mib.histogram, found == live.end() ? nullptr : found->second);
  }
  if (options.progress) options.progress(total, total);
  // A program that allocated nothing has an empty report, not an error.
  if (profile.contexts.empty() && !merged.mibs.empty()) {
    // The usual reason: a stripped binary (a system program under `profkit run`).
    if (symbolizer.stats().no_debug_info != 0)
      return make_error(ErrorCode::malformed, kNoOffset,
                        "no allocation context could be symbolized: the binaries have no debug "
                        "information at the allocation frames; build with -g, or install "
                        "their debug files (Debian's -dbgsym packages: /usr/lib/debug/.build-id "
                        "is searched)");
    return make_error(ErrorCode::malformed, kNoOffset,
                      "no allocation context could be symbolized with the given binaries");
  }
  return profile;
}

// Contexts of symbolized records (YAML, indexed). A context is listed under every function
// of its inlined leaf chain; the copies are identical, so only the first is kept. Copies
// inside one record are distinct raw stacks that symbolized alike and are merged.
void add_records(HeapProfile& profile, const memprof::MemProfData& data,
                 const symbolize::FunctionTable& functions) {
  ContextSet set(profile.contexts);
  for (const memprof::Record& record : data.records) {
    std::unordered_map<uint64_t, bool> local;
    for (const memprof::AllocSite& site : record.alloc_sites) {
      std::vector<HeapFrame> frames;
      const auto stack = data.stacks.stack(site.stack);
      frames.reserve(stack.size());
      for (const memprof::Frame& mf : stack) {
        HeapFrame f;
        f.guid = mf.function;
        f.line_offset = mf.line_offset;
        f.column = mf.column;
        f.inlined = mf.is_inline;
        std::string linkage;
        if (auto n = data.names.find(mf.function); n != data.names.end()) linkage = n->second;
        if (auto fn = functions.find(mf.function); fn != functions.end()) {
          if (linkage.empty()) linkage = fn->second.name;
          if (fn->second.decl_line != 0) {
            f.line = fn->second.decl_line + mf.line_offset;
            f.file = fn->second.decl_file;
          }
        }
        set_names(f, linkage);
        frames.push_back(std::move(f));
      }
      const uint64_t id = context_id(frames);
      if (set.contains(id) && local.count(id) == 0) continue;  // listed by an earlier record
      local.emplace(id, true);
      set.add(std::move(frames), site.mib, site.histogram);
    }
  }
}

std::string number(double v) {
  char buf[32];
  if (v != 0 && std::fabs(v) < 0.001)
    std::snprintf(buf, sizeof buf, "%.2g", v);
  else if (std::fabs(v) < 100)
    std::snprintf(buf, sizeof buf, "%.3g", v);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

std::string lifetime_text(double ms) { return number(ms / 1000) + " s"; }

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::cold: return "cold";
    case Verdict::hot: return "hot";
    case Verdict::not_cold: break;
  }
  return "notcold";
}

double HeapContext::avg_size() const {
  return mib.AllocCount == 0 ? 0 : static_cast<double>(mib.TotalSize) / mib.AllocCount;
}
double HeapContext::avg_lifetime_ms() const {
  return mib.AllocCount == 0 ? 0 : static_cast<double>(mib.TotalLifetime) / mib.AllocCount;
}
double HeapContext::avg_accesses() const {
  return mib.AllocCount == 0 ? 0 : static_cast<double>(mib.TotalAccessCount) / mib.AllocCount;
}
double HeapContext::lifetime_access_density() const {
  return mib.AllocCount == 0
             ? 0
             : static_cast<double>(mib.TotalLifetimeAccessDensity) / mib.AllocCount / 100;
}

uint64_t context_id(const std::vector<HeapFrame>& frames) {
  return memprof::call_stack_id(to_memprof(frames));
}

void classify_contexts(HeapProfile& profile, const memprof::ClassifyOptions& t) {
  HeapSummary s;
  for (HeapContext& c : profile.contexts) {
    switch (memprof::classify(c.mib, t)) {
      case memprof::AllocType::cold: c.verdict = Verdict::cold; break;
      case memprof::AllocType::hot: c.verdict = Verdict::hot; break;
      case memprof::AllocType::not_cold: c.verdict = Verdict::not_cold; break;
    }
    const std::string density = "density " + number(c.lifetime_access_density());
    const std::string lifetime = "lifetime " + lifetime_text(c.avg_lifetime_ms());
    const std::string cold_density = number(t.lifetime_access_density_cold_threshold);
    const std::string cold_lifetime = std::to_string(t.ave_lifetime_cold_threshold_s) + " s";
    const std::string hot_density = std::to_string(t.min_ave_lifetime_access_density_hot_threshold);
    if (c.mib.AllocCount == 0) {
      c.why = "notcold: no allocations";
    } else if (c.verdict == Verdict::cold) {
      c.why = "cold: " + density + " < " + cold_density + " and " + lifetime +
              " >= " + cold_lifetime;
    } else if (c.verdict == Verdict::hot) {
      c.why = "hot: " + density + " > " + hot_density;
    } else {
      // Name the condition(s) that kept it from cold, as classify() tests them (float).
      const float d = static_cast<float>(c.mib.TotalLifetimeAccessDensity) /
                      static_cast<float>(c.mib.AllocCount) / 100;
      const float l = static_cast<float>(c.mib.TotalLifetime) / static_cast<float>(c.mib.AllocCount);
      std::string reasons;
      if (!(d < t.lifetime_access_density_cold_threshold))
        reasons = density + " >= " + cold_density;
      if (!(l >= static_cast<float>(t.ave_lifetime_cold_threshold_s * 1000)))
        reasons += (reasons.empty() ? "" : " and ") + lifetime + " < " + cold_lifetime;
      c.why = "notcold: " + reasons;
      if (t.use_hot_hints) c.why += "; not hot: " + density + " <= " + hot_density;
    }
    ++s.contexts;
    s.allocations += c.mib.AllocCount;
    s.bytes += c.mib.TotalSize;
    s.accesses += c.mib.TotalAccessCount;
    switch (c.verdict) {
      case Verdict::cold: ++s.cold_contexts; s.cold_bytes += c.mib.TotalSize; break;
      case Verdict::hot: ++s.hot_contexts; s.hot_bytes += c.mib.TotalSize; break;
      case Verdict::not_cold: ++s.not_cold_contexts; s.not_cold_bytes += c.mib.TotalSize; break;
    }
  }
  profile.summary = s;
}

Expected<HeapProfile> load_heap_profile(const std::string& path, const HeapLoadOptions& options) {
  if (options.failed_path != nullptr) *options.failed_path = path;
  PROFKIT_TRY_ASSIGN(MappedFile file, MappedFile::open(path));
  PROFKIT_TRY_ASSIGN(memprof::MemProfFile input, memprof::read_memprof_file(file.bytes()));
  HeapProfile profile;
  if (input.kind == memprof::InputKind::raw) {
    PROFKIT_TRY_ASSIGN(profile, load_raw(std::move(input.raw), options, options.failed_path));
  } else {
    memprof::MemProfData data;
    if (input.kind == memprof::InputKind::yaml) {
      data = std::move(input.yaml.data);
      profile.kind = "yaml";
    } else {
      const memprof::IndexedMemProf& idx = input.indexed;
      profile.kind = "indexed v" + std::to_string(idx.version);
      auto stored = [&idx](uint64_t tag) {
        return std::find(idx.schema.begin(), idx.schema.end(), tag) != idx.schema.end();
      };
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  if (!stored(Tag)) profile.absent_fields.push_back(#Name);
#include "format/memprof/mib_fields.def"
      data = std::move(input.indexed.data);
    }
    symbolize::FunctionTable functions;
    if (!options.binaries.empty()) {
      if (options.progress) options.progress(0, 1);
      auto table = symbolize::read_function_table(options.binaries, &profile.binaries);
      if (!table) {
        if (options.failed_path != nullptr && options.binaries.size() == 1)
          *options.failed_path = options.binaries.front();
        return Unexpected{std::move(table).error()};
      }
      functions = std::move(*table);
      if (options.progress) options.progress(1, 1);
    }
    add_records(profile, data, functions);
  }
  profile.path = path;
  classify_contexts(profile, options.thresholds);
  if (options.failed_path != nullptr) options.failed_path->clear();
  return profile;
}

HeapProfile merge_heap_profiles(std::vector<HeapProfile> profiles,
                                const memprof::ClassifyOptions& thresholds) {
  HeapProfile out;
  if (profiles.empty()) return out;
  out.kind = profiles.front().kind;
  out.live_peak.present = out.live_peak.at_exit = true;
  ContextSet set(out.contexts);
  for (size_t i = 0; i < profiles.size(); ++i) {
    HeapProfile& p = profiles[i];
    out.path += (i == 0 ? "" : ", ") + p.path;
    out.binaries.insert(out.binaries.end(), p.binaries.begin(), p.binaries.end());
    if (p.kind != out.kind) out.kind = "mixed";
    for (HeapContext& c : p.contexts) {
      memprof::LivePeakEntry live;
      live.live_blocks = c.live_blocks;
      live.live_bytes = c.live_bytes;
      live.peak_blocks = c.peak_blocks;
      live.peak_bytes = c.peak_bytes;
      set.add(std::move(c.frames), c.mib, c.histogram, &live);
    }
    std::vector<std::string>& absent = out.absent_fields;
    for (std::string& f : p.absent_fields)
      if (std::find(absent.begin(), absent.end(), f) == absent.end()) absent.push_back(std::move(f));
    out.dropped_contexts += p.dropped_contexts;
    out.dropped_allocations += p.dropped_allocations;
    // Each process's live data is its own: leaks add up; peaks are summed as an upper
    // bound of the processes' heaps at one moment (they need not have peaked together).
    LivePeakSummary& l = out.live_peak;
    const LivePeakSummary& q = p.live_peak;
    l.present &= q.present;
    l.at_exit &= q.at_exit;
    l.live_bytes += q.live_bytes;
    l.live_blocks += q.live_blocks;
    l.peak_bytes += q.peak_bytes;
    l.peak_blocks += q.peak_blocks;
    l.dump_time_ms = std::max(l.dump_time_ms, q.dump_time_ms);
    l.peak_time_ms = std::max(l.peak_time_ms, q.peak_time_ms);
  }
  if (!out.live_peak.present) out.live_peak = LivePeakSummary{};
  out.kind = std::to_string(profiles.size()) + " profiles, " + out.kind;
  classify_contexts(out, thresholds);
  return out;
}

bool parse_sort_key(std::string_view text, SortKey& key) {
  static constexpr std::pair<std::string_view, SortKey> kKeys[] = {
      {"bytes", SortKey::bytes},       {"count", SortKey::count},
      {"accesses", SortKey::accesses}, {"density", SortKey::density},
      {"lifetime", SortKey::lifetime}, {"live", SortKey::live},
      {"peak", SortKey::peak}};
  for (const auto& [name, value] : kKeys) {
    if (text == name) {
      key = value;
      return true;
    }
  }
  return false;
}

std::vector<const HeapContext*> sorted_contexts(const HeapProfile& profile, SortKey key) {
  std::vector<const HeapContext*> out;
  out.reserve(profile.contexts.size());
  for (const HeapContext& c : profile.contexts) out.push_back(&c);
  auto metric = [key](const HeapContext* c) -> double {
    switch (key) {
      case SortKey::bytes: return static_cast<double>(c->mib.TotalSize);
      case SortKey::count: return c->mib.AllocCount;
      case SortKey::accesses: return static_cast<double>(c->mib.TotalAccessCount);
      case SortKey::density: return c->lifetime_access_density();
      case SortKey::lifetime: return c->avg_lifetime_ms();
      case SortKey::live: return static_cast<double>(c->live_bytes);
      case SortKey::peak: return static_cast<double>(c->peak_bytes);
    }
    return 0;
  };
  std::sort(out.begin(), out.end(), [&](const HeapContext* a, const HeapContext* b) {
    const double ma = metric(a), mb = metric(b);
    if (ma != mb) return ma > mb;
    return a->id < b->id;
  });
  return out;
}

}  // namespace profkit::report
