// Raw -> records conversion (D.6, C.9), record-level merging and the summary.
#include "format/memprof/records.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "format/blake3/blake3.h"
#include "format/bytes/cursor.h"

namespace profkit::memprof {
namespace {

// Index of the record for `guid`, creating it at the end.
uint32_t record_for(MemProfData& data, FlatMap64& index, uint64_t guid) {
  const auto fresh = static_cast<uint32_t>(data.records.size());
  const uint32_t at = index.insert(guid, fresh);
  if (at == fresh) data.records.push_back(Record{guid, {}, {}});
  return at;
}

}  // namespace

namespace {

// Number of leading frames of a context whose records get the allocation site: up to and
// including the first non-inlined frame (D.6).
size_t alloc_levels(const StackTable& table, std::span<const uint32_t> context) {
  size_t levels = 0;
  while (levels < context.size() && table.frame(context[levels]).is_inline) ++levels;
  return std::min(levels + 1, context.size());
}

// `consume`: the same object as `raw`, whose converted parts may be freed.
Expected<MemProfData> convert(const MergedRaw& raw, MergedRaw* consume,
                              const PcSymbolizer& symbolize, ConversionStats* stats) {
  MemProfData data;
  StackTable& table = data.stacks;
  ConversionStats local;
  FlatMap64 record_index;  // GUID -> index in data.records
  // Per distinct PC (index by pc_index): its frames interned in `table` as the run
  // pc_frames[first, first + count) (count 0: dropped), and how far its call-site lists are
  // done (1: non-leaf levels, 2: all). A PC recurs in many contexts; this is looked up once
  // per PC per context, so it is a flat map rather than the symbolizer's own cache.
  struct PcEntry {
    uint32_t first = 0;
    uint32_t count = 0;
    uint8_t call_sites_done = 0;
  };
  std::vector<PcEntry> pcs;
  std::vector<uint32_t> pc_frames;
  FlatMap64 pc_index;
  // Call-site lists per function in first-insertion order, each a set of PCs (by pc index).
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> per_fn;
  std::unordered_map<uint64_t, size_t> per_fn_index;
  std::vector<bool> stack_kept(raw.stacks.size(), false);  // by raw stack index
  std::vector<uint32_t> context;  // frame indices, leaf first
  // Two passes: the first builds every context and counts each record's allocation sites,
  // the second copies the MIBs into sites reserved at their exact number (no vector growth
  // holding two copies of a large record's sites), after the raw PCs are freed.
  constexpr uint32_t kDropped = ~uint32_t{0};
  std::vector<uint32_t> mib_context(raw.mibs.size(), kDropped);  // stack index per MIB
  std::vector<uint32_t> site_count;                                // per record
  // Most PCs give one frame: room for that many (a large table grown by doubling would
  // briefly hold two copies).
  size_t raw_pcs = 0;
  for (size_t s : raw.mib_stack) raw_pcs += raw.stacks[s].pcs.size();
  table.reserve(raw.mibs.size(), raw_pcs);

  // A PC's entry in `pcs`, its frames interned (leaf first) on first sight.
  const auto intern_pc = [&](uint64_t pc) {
    const auto fresh = static_cast<uint32_t>(pcs.size());
    const uint32_t p = pc_index.insert(pc, fresh);
    if (p == fresh) {
      PcEntry e;
      e.first = static_cast<uint32_t>(pc_frames.size());
      if (const SymbolizedPc* s = symbolize(pc); s != nullptr) {
        for (size_t j = 0; j < s->frames.size(); ++j) {
          pc_frames.push_back(table.add_frame(s->frames[j]));
          data.names.try_emplace(s->frames[j].function, s->names[j]);
        }
        e.count = static_cast<uint32_t>(s->frames.size());
      }
      pcs.push_back(e);
    }
    return p;
  };
  // The table's frame order is the order in which llvm-profdata first meets the frames: it
  // symbolizes the stacks in its stack map's order (D.8), and a v2 file's frame table is
  // filled in that order.
  for (uint32_t s : raw.llvm_stack_order)
    for (uint64_t pc : raw.stacks[s].pcs) intern_pc(pc);

  for (size_t m = 0; m < raw.mibs.size(); ++m) {
    ++local.mibs;
    const RawMib& mib = raw.mibs[m];
    const RawStack& stack = raw.stacks[raw.mib_stack[m]];
    context.clear();
    bool leaf = true;
    for (uint64_t pc : stack.pcs) {
      const uint32_t p = intern_pc(pc);
      PcEntry& e = pcs[p];
      if (e.count == 0) continue;
      // The call-site lists below depend only on (pc, whether it is the leaf): do each once.
      const uint8_t need = leaf ? 1 : 2;
      for (uint32_t j = leaf ? 1 : 0; e.call_sites_done < need && j < e.count; ++j) {
        const uint64_t fn = table.frame(pc_frames[e.first + j]).function;
        auto [it, inserted] = per_fn_index.try_emplace(fn, per_fn.size());
        if (inserted) per_fn.push_back({fn, {}});
        auto& list = per_fn[it->second].second;
        if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
      }
      e.call_sites_done = std::max(e.call_sites_done, need);
      context.insert(context.end(), pc_frames.begin() + e.first,
                     pc_frames.begin() + e.first + e.count);
      leaf = false;
    }
    if (context.empty()) {
      ++local.dropped_mibs;
      local.alloc_count_dropped += mib.mib.AllocCount;
      continue;
    }
    stack_kept[raw.mib_stack[m]] = true;
    mib_context[m] = table.add_stack(context);
    // The context goes to the record of each frame up to the first non-inlined one
    // (records are created here, in this order).
    const size_t levels = alloc_levels(table, context);
    for (size_t k = 0; k < levels; ++k) {
      const uint64_t fn = table.frame(context[k]).function;
      const uint32_t r = record_for(data, record_index, fn);
      if (r == site_count.size()) site_count.push_back(0);
      ++site_count[r];
    }
  }
  // Stack entries (with or without a MIB) that keep at least one PC: what llvm-profdata
  // reports as NumStackOffsets.
  // (Stack ids are distinct after merging, so stack indices count them.)
  for (size_t i = 0; i < raw.stacks.size(); ++i) {
    if (!stack_kept[i]) {
      for (uint64_t pc : raw.stacks[i].pcs) {
        const SymbolizedPc* sp = symbolize(pc);
        if (sp != nullptr && !sp->frames.empty()) {
          stack_kept[i] = true;
          break;
        }
      }
    }
    if (stack_kept[i]) ++local.stacks_kept;
  }
  if (consume != nullptr) {
    std::vector<RawStack>().swap(consume->stacks);
    std::vector<std::vector<uint64_t>>().swap(consume->pc_pools);
  }
  for (size_t r = 0; r < site_count.size(); ++r) data.records[r].alloc_sites.reserve(site_count[r]);
  for (size_t m = 0; m < raw.mibs.size(); ++m) {
    if (mib_context[m] == kDropped) continue;
    const auto frames = table.frame_indices(mib_context[m]);
    const size_t levels = alloc_levels(table, frames);
    for (size_t k = 0; k < levels; ++k) {
      Record& r = data.records[record_index.find(table.frame(frames[k]).function)];
      // The last level takes the histogram without a copy.
      if (k + 1 == levels && consume != nullptr)
        r.alloc_sites.push_back(
            AllocSite{mib_context[m], raw.mibs[m].mib, std::move(consume->mibs[m].histogram)});
      else
        r.alloc_sites.push_back(AllocSite{mib_context[m], raw.mibs[m].mib, raw.mibs[m].histogram});
    }
  }
  if (stats != nullptr) *stats = local;
  if (data.records.empty())
    return make_error(ErrorCode::malformed, kNoOffset,
                      "no entries in callstack map after symbolization");
  for (const auto& [fn, list] : per_fn) {
    for (uint32_t p : list) {
      const PcEntry& e = pcs[p];
      const uint32_t stack_index =
          table.add_stack(std::span<const uint32_t>(pc_frames.data() + e.first, e.count));
      data.records[record_for(data, record_index, fn)].call_sites.push_back(
          CallSite{stack_index, {}});
    }
  }
  // Every stack is in: the id maps are only needed again if more inputs are merged in, and
  // their memory is better used by the writer.
  table.drop_lookup();
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
  // in's stacks join out's table in in's order (first-seen order of the union).
  std::vector<uint32_t> frame_at(in.stacks.num_frames());
  for (uint32_t f = 0; f < frame_at.size(); ++f)
    frame_at[f] = out.stacks.add_frame(in.stacks.frame(f), in.stacks.frame_id(f));
  std::vector<uint32_t> stack_at(in.stacks.num_stacks());
  std::vector<uint32_t> indices;
  for (uint32_t s = 0; s < stack_at.size(); ++s) {
    indices.clear();
    for (uint32_t f : in.stacks.frame_indices(s)) indices.push_back(frame_at[f]);
    stack_at[s] = out.stacks.add_stack(indices);
  }
  std::unordered_map<uint64_t, size_t> record_index;
  for (size_t i = 0; i < out.records.size(); ++i) record_index.emplace(out.records[i].guid, i);
  // One context may be the allocation site of a record several times (two PCs on one line
  // and column, as in an unrolled loop: llvm-profdata keeps one site per stack id), and a
  // call-site stack may be listed twice (two PCs of one location). The k-th site of a
  // context in `in` merges into the k-th site of that context in `out`, or is appended:
  // runs of one program then merge as llvm-profdata merges the same runs chained in one
  // raw file, where its sites pair up by stack id.
  std::unordered_map<uint32_t, std::vector<uint32_t>> at_of_stack;  // out sites per stack
  std::unordered_map<uint32_t, uint32_t> seen;                      // in sites per stack so far
  for (const Record& r : in.records) {
    const size_t j = record_index.try_emplace(r.guid, out.records.size()).first->second;
    if (j == out.records.size()) out.records.push_back(Record{r.guid, {}, {}});
    Record& dst = out.records[j];
    at_of_stack.clear();
    seen.clear();
    for (uint32_t i = 0; i < dst.alloc_sites.size(); ++i)
      at_of_stack[dst.alloc_sites[i].stack].push_back(i);
    for (const AllocSite& a : r.alloc_sites) {
      const uint32_t stack = stack_at[a.stack];
      const uint32_t k = seen[stack]++;
      std::vector<uint32_t>& at = at_of_stack[stack];
      if (k < at.size()) {
        AllocSite& d = dst.alloc_sites[at[k]];
        merge_mib(d.mib, d.histogram, a.mib, a.histogram);
      } else {
        at.push_back(static_cast<uint32_t>(dst.alloc_sites.size()));
        dst.alloc_sites.push_back(AllocSite{stack, a.mib, a.histogram});
      }
    }
    at_of_stack.clear();
    seen.clear();
    for (uint32_t i = 0; i < dst.call_sites.size(); ++i)
      at_of_stack[dst.call_sites[i].stack].push_back(i);
    for (const CallSite& c : r.call_sites) {
      const uint32_t stack = stack_at[c.stack];
      const uint32_t k = seen[stack]++;
      std::vector<uint32_t>& at = at_of_stack[stack];
      if (k >= at.size()) {
        at.push_back(static_cast<uint32_t>(dst.call_sites.size()));
        dst.call_sites.push_back(CallSite{stack, c.callee_guids});
        continue;
      }
      CallSite& found = dst.call_sites[at[k]];
      for (uint64_t g : c.callee_guids) {
        bool dup = false;
        for (uint64_t h : found.callee_guids) dup = dup || h == g;
        if (!dup) found.callee_guids.push_back(g);
      }
    }
  }
  for (const auto& [guid, name] : in.names) out.names.emplace(guid, name);
  merge_data_access(out.data_access, in.data_access);
}

MemProfSummary compute_summary(const MemProfData& data, bool full_context_ids,
                               const ClassifyOptions& options) {
  MemProfSummary s;
  std::unordered_set<uint64_t> seen;
  for (const Record& r : data.records) {
    for (const AllocSite& a : r.alloc_sites) {
      uint64_t id = a.stack;  // distinct stacks have distinct CallStackIds
      if (full_context_ids) {
        std::vector<uint8_t> bytes;
        for (const Frame& f : data.stacks.stack(a.stack)) append_frame_bytes(bytes, f, false);
        id = blake3::hash64(bytes);
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
