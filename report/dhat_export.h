// `profkit report --dhat`: a heap profile in the JSON format valgrind's DHAT writes
// (dhatFileVersion 2, mode "heap"), so valgrind's own viewer, dh_view.html, opens it.
#pragma once

#include <string>

#include "report/heap_profile.h"

namespace profkit::report {

// One program point (PP) per allocation context, its frames innermost first as DHAT lists
// them. What maps and what cannot (memprof does not measure everything DHAT does):
//   tbk (blocks) = AllocCount, tb (bytes) = TotalSize,
//   tl (lifetimes) = TotalLifetime in microseconds (tu "µs", Mtu "s": rates are per second),
//   mb / mbk (the PP's peak) = MaxSize in 1 block: the largest block, a lower bound,
//   gb, gbk, eb, ebk (bytes and blocks live at the global peak and at exit) = 0: unknown;
//   te (program end) = the latest deallocation timestamp, or without timestamps (indexed
//     inputs) the longest lifetime, a lower bound; tg (global peak) = 0,
//   tuth (the "short-lived" threshold) = 1 ms, memprof's timestamp resolution.
// Accesses are not exported (bkacc false): memprof counts reads and writes together, per
// 64-byte granule, and DHAT wants bytes read and bytes written apart.
// Contexts whose frames print identically (dh_view rejects repeated PPs) are merged.
std::string dhat_json(const HeapProfile& profile);

}  // namespace profkit::report
