// Pseudo-probe section decoder. The layout is drawn in pseudo_probe.h; the decoding rules
// follow spec section 5 with one deliberate change: the address chain is chosen per
// top-level record (see choose_chain), not once per binary as llvm-profgen 22 does.
#include "format/probe/pseudo_probe.h"

#include <sys/mman.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace profkit::probe {

// Asks for transparent huge pages on a large buffer before it is first written: one fault
// per 2 MiB instead of one per 4 KiB page (page faults were a fifth of a large listing's
// time). A hint only; harmless where THP is off.
static void advise_huge_pages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

namespace {

// Smallest encodings, used to bound counts read from the file before looping on them.
constexpr uint64_t kMinProbeBytes = 3;     // index, kind, one-byte delta
constexpr uint64_t kMinInlineeBytes = 11;  // site, guid, nprobes, ninlined

Expected<uint32_t> read_u32_leb(Cursor& c, std::string_view what) {
  const uint64_t at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t v, c.read_uleb128(what));
  if (v > std::numeric_limits<uint32_t>::max())
    return make_error(ErrorCode::malformed, at,
                      std::string(what) + " " + std::to_string(v) + " does not fit in 32 bits");
  return static_cast<uint32_t>(v);
}

// Reads nprobes and ninlined and checks that the claimed records can fit.
Expected<std::pair<uint32_t, uint32_t>> read_counts(Cursor& c) {
  const uint64_t at = c.offset();
  PROFKIT_TRY_ASSIGN(uint32_t nprobes, read_u32_leb(c, "probe count"));
  PROFKIT_TRY_ASSIGN(uint32_t ninlined, read_u32_leb(c, "inlinee count"));
  const uint64_t need = nprobes * kMinProbeBytes + ninlined * kMinInlineeBytes;
  if (need > c.remaining())
    return make_error(ErrorCode::truncated, at,
                      "record claims " + std::to_string(nprobes) + " probes and " +
                          std::to_string(ninlined) + " inlinees (at least " +
                          std::to_string(need) + " bytes) but only " +
                          std::to_string(c.remaining()) + " bytes remain in the section");
  return std::pair<uint32_t, uint32_t>{nprobes, ninlined};
}

struct FastProbe {
  uint32_t index;
  uint32_t discriminator;
  int64_t delta;
  uint8_t type;
  uint8_t attr;
};

// Decodes a delta-form, non-sentinel probe record with a valid type whose LEB fields are
// short enough to need no further checks. Requires: 32 readable bytes at p. Returns the
// bytes used, or 0 to let the checked path decode (and report) it.
inline size_t decode_fast(const uint8_t* p, FastProbe& out) {
  const uint8_t* q = p;
  uint64_t index = 0;
  for (int shift = 0;; shift += 7) {
    if (shift > 28) return 0;
    const uint8_t b = *q++;
    index |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) break;
  }
  if (index > 0xffffffffu) return 0;
  const uint8_t kind = *q++;
  const uint8_t type = kind & 0x0f;
  const uint8_t attr = (kind >> 4) & 0x07;
  if (!(kind & 0x80) || type > 2 || (attr & kAttrSentinel)) return 0;
  uint64_t delta = 0;
  int shift = 0;
  uint8_t b = 0;
  do {
    if (shift > 56) return 0;
    b = *q++;
    delta |= uint64_t{b & 0x7fu} << shift;
    shift += 7;
  } while (b & 0x80);
  if (b & 0x40) delta |= ~uint64_t{0} << shift;  // shift <= 63 here
  uint64_t discriminator = 0;
  if (attr & kAttrHasDiscriminator) {
    for (int dshift = 0;; dshift += 7) {
      if (dshift > 28) return 0;
      const uint8_t d = *q++;
      discriminator |= uint64_t{d & 0x7fu} << dshift;
      if (!(d & 0x80)) break;
    }
    if (discriminator > 0xffffffffu) return 0;
  }
  out.index = static_cast<uint32_t>(index);
  out.discriminator = static_cast<uint32_t>(discriminator);
  out.delta = static_cast<int64_t>(delta);
  out.type = type;
  out.attr = attr;
  return static_cast<size_t>(q - p);
}

}  // namespace

std::string_view probe_type_name(uint8_t type) {
  switch (type) {
    case 0: return "Block";
    case 1: return "IndirectCall";
    case 2: return "DirectCall";
    default: return "Unknown";
  }
}

