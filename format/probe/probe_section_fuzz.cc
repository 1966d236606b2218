// Property: the pseudo-probe section decoder never crashes, hangs or reads past its input,
// and what it accepts is consistent: every probe belongs to a node, every address-index
// entry names a probe, and the index is sorted by address.
// Input: u32 little-endian length N, then N bytes of .pseudo_probe_desc, then the bytes of
// .pseudo_probe (seeds: the conformance test writes real sections to seeds/probe_section_fuzz/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <unordered_map>

#include "format/bytes/hash.h"
#include "format/probe/pseudo_probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit;
  using namespace profkit::probe;
  if (size < 4) return 0;
  const uint32_t desc_size = load_le<uint32_t>(data);
  if (desc_size > size - 4) return 0;
  const Bytes desc(data + 4, desc_size);
  const Bytes probes(data + 4 + desc_size, size - 4 - desc_size);
  // A few symbols so LLVM 22 records can be placed: every descriptor name is a symbol.
  std::vector<Descriptor> names;
  std::unordered_map<uint64_t, SymbolRange> symbols;
  if (decode_descriptors(SectionBytes{desc, 4}, names)) {
    uint64_t at = 0x1000;
    for (const auto& d : names) symbols[md5_name_ref(d.name)] = {at, at + 0x100}, at += 0x100;
  }
  const SectionBytes d{desc, 4};
  const SectionBytes p{probes, 4 + uint64_t{desc_size}};
  for (bool global : {false, true}) {
    DecodeOptions o;
    o.symbols = &symbols;
    o.llvm22_global_chain = global;
    auto map = ProbeMap::decode({&d, 1}, {&p, 1}, o);
    if (!map) continue;
    const auto& nodes = map->nodes();
    for (const auto& probe : map->probes()) {
      if (probe.node == 0 || probe.node >= nodes.size()) std::abort();
      (void)map->inline_context(probe);
    }
    uint64_t previous = 0;
    for (uint32_t i : map->by_address()) {
      if (i >= map->probes().size()) std::abort();
      if (map->probes()[i].address < previous) std::abort();
      previous = map->probes()[i].address;
    }
  }
  return 0;
}
