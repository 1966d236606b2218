// Raw -> records conversion (D.6, C.9), record-level merging, ids and classification.
#include "format/memprof/records.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "format/blake3/blake3.h"
#include "format/bytes/cursor.h"
#include "format/bytes/hash.h"

namespace profkit::memprof {
namespace {

void put_frame_bytes(std::vector<uint8_t>& out, const Frame& f, bool with_inline) {
  uint8_t buf[17];
  store_le<uint64_t>(buf, f.function);
  store_le<uint32_t>(buf + 8, f.line_offset);
  store_le<uint32_t>(buf + 12, f.column);
  buf[16] = f.is_inline ? 1 : 0;
  out.insert(out.end(), buf, buf + (with_inline ? 17 : 16));
}

// Finds the record for `guid`, creating it at the end.
Record& record_for(MemProfData& data, std::unordered_map<uint64_t, size_t>& index,
                   uint64_t guid) {
  auto [it, inserted] = index.try_emplace(guid, data.records.size());
  if (inserted) data.records.push_back(Record{guid, {}, {}});
  return data.records[it->second];
}

}  // namespace

std::string_view canonical_function_name(std::string_view name) {
  for (std::string_view suffix : {std::string_view(".llvm."), std::string_view(".part.")}) {
    const size_t it = name.rfind(suffix);
    if (it == std::string_view::npos) continue;
    const size_t last_dot = name.rfind('.');
    if (last_dot == it || last_dot == it + suffix.size() - 1) name = name.substr(0, it);
  }
  return name;
}

uint64_t function_guid(std::string_view name) {
  return md5_name_ref(canonical_function_name(name));
}

uint64_t frame_id(const Frame& frame) {
  uint8_t buf[17];
  store_le<uint64_t>(buf, frame.function);
  store_le<uint32_t>(buf + 8, frame.line_offset);
  store_le<uint32_t>(buf + 12, frame.column);
  buf[16] = frame.is_inline ? 1 : 0;
  return blake3::hash64(buf);
}

uint64_t call_stack_id_from_frame_ids(std::span<const uint64_t> frame_ids) {
  uint8_t small[64 * 8];
  std::vector<uint8_t> large;
  uint8_t* bytes = small;
  if (frame_ids.size() > 64) {
    large.resize(frame_ids.size() * 8);
    bytes = large.data();
  }
  for (size_t i = 0; i < frame_ids.size(); ++i) store_le<uint64_t>(bytes + 8 * i, frame_ids[i]);
  return blake3::hash64(std::span<const uint8_t>(bytes, frame_ids.size() * 8));
}

uint64_t call_stack_id(std::span<const Frame> frames) {
  std::vector<uint64_t> ids;
  ids.reserve(frames.size());
  for (const Frame& f : frames) ids.push_back(frame_id(f));
  return call_stack_id_from_frame_ids(ids);
}

namespace {

// `consume`: the same object as `raw`, whose converted parts may be freed.
Expected<MemProfData> convert(const MergedRaw& raw, MergedRaw* consume,
                              const PcSymbolizer& symbolize, ConversionStats* stats) {
  MemProfData data;
  ConversionStats local;
  std::unordered_map<uint64_t, size_t> record_index;
  // Call-site lists per function in first-insertion order, each a set keyed by PC.
  std::vector<std::pair<uint64_t, std::vector<std::pair<uint64_t, const SymbolizedPc*>>>> per_fn;
  std::unordered_map<uint64_t, size_t> per_fn_index;
  std::unordered_set<uint64_t> kept_stacks;
  std::vector<std::pair<uint64_t, const SymbolizedPc*>> symbolized;
  std::unordered_map<uint64_t, uint8_t> pc_done;  // 1: non-leaf frames listed, 2: all

  for (size_t m = 0; m < raw.mibs.size(); ++m) {
    ++local.mibs;
    const RawMib& mib = raw.mibs[m];
    const RawStack& stack = raw.stacks[raw.mib_stack[m]];
    // Symbolize first so the context is allocated once, at its exact size.
    symbolized.clear();
    size_t frames = 0;
    for (uint64_t pc : stack.pcs) {
      const SymbolizedPc* s = symbolize(pc);
      if (s == nullptr || s->frames.empty()) continue;
      symbolized.push_back({pc, s});
      frames += s->frames.size();
    }
    CallStack context;
    context.reserve(frames);
    size_t kept = 0;
    for (const auto& [pc, s] : symbolized) {
      // The call-site lists below depend only on (pc, whether it is the leaf): do each once.
      uint8_t& done = pc_done[pc];
      const uint8_t need = kept == 0 ? 1 : 2;
      for (size_t j = 0; done < need && j < s->frames.size(); ++j) {
        data.names.try_emplace(s->frames[j].function, s->names[j]);
        if (kept == 0 && j == 0) continue;
        const uint64_t fn = s->frames[j].function;
        auto [it, inserted] = per_fn_index.try_emplace(fn, per_fn.size());
        if (inserted) per_fn.push_back({fn, {}});
        auto& list = per_fn[it->second].second;
        bool seen = false;
        for (const auto& entry : list) seen = seen || entry.first == pc;
        if (!seen) list.push_back({pc, s});
      }
      done = std::max(done, need);
      context.insert(context.end(), s->frames.begin(), s->frames.end());
      ++kept;
    }
    if (consume != nullptr) {
      // Each stack has one (merged) MIB: its PCs are needed again only if none was kept,
      // and then every one of them is dropped anyway (the check below finds none).
      std::vector<uint64_t>().swap(consume->stacks[raw.mib_stack[m]].pcs);
    }
    if (context.empty()) {
      ++local.dropped_mibs;
      local.alloc_count_dropped += mib.mib.AllocCount;
      continue;
    }
    kept_stacks.insert(stack.stack_id);
    // The context goes to the record of each frame up to the first non-inlined one; the
    // last of them takes it without a copy.
    size_t levels = 0;
    while (levels < context.size() && context[levels].is_inline) ++levels;
    levels = std::min(levels + 1, context.size());
    for (size_t k = 0; k < levels; ++k) {
      const size_t index = record_index.try_emplace(context[k].function, data.records.size())
                               .first->second;
      if (index == data.records.size()) data.records.push_back(Record{context[k].function, {}, {}});
      Record& r = data.records[index];
      if (k == 0)
        data.stack_order.push_back({static_cast<uint32_t>(index),
                                    static_cast<uint32_t>(r.alloc_sites.size()), false});
      if (k + 1 == levels && consume != nullptr)
        r.alloc_sites.push_back(
            AllocSite{std::move(context), mib.mib, std::move(consume->mibs[m].histogram)});
      else if (k + 1 == levels)
        r.alloc_sites.push_back(AllocSite{std::move(context), mib.mib, mib.histogram});
      else
        r.alloc_sites.push_back(AllocSite{context, mib.mib, mib.histogram});
    }
  }
  // Stack entries (with or without a MIB) that keep at least one PC: what llvm-profdata
  // reports as NumStackOffsets.
  for (const RawStack& st : raw.stacks) {
    if (kept_stacks.count(st.stack_id) != 0) continue;
    for (uint64_t pc : st.pcs) {
      const SymbolizedPc* sp = symbolize(pc);
      if (sp != nullptr && !sp->frames.empty()) {
        kept_stacks.insert(st.stack_id);
        break;
      }
    }
  }
  local.stacks_kept = kept_stacks.size();
  if (stats != nullptr) *stats = local;
  if (data.records.empty())
    return make_error(ErrorCode::malformed, kNoOffset,
                      "no entries in callstack map after symbolization");
  for (const auto& [fn, list] : per_fn) {
    const size_t before = data.records.size();
    Record& r = record_for(data, record_index, fn);
    const size_t index = before == data.records.size()
                             ? record_index.at(fn)
                             : data.records.size() - 1;
    for (const auto& entry : list) {
      data.stack_order.push_back({static_cast<uint32_t>(index),
                                  static_cast<uint32_t>(r.call_sites.size()), true});
      r.call_sites.push_back(CallSite{entry.second->frames, {}});
    }
  }
  return data;
}

}  // namespace

Expected<MemProfData> records_from_raw(const MergedRaw& raw, const PcSymbolizer& symbolize,
                                       ConversionStats* stats) {
  return convert(raw, nullptr, symbolize, stats);
}

Expected<MemProfData> records_from_raw_consuming(MergedRaw&& raw, const PcSymbolizer& symbolize,
                                                 ConversionStats* stats) {
  auto out = convert(raw, &raw, symbolize, stats);
  std::vector<RawMib>().swap(raw.mibs);
  std::vector<RawStack>().swap(raw.stacks);
  std::vector<size_t>().swap(raw.mib_stack);
  return out;
}

void merge_into(MemProfData& out, const MemProfData& in) {
  std::unordered_map<uint64_t, size_t> record_index;
  for (size_t i = 0; i < out.records.size(); ++i) record_index.emplace(out.records[i].guid, i);
  // Where each stack of `in` ended up in `out`, to translate in.stack_order.
  std::vector<std::vector<uint32_t>> alloc_at(in.records.size()), call_at(in.records.size());
  for (size_t i = 0; i < in.records.size(); ++i) {
    const Record& r = in.records[i];
    const size_t j = record_index.try_emplace(r.guid, out.records.size()).first->second;
    if (j == out.records.size()) out.records.push_back(Record{r.guid, {}, {}});
    Record& dst = out.records[j];
    for (const AllocSite& a : r.alloc_sites) {
      size_t found = dst.alloc_sites.size();
      for (size_t k = 0; k < dst.alloc_sites.size(); ++k)
        if (dst.alloc_sites[k].call_stack == a.call_stack) found = k;
      if (found == dst.alloc_sites.size()) {
        dst.alloc_sites.push_back(a);
      } else {
        AllocSite& d = dst.alloc_sites[found];
        merge_mib(d.mib, d.histogram, a.mib, a.histogram);
      }
      alloc_at[i].push_back(static_cast<uint32_t>(found));
    }
    for (const CallSite& c : r.call_sites) {
      size_t found = dst.call_sites.size();
      for (size_t k = 0; k < dst.call_sites.size(); ++k)
        if (dst.call_sites[k].frames == c.frames) found = k;
      if (found == dst.call_sites.size()) {
        dst.call_sites.push_back(c);
      } else {
        CallSite& d = dst.call_sites[found];
        for (uint64_t g : c.callee_guids) {
          bool seen = false;
          for (uint64_t h : d.callee_guids) seen = seen || h == g;
          if (!seen) d.callee_guids.push_back(g);
        }
      }
      call_at[i].push_back(static_cast<uint32_t>(found));
    }
  }
  // Stack insertion order: the union, first-seen order.
  if (!out.stack_order.empty() || !in.stack_order.empty()) {
    std::unordered_set<uint64_t> seen;
    for (const StackRef& s : out.stack_order) seen.insert(call_stack_id(out.stack(s)));
    for (const StackRef& s : in.stack_order) {
      if (!seen.insert(call_stack_id(in.stack(s))).second) continue;
      const auto j = static_cast<uint32_t>(record_index.at(in.records[s.record].guid));
      out.stack_order.push_back(
          {j, s.call_site ? call_at[s.record][s.site] : alloc_at[s.record][s.site], s.call_site});
    }
  }
  for (const auto& [guid, name] : in.names) out.names.emplace(guid, name);
}

AllocType classify(const MemInfoBlock& mib, const ClassifyOptions& options) {
  if (mib.AllocCount == 0) return AllocType::not_cold;
  const float density = static_cast<float>(mib.TotalLifetimeAccessDensity) /
                        static_cast<float>(mib.AllocCount) / 100;
  const float lifetime =
      static_cast<float>(mib.TotalLifetime) / static_cast<float>(mib.AllocCount);
  if (density < options.lifetime_access_density_cold_threshold &&
      lifetime >= static_cast<float>(options.ave_lifetime_cold_threshold_s * 1000))
    return AllocType::cold;
  if (options.use_hot_hints &&
      density > static_cast<float>(options.min_ave_lifetime_access_density_hot_threshold))
    return AllocType::hot;
  return AllocType::not_cold;
}

MemProfSummary compute_summary(const MemProfData& data, bool full_context_ids,
                               const ClassifyOptions& options) {
  MemProfSummary s;
  std::unordered_set<uint64_t> seen;
  for (const Record& r : data.records) {
    for (const AllocSite& a : r.alloc_sites) {
      uint64_t id;
      if (full_context_ids) {
        std::vector<uint8_t> bytes;
        for (const Frame& f : a.call_stack) put_frame_bytes(bytes, f, false);
        id = blake3::hash64(bytes);
      } else {
        id = call_stack_id(a.call_stack);
      }
      if (!seen.insert(id).second) continue;
      ++s.num_contexts;
      switch (classify(a.mib, options)) {
        case AllocType::cold:
          ++s.num_cold_contexts;
          s.max_cold_total_size = std::max(s.max_cold_total_size, a.mib.TotalSize);
          break;
        case AllocType::hot:
          ++s.num_hot_contexts;
          s.max_hot_total_size = std::max(s.max_hot_total_size, a.mib.TotalSize);
          break;
        case AllocType::not_cold:
          s.max_warm_total_size = std::max(s.max_warm_total_size, a.mib.TotalSize);
          break;
      }
    }
  }
  return s;
}

}  // namespace profkit::memprof