std::string_view canonical_name(std::string_view name) {
  for (std::string_view suffix : {std::string_view(".llvm."), std::string_view(".part.")}) {
    const size_t at = name.rfind(suffix);
    if (at == std::string_view::npos) continue;
    if (name.rfind('.') == at + suffix.size() - 1) name = name.substr(0, at);
  }
  return name;
}

Expected<void> decode_descriptors(const SectionBytes& section, std::vector<Descriptor>& out) {
  Cursor c(section.data, section.file_offset);
  out.reserve(out.size() + c.remaining() / 17);
  while (!c.at_end()) {
    Descriptor d;
    PROFKIT_TRY_ASSIGN(d.guid, c.read_le<uint64_t>("descriptor GUID"));
    PROFKIT_TRY_ASSIGN(d.hash, c.read_le<uint64_t>("descriptor hash"));
    PROFKIT_TRY_ASSIGN(uint32_t len, read_u32_leb(c, "descriptor name length"));
    PROFKIT_TRY_ASSIGN(Bytes name, c.read_bytes(len, "descriptor name"));
    d.name = as_string_view(name);
    out.push_back(d);
  }
  return {};
}

// Per-decode state; lives only inside ProbeMap::decode.
struct ProbeMap::Decoder {
  ProbeMap& map;
  const DecodeOptions& options;
  bool global_address_based = false;  // llvm22_global_chain mode only

  const SymbolRange* lookup(uint64_t guid) const {
    if (options.symbols == nullptr) return nullptr;
    auto it = options.symbols->find(guid);
    if (it == options.symbols->end()) return nullptr;
    // llvm-profgen treats a symbol value of 0 as absent; we do too only when emulating it.
    if (options.llvm22_global_chain && it->second.start == 0) return nullptr;
    return &it->second;
  }

  struct Extent {
    uint64_t min = std::numeric_limits<uint64_t>::max();
    uint64_t max = 0;
    bool saw_anchor = false;  // an absolute address or a sentinel: the record re-anchors
  };

