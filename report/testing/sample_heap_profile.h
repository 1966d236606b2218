// A small hand-built heap profile for the export tests: four contexts under main, one with
// an inlined frame, one cold, one hot, and a function name that tries to close a <script>.
#pragma once

#include <string>
#include <vector>

#include "report/heap_profile.h"

namespace profkit::report::testing {

inline HeapFrame frame(std::string function, std::string linkage, std::string file,
                       uint32_t line, uint32_t column, bool inlined, uint64_t pc) {
  HeapFrame f;
  f.function = std::move(function);
  f.linkage_name = std::move(linkage);
  f.file = std::move(file);
  f.line = line;
  f.column = column;
  f.inlined = inlined;
  f.pc = pc;
  return f;
}

inline HeapContext context(uint64_t id, std::vector<HeapFrame> frames, uint32_t count,
                           uint64_t bytes, uint64_t accesses, uint64_t lifetime_ms,
                           Verdict verdict) {
  HeapContext c;
  c.id = id;
  c.frames = std::move(frames);
  c.mib.AllocCount = count;
  c.mib.TotalSize = bytes;
  c.mib.MinSize = static_cast<uint32_t>(bytes / count);
  c.mib.MaxSize = static_cast<uint32_t>(bytes / count);
  c.mib.TotalAccessCount = accesses;
  c.mib.TotalLifetime = lifetime_ms;
  c.mib.MaxLifetime = static_cast<uint32_t>(lifetime_ms);
  c.mib.DeallocTimestamp = 900;
  c.verdict = verdict;
  c.why = "made by hand";
  return c;
}

// Contexts (leaf first), all called from main:
//   1 make_buffer [inlined into] Parser::load <- main        4 x 1 KiB, cold
//   2 std::vector<int>::push_back [inlined into] Parser::load <- main   10 x 64 B
//   3 cache_entry <- main                                      1 x 1 MiB, hot
//   4 tricky</script><img ...> <- helper <- main              3 x 100 B
inline HeapProfile sample_heap_profile() {
  const std::string app = "/src/app/";
  HeapFrame main7 = frame("main", "main", app + "main.cc", 7, 3, false, 0x401500);
  HeapFrame main9 = frame("main", "main", app + "main.cc", 9, 3, false, 0x401520);
  HeapProfile p;
  p.path = "sample.memprofraw";
  p.kind = "hand-made";
  p.contexts.push_back(context(
      0x1111, {frame("make_buffer(unsigned long)", "_Z11make_bufferm", app + "buffers.cc", 12, 10, true, 0x401200),
               frame("Parser::load()", "_ZN6Parser4loadEv", app + "parser.cc", 40, 5, false, 0x401200),
               main7},
      4, 4096, 100, 1'000'000, Verdict::cold));
  p.contexts.push_back(context(
      0x2222, {frame("std::vector<int>::push_back(int const&)", "_ZNSt6vectorIiE9push_backERKi",
                     "/usr/include/c++/12/bits/stl_vector.h", 1281, 9, true, 0x401300),
               frame("Parser::load()", "_ZN6Parser4loadEv", app + "parser.cc", 44, 7, false, 0x401300),
               main7},
      10, 640, 5000, 30, Verdict::not_cold));
  p.contexts.push_back(context(
      0x3333, {frame("cache_entry()", "_Z11cache_entryv", app + "cache.cc", 3, 12, false, 0x401600), main9},
      1, 1 << 20, 9'000'000, 10, Verdict::hot));
  p.contexts.push_back(context(
      0x4444, {frame("tricky</script><img src=x onerror=alert(1)>", "", app + "evil.cc", 1, 1, false, 0x401700),
               frame("helper()", "_Z6helperv", app + "main.cc", 20, 3, false, 0x401540), main9},
      3, 300, 30, 60, Verdict::not_cold));
  HeapSummary& s = p.summary;
  s.contexts = 4;
  s.allocations = 4 + 10 + 1 + 3;
  s.bytes = 4096 + 640 + (1 << 20) + 300;
  s.accesses = 100 + 5000 + 9'000'000 + 30;
  s.cold_contexts = 1;
  s.hot_contexts = 1;
  s.not_cold_contexts = 2;
  s.cold_bytes = 4096;
  s.hot_bytes = 1 << 20;
  s.not_cold_bytes = 640 + 300;
  return p;
}

}  // namespace profkit::report::testing
