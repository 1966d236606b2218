// Runs a program under ptrace, one instruction at a time, and writes what a sampling
// `perf record -b [-g]` on LBR hardware would have recorded, as `perf script` text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/bytes/expected.h"
#include "tools/branch-trace/perf_script.h"

namespace profkit::branch_trace {

enum class SampleEvent {
  instructions,  // a sample after every `period` retired instructions
  branches,      // a sample after every `period` taken branches
};

enum class StackSource {
  shadow,         // the tracer's own record of calls and returns (exact)
  frame_pointer,  // walk the rbp chain from the sample point, as `perf record --call-graph fp`
};

enum class StepMode {
  instruction,  // PTRACE_SINGLESTEP everywhere
  block,        // straight-line code runs to a temporary breakpoint; branches are stepped
};

struct TraceOptions {
  std::vector<std::string> command;  // PROGRAM ARGS...
  std::string lbr_output;            // LBR-only script; empty: not written
  std::string hybrid_output;         // call stack + LBR script; empty: not written
  SampleEvent event = SampleEvent::instructions;
  uint64_t period = 1000;
  size_t depth = 32;                 // branches per sample, as a 32-entry LBR
  StackSource stack = StackSource::shadow;
  size_t max_stack = 127;            // frames per call stack, the IP included (perf's default)
  FlagStyle flags = FlagStyle::classic;
  StepMode step = StepMode::block;
  bool from_exec = false;            // also trace the dynamic loader (default: from AT_ENTRY)
  bool no_aslr = false;              // run with ADDR_NO_RANDOMIZE: the same addresses every run
};

struct TraceStats {
  uint64_t instructions = 0;  // instructions retired while traced
  uint64_t branches = 0;      // taken branches among them
  uint64_t samples = 0;
  uint64_t mmap_events = 0;
  int exit_status = 0;        // the program's exit code, or 128 + signal
  double seconds = 0;
};

Expected<TraceStats> run_trace(const TraceOptions& options);

}  // namespace profkit::branch_trace