  // Parses the rest of a record whose GUID (and, for inlinees, site) was read, starting with
  // its counts. With `store`, appends nodes and probes; otherwise only tracks the extent of
  // the addresses (chained from `last`). Iterative: nesting depth comes from the file.
  Expected<void> parse_record(Cursor& c, uint64_t guid, uint32_t site, uint64_t record_offset,
                              bool store, uint64_t& last, Extent* extent, bool& placed,
                              ChainKind chain) {
    std::vector<Frame>& stack = stack_;  // reused: one allocation per decode, not per record
    stack.clear();
    auto open_node = [&](uint64_t node_guid, uint32_t node_site, uint64_t offset,
                         uint32_t parent) -> Expected<void> {
      PROFKIT_TRY_ASSIGN(auto counts, read_counts(c));
      uint32_t node_index = kNoIndex;
      if (store) {
        node_index = static_cast<uint32_t>(map.nodes_.size());
        InlineNode n;
        n.guid = node_guid;
        n.site = node_site;
        n.parent = parent;
        n.first_probe = static_cast<uint32_t>(map.probes_.size());
        n.record_offset = offset;
        n.top_level = parent == 0 ? node_index : map.nodes_[parent].top_level;
        if (parent == 0) n.chain = chain;
        map.nodes_.push_back(n);
        if (parent != 0) {
          Frame& f = stack.back();
          if (f.last_child == kNoIndex)
            map.nodes_[parent].first_child = node_index;
          else
            map.nodes_[f.last_child].next_sibling = node_index;
          f.last_child = node_index;
        }
      }
      for (uint32_t i = 0; i < counts.first; ++i) {
        // Fast path for the common record (delta form, small fields) when enough bytes
        // remain that no field can reach the end; anything else takes the checked path.
        if (c.remaining() >= 32) {
          FastProbe f;
          const uint8_t* start = c.data().data() + c.position();
          if (const size_t used = decode_fast(start, f)) {
            PROFKIT_TRY(c.skip(used, "probe record"));
            const uint64_t address = last + static_cast<uint64_t>(f.delta);
            last = address;
            if (extent != nullptr) {
              extent->min = std::min(extent->min, address);
              extent->max = std::max(extent->max, address);
            }
            if (store) {
              Probe p;
              p.address = address;
              p.index = f.index;
              p.discriminator = f.discriminator;
              p.node = node_index;
              p.type = f.type;
              p.attributes = f.attr;
              map.probes_.push_back(p);
            }
            continue;
          }
        }
        const uint64_t probe_offset = c.offset();
        PROFKIT_TRY_ASSIGN(uint32_t index, read_u32_leb(c, "probe index"));
        PROFKIT_TRY_ASSIGN(uint8_t kind, c.read_le<uint8_t>("probe kind"));
        const uint8_t type = kind & 0x0f;
        const uint8_t attr = (kind >> 4) & 0x07;
        if (type > 2)
          return make_error(ErrorCode::malformed, probe_offset + 1,
                            "probe type " + std::to_string(type) +
                                " is not 0 (Block), 1 (IndirectCall) or 2 (DirectCall)");
        uint64_t address = 0;
        if (kind & 0x80) {
          PROFKIT_TRY_ASSIGN(int64_t delta, c.read_sleb128("probe address delta"));
          address = last + static_cast<uint64_t>(delta);
        } else {
          PROFKIT_TRY_ASSIGN(uint64_t value, c.read_le<uint64_t>("probe address"));
          if (extent != nullptr) extent->saw_anchor = true;
          if (attr & kAttrSentinel) {
            const SymbolRange* sym = lookup(value);
            if (sym != nullptr) {
              address = sym->start;
            } else {
              address = value;  // what llvm-profgen keeps; the record cannot be placed
              if (!options.llvm22_global_chain) placed = false;
            }
          } else {
            address = value;
            global_address_based = true;
          }
        }
        uint32_t discriminator = 0;
        if (attr & kAttrHasDiscriminator) {
          PROFKIT_TRY_ASSIGN(discriminator, read_u32_leb(c, "probe discriminator"));
        }
        last = address;
        if (attr & kAttrSentinel) continue;
        if (extent != nullptr) {
          extent->min = std::min(extent->min, address);
          extent->max = std::max(extent->max, address);
        }
        if (store) {
          Probe p;
          p.address = address;
          p.index = index;
          p.discriminator = discriminator;
          p.node = node_index;
          p.type = type;
          p.attributes = attr;
          map.probes_.push_back(p);
        }
      }
      if (store)
        map.nodes_[node_index].probe_count =
            static_cast<uint32_t>(map.probes_.size()) - map.nodes_[node_index].first_probe;
      stack.push_back(Frame{node_index, counts.second, kNoIndex});
      return {};
    };

    PROFKIT_TRY(open_node(guid, site, record_offset, 0));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.kids_left == 0) {
        stack.pop_back();
        continue;
      }
      --top.kids_left;
      const uint32_t parent = top.node;
      const uint64_t offset = c.offset();
      PROFKIT_TRY_ASSIGN(uint32_t child_site, read_u32_leb(c, "inlinee call-site ID"));
      PROFKIT_TRY_ASSIGN(uint64_t child_guid, c.read_le<uint64_t>("inlinee GUID"));
      PROFKIT_TRY(open_node(child_guid, child_site, offset, parent));
    }
    return {};
  }

  // How the first probe of a top-level record is encoded, without consuming anything.
  enum class FirstProbe { none, delta, absolute, sentinel };
  static FirstProbe peek_first_probe(Cursor c) {
    auto counts = read_counts(c);
    if (!counts || counts->first == 0) return FirstProbe::none;
    if (!c.read_uleb128("probe index")) return FirstProbe::none;
    auto kind = c.read_le<uint8_t>("probe kind");
    if (!kind) return FirstProbe::none;
    if (*kind & 0x80) return FirstProbe::delta;
    return ((*kind >> 4) & kAttrSentinel) ? FirstProbe::sentinel : FirstProbe::absolute;
  }

  // Per-record chain choice. A record starting with an absolute address begins an LLVM 14
  // chain; a sentinel means LLVM 22. A delta-first record is LLVM 22 unless an LLVM 14 chain
  // is running in this section, in which case it continues that chain, except when placing it
  // on its own function symbol fits that symbol and continuing does not (or its GUID breaks
  // the ascending GUID order LLVM 14 writes records in).
  Expected<ChainKind> choose_chain(const Cursor& c, uint64_t guid, bool in_absolute_chain,
                                   uint64_t previous_guid, uint64_t last) {
    const FirstProbe first = peek_first_probe(c);
    if (first == FirstProbe::absolute) return ChainKind::absolute;
    if (first == FirstProbe::sentinel) return ChainKind::function_start;
    if (!in_absolute_chain) return ChainKind::function_start;
    const SymbolRange* sym = lookup(guid);
    if (sym == nullptr) return ChainKind::absolute;
    if (guid <= previous_guid) return ChainKind::function_start;
    Cursor probe = c;
    Extent extent;
    uint64_t chained = last;
    bool placed = true;
    PROFKIT_TRY(parse_record(probe, guid, 0, 0, false, chained, &extent, placed,
                             ChainKind::none));
    if (extent.saw_anchor || extent.min > extent.max) return ChainKind::absolute;
    auto fits = [&](uint64_t lo, uint64_t hi) { return lo >= sym->start && hi < sym->end; };
    const bool continue_fits = fits(extent.min, extent.max);
    const uint64_t shift = sym->start - last;  // re-basing moves every address by this
    const bool start_fits = fits(extent.min + shift, extent.max + shift);
    if (start_fits && !continue_fits) return ChainKind::function_start;
    return ChainKind::absolute;
  }

  Expected<void> decode_section(const SectionBytes& section) {
    Cursor c(section.data, section.file_offset);
    uint64_t last = 0;
    uint32_t ordinal = 0;
    bool in_absolute_chain = false;
    uint64_t previous_guid = 0;
    while (!c.at_end()) {
      const uint64_t record_offset = c.offset();
      PROFKIT_TRY_ASSIGN(uint64_t guid, c.read_le<uint64_t>("function record GUID"));
      ++map.top_level_records_;
      ChainKind chain = ChainKind::function_start;
      bool placed = true;
      if (options.llvm22_global_chain) {
        // llvm-profgen 22: re-base on the function symbol unless any absolute address was
        // seen anywhere before; a missing symbol silently keeps `last`.
        const FirstProbe first = peek_first_probe(c);
        if (first == FirstProbe::absolute) global_address_based = true;
        if (global_address_based) {
          chain = ChainKind::absolute;
        } else if (const SymbolRange* sym = lookup(guid)) {
          last = sym->start;
        }
      } else {
        PROFKIT_TRY_ASSIGN(chain, choose_chain(c, guid, in_absolute_chain, previous_guid, last));
        if (chain == ChainKind::function_start) {
          in_absolute_chain = false;
          if (peek_first_probe(c) != FirstProbe::sentinel) {
            if (const SymbolRange* sym = lookup(guid))
              last = sym->start;
            else
              placed = false;
          }
        } else {
          in_absolute_chain = true;
        }
      }
      if (chain == ChainKind::absolute) ++map.absolute_records_;
      // Parse into the model, then drop the record again if it could not be placed.
      const size_t node_mark = map.nodes_.size();
      const size_t probe_mark = map.probes_.size();
      PROFKIT_TRY(parse_record(c, guid, ordinal, record_offset, true, last, nullptr, placed,
                               chain));
      if (!placed) {
        map.nodes_.resize(node_mark);
        map.probes_.resize(probe_mark);
        ++map.unplaced_records_;
      } else {
        InlineNode& root = map.nodes_[0];
        if (root.first_child == kNoIndex)
          root.first_child = static_cast<uint32_t>(node_mark);
        else
          map.nodes_[root_last_child].next_sibling = static_cast<uint32_t>(node_mark);
        root_last_child = static_cast<uint32_t>(node_mark);
      }
      previous_guid = guid;
      ++ordinal;
    }
    return {};
  }

  uint32_t root_last_child = kNoIndex;
  struct Frame {
    uint32_t node;
    uint32_t kids_left;
    uint32_t last_child;
  };
  std::vector<Frame> stack_;
};

