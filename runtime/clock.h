// Time since start-up in milliseconds and the current CPU, as MIBs record them.
#pragma once

#include <sched.h>
#include <stddef.h>
#include <time.h>

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define PROFKIT_RT_RSEQ_CPU 1
#endif
#endif

#include "runtime/base.h"

namespace profkit::rt {

uint32_t now_ms();
// At init, after g.time_origin_sec: the coarse clock if `coarse` and its tick is short
// enough, else the exact one.
void init_clock(const timespec& origin, bool coarse);
bool clock_is_coarse();

// The CPU this thread runs on, as sched_getcpu() returns it. glibc (2.35 and later)
// registers an rseq area for every thread, in which the kernel keeps the current CPU, and
// its sched_getcpu reads it there; read inline, it costs a load instead of a call (the call
// was 0.4-0.6% of the samples on the bench workloads: one per allocation and per free).
// Where rseq is not registered (old kernels, glibc.pthread.rseq=0) the field is negative.
inline uint32_t current_cpu() {
#ifdef PROFKIT_RT_RSEQ_CPU
  int32_t cpu;
  asm volatile("movl %%fs:(%1), %0"
               : "=r"(cpu)
               : "r"(__rseq_offset + static_cast<ptrdiff_t>(offsetof(struct rseq, cpu_id))));
  if (PROFKIT_RT_LIKELY(cpu >= 0)) return static_cast<uint32_t>(cpu);
#endif
  return static_cast<uint32_t>(sched_getcpu());
}

}  // namespace profkit::rt
