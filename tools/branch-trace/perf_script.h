// Text in the layouts `perf script --show-mmap-events -F ip,brstack` prints, which is what
// llvm-profgen reads:
//
//   PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xSIZE) @ PGOFF MAJ:MIN INODE GEN]: r-xp PATH
//
//   LBR-only sample (no call chain recorded), one line:
//   " %16lx" IP, then per branch, newest first, " 0xFROM/0xTO/FLAGS "
//
//   call chain + LBR sample (`perf record -b -g`):
//   "\n", then "\t%16lx\n" for the IP and each return address (innermost first),
//   then the branches as above on one line, then "\n".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tools/branch-trace/lbr.h"

namespace profkit::branch_trace {

// How the flags after FROM/TO look; llvm-profgen reads only FROM and TO.
enum class FlagStyle {
  classic,  // "/P/-/-/0"      perf before 5.x's branch types (LLVM's older test inputs)
  spec,     // "/P/-/-/0//-"   newer perf: + branch type (none recorded) + speculation
  typed,    // "/P/-/-/0/COND/-" newer perf with `-j any,save_type`
};

struct MmapEvent {
  int pid = 0;
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t pgoff = 0;
  unsigned dev_major = 0;
  unsigned dev_minor = 0;
  uint64_t inode = 0;
  uint64_t generation = 0;
  std::string prot;  // "r-xp"
  std::string path;  // file path or a pseudo name such as [vdso]
};

void append_mmap2(std::string& out, const MmapEvent& event);
void append_lbr_sample(std::string& out, uint64_t ip, const BranchRing& ring, FlagStyle style);
// `stack` = the IP, then return addresses, innermost first.
void append_hybrid_sample(std::string& out, std::span<const uint64_t> stack,
                          const BranchRing& ring, FlagStyle style);

}  // namespace profkit::branch_trace