Expected<ProbeMap> ProbeMap::decode(std::span<const SectionBytes> descriptor_sections,
                                    std::span<const SectionBytes> probe_sections,
                                    const DecodeOptions& options) {
  ProbeMap map;
  for (const auto& s : descriptor_sections) PROFKIT_TRY(decode_descriptors(s, map.descriptors_));
  std::stable_sort(map.descriptors_.begin(), map.descriptors_.end(),
                   [](const Descriptor& a, const Descriptor& b) { return a.guid < b.guid; });

  map.nodes_.emplace_back();  // root
  map.nodes_[0].parent = 0;
  uint64_t probe_bytes = 0;
  for (const auto& s : probe_sections) probe_bytes += s.data.size();
  // A probe takes at least 3 bytes (index, kind, address delta), so this never reallocates
  // (a reallocation would copy every probe and double the peak memory).
  map.probes_.reserve(probe_bytes / 3);
  advise_huge_pages(map.probes_.data(), map.probes_.capacity() * sizeof(Probe));
  // Every node takes at least 10 bytes (a top-level record: GUID and two counts): no
  // reallocation either (pages are touched only as nodes are added).
  map.nodes_.reserve(probe_bytes / 10 + 2);
  advise_huge_pages(map.nodes_.data(), map.nodes_.capacity() * sizeof(InlineNode));
  Decoder decoder{map, options, false, kNoIndex, {}};
  for (const auto& s : probe_sections) PROFKIT_TRY(decoder.decode_section(s));

  map.build_address_index();
  return map;
}

