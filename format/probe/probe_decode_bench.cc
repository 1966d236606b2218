// Decode throughput of the pseudo-probe decoder, in probes per second (and bytes per second),
// on synthetic LLVM 22 sections shaped like a -O2 build: each function record has its own
// block and call probes plus a two-level inline tree. The argument is the function count.
// Set PROFKIT_PROBE_BENCH_BINARY to an ELF file to also time decoding its real sections.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "format/bytes/hash.h"
#include "format/elf/elf_file.h"
#include "format/probe/elf_probes.h"
#include "format/probe/pseudo_probe.h"

namespace {

using namespace profkit;
using namespace profkit::probe;

struct Synthetic {
  std::string desc, probe;
  std::unordered_map<uint64_t, SymbolRange> symbols;
  uint64_t probes = 0;
};

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>(v >> (8 * i));
}

// Appends a node's counts and `n` block probes 4 bytes apart, the first one `first_delta`
// away from the previous address.
void put_probes(std::string& out, int n, int kids, int64_t first_delta, uint64_t& count) {
  append_uleb128(out, static_cast<uint64_t>(n));
  append_uleb128(out, static_cast<uint64_t>(kids));
  for (int i = 0; i < n; ++i) {
    append_uleb128(out, static_cast<uint64_t>(i + 1));
    out += static_cast<char>(i == n - 1 ? 0x82 : 0x80);  // last one is a direct call
    append_sleb128(out, i == 0 ? first_delta : 4);
  }
  count += static_cast<uint64_t>(n);
}

Synthetic make_synthetic(int functions) {
  Synthetic s;
  for (int f = 0; f < functions; ++f) {
    const std::string name = "function_" + std::to_string(f);
    const uint64_t guid = md5_name_ref(name);
    const uint64_t mid = md5_name_ref("mid_" + std::to_string(f));
    const uint64_t leaf = md5_name_ref("leaf_" + std::to_string(f));
    put_u64(s.desc, guid);
    put_u64(s.desc, 0x0001000012345678ull);
    append_uleb128(s.desc, name.size());
    s.desc += name;
    s.symbols[guid] = SymbolRange{0x1000 + uint64_t(f) * 0x100, 0x1000 + uint64_t(f + 1) * 0x100};
    put_u64(s.probe, guid);
    put_probes(s.probe, 6, 1, 4, s.probes);     // function: 6 probes, inlines mid at 6
    append_uleb128(s.probe, 6);
    put_u64(s.probe, mid);
    put_probes(s.probe, 5, 1, -16, s.probes);   // mid: 5 probes, inlines leaf at 5
    append_uleb128(s.probe, 5);
    put_u64(s.probe, leaf);
    put_probes(s.probe, 3, 0, -8, s.probes);    // leaf: 3 probes
  }
  return s;
}

void BM_DecodeSynthetic(benchmark::State& state) {
  const Synthetic s = make_synthetic(static_cast<int>(state.range(0)));
  const SectionBytes desc{as_bytes(s.desc), 0};
  const SectionBytes probe{as_bytes(s.probe), 0};
  DecodeOptions options;
  options.symbols = &s.symbols;
  for (auto _ : state) {
    auto map = ProbeMap::decode({&desc, 1}, {&probe, 1}, options);
    if (!map) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(map);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * s.probes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (s.desc.size() + s.probe.size())));
  state.counters["probes"] = static_cast<double>(s.probes);
}
BENCHMARK(BM_DecodeSynthetic)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Decoding a real binary's sections (including building the symbol map from .symtab).
void BM_DecodeBinary(benchmark::State& state) {
  const char* path = std::getenv("PROFKIT_PROBE_BENCH_BINARY");
  if (path == nullptr) {
    state.SkipWithError("set PROFKIT_PROBE_BENCH_BINARY to an ELF file with probes");
    return;
  }
  std::string data;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) data.append(buf, n);
    std::fclose(f);
  }
  auto elf = elf::ElfFile::parse(as_bytes(data));
  if (!elf) {
    state.SkipWithError("not an ELF file");
    return;
  }
  auto symbols = elf->static_symbols();
  if (!symbols) {
    state.SkipWithError("bad symbol table");
    return;
  }
  uint64_t probes = 0;
  for (auto _ : state) {
    auto decoded = decode_elf_probes(*elf, *symbols);
    if (!decoded) state.SkipWithError("decode failed");
    probes = decoded ? decoded->map.probes().size() : 0;
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * probes));
  state.counters["probes"] = static_cast<double>(probes);
}
BENCHMARK(BM_DecodeBinary)->Unit(benchmark::kMillisecond);

}  // namespace
