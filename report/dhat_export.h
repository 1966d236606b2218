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
//   gb, gbk (bytes and blocks live at the global peak), eb, ebk (live at exit) and tg (time
//     of the global peak) = profkit's live/peak data (HeapProfile::live_peak), 0 without it;
//     mb / mbk then are at least gb / gbk;
//   te (program end) = the latest deallocation timestamp or the dump's time, or without
//     timestamps (indexed inputs) the longest lifetime, a lower bound,
//   tuth (the "short-lived" threshold) = 1 ms, memprof's timestamp resolution.
// Accesses are not exported (bkacc false): memprof counts reads and writes together, per
// 64-byte granule, and DHAT wants bytes read and bytes written apart.
// Contexts whose frames print identically (dh_view rejects repeated PPs) are merged.
std::string dhat_json(const HeapProfile& profile);

}  // namespace profkit::report