// Address index: positions in stable order by (address, decode position). When the
// addresses span less than 2^32 (any real binary), a two-pass LSD radix sort of
// (address - lowest) << 32 | position, whose counting passes keep decode order; otherwise
// a comparison sort of (address, position) pairs.
void ProbeMap::build_address_index() {
  const size_t n = probes_.size();
  by_address_.resize(n);
  if (n == 0) return;
  uint64_t lo = probes_[0].address, hi = lo;
  for (const Probe& p : probes_) lo = std::min(lo, p.address), hi = std::max(hi, p.address);
  if (hi - lo > 0xffffffffu) {
    std::vector<std::pair<uint64_t, uint32_t>> keyed(n);
    for (uint32_t i = 0; i < n; ++i) keyed[i] = {probes_[i].address, i};
    std::sort(keyed.begin(), keyed.end());
    for (size_t i = 0; i < n; ++i) by_address_[i] = keyed[i].second;
    return;
  }
  // Uninitialised buffers (every element is written before it is read).
  std::unique_ptr<uint64_t[]> a(new uint64_t[n]), b(new uint64_t[n]);
  advise_huge_pages(a.get(), n * sizeof(uint64_t));
  advise_huge_pages(b.get(), n * sizeof(uint64_t));
  for (uint32_t i = 0; i < n; ++i) a[i] = (probes_[i].address - lo) << 32 | i;
  for (unsigned shift : {32u, 48u}) {
    if (shift == 48 && (hi - lo) < (uint64_t{1} << 16)) break;
    std::vector<uint32_t> count(1u << 16, 0);
    for (size_t i = 0; i < n; ++i) ++count[(a[i] >> shift) & 0xffff];
    uint32_t sum = 0;
    for (uint32_t& c : count) {
      const uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) b[count[(a[i] >> shift) & 0xffff]++] = a[i];
    a.swap(b);
  }
  for (size_t i = 0; i < n; ++i) by_address_[i] = static_cast<uint32_t>(a[i]);
}

const Descriptor* ProbeMap::descriptor(uint64_t guid) const {
  auto it = std::lower_bound(descriptors_.begin(), descriptors_.end(), guid,
                             [](const Descriptor& d, uint64_t g) { return d.guid < g; });
  if (it == descriptors_.end() || it->guid != guid) return nullptr;
  return &*it;
}

std::string_view ProbeMap::name(uint64_t guid) const {
  const Descriptor* d = descriptor(guid);
  return d == nullptr ? std::string_view() : d->name;
}

std::span<const uint32_t> ProbeMap::find(uint64_t from, uint64_t to) const {
  auto addr_less = [this](uint32_t p, uint64_t a) { return probes_[p].address < a; };
  auto lo = std::lower_bound(by_address_.begin(), by_address_.end(), from, addr_less);
  // The end by a scan: the callers walk the probes found anyway, and there are few.
  auto hi = lo;
  while (hi != by_address_.end() && probes_[*hi].address < to) ++hi;
  return std::span<const uint32_t>(by_address_.data() + (lo - by_address_.begin()),
                                   static_cast<size_t>(hi - lo));
}

std::span<const uint32_t> ProbeMap::find(uint64_t address) const {
  if (address == std::numeric_limits<uint64_t>::max()) {
    auto all = find(address, address);  // empty, positioned at the first probe at `address`
    const size_t start = static_cast<size_t>(all.data() - by_address_.data());
    return std::span<const uint32_t>(by_address_.data() + start, by_address_.size() - start);
  }
  return find(address, address + 1);
}

const Probe* ProbeMap::call_probe_at(uint64_t address) const {
  for (uint32_t p : find(address))
    if (probes_[p].is_call()) return &probes_[p];
  return nullptr;
}

std::vector<ContextFrame> ProbeMap::inline_context(const Probe& probe) const {
  std::vector<ContextFrame> frames;
  uint32_t n = probe.node;
  while (n != 0 && nodes_[n].parent != 0) {
    const InlineNode& node = nodes_[n];
    frames.push_back(ContextFrame{nodes_[node.parent].guid, node.site});
    n = node.parent;
  }
  std::reverse(frames.begin(), frames.end());
  return frames;
}

const Descriptor* ProbeMap::inliner_descriptor(const Probe& probe) const {
  const InlineNode& node = nodes_[probe.node];
  if (probe.node == 0 || node.parent == 0) return nullptr;
  return descriptor(nodes_[node.parent].guid);
}

}  // namespace profkit::probe
