// Milliseconds since start-up, from the kernel's coarse clock (default) or from the
// time-stamp counter anchored to CLOCK_REALTIME per thread and recalibrated (exact
// milliseconds: llvm_compat, coarse_clock=0); and the current CPU.
#include "runtime/clock.h"

#include <elf.h>
#include <link.h>
#include <sched.h>
#include <sys/auxv.h>
#include <time.h>

#include <cpuid.h>

#include "runtime/globals.h"

namespace profkit::rt {

namespace {
// Timestamps: clock_gettime costs 60-100 ns per call on a virtual machine (the vDSO reads
// the paravirtual clock), and every allocation and free needs one. With an invariant TSC,
// each thread keeps an anchor (TSC, clock_gettime) pair and extrapolates for up to 16 ms
// with the TSC rate measured over the whole run so far, then re-anchors; the error stays
// far below the millisecond resolution of MIB timestamps.
constexpr int64_t kAnchorNs = 16'000'000;
constexpr int64_t kCalibrationNs = 10'000'000;  // shortest span a rate is measured over
// The coarse clock is the kernel's time at its last tick, read from the vDSO's data page
// with no TSC read: 15-20 ns less per allocation and per free than the TSC on this VM
// (a third of a malloc/free pair), for timestamps up to one tick early (docs/runtime.md,
// "Timestamps"). Used when its tick is at most kCoarseMaxNs.
constexpr long kCoarseMaxNs = 4'000'000;
bool g_coarse = false;
// What reads the coarse clock: the vDSO's own function when it can be found, else libc's
// clock_gettime, which calls the same function through the PLT and a wrapper that loads
// the pointer from the loader's data: 11.7-13.0 ns per call against 8.7-9.2 ns for the
// direct call on this VM (20 million calls each, load 8), and every allocation and free
// makes one.
using ClockRead = int (*)(clockid_t, timespec*);
ClockRead g_coarse_read = clock_gettime;
bool g_tsc_ok = false;
uint64_t g_tsc_origin = 0;
int64_t g_ns_origin = 0;

struct TimeAnchor {
  uint64_t tsc = 0;
  uint64_t limit = 0;  // ticks the anchor is valid for; 0 = no anchor
  int64_t ns = 0;
  // Nanoseconds per tick in 32.32 fixed point: one multiply per timestamp. The anchor is
  // valid for 16 ms (below 2^26 ticks up to 4 GHz) and the rate is below 2^32 (a TSC of
  // at least 1 GHz), so the product stays below 2^58.
  uint64_t ns_per_tick_q32 = 0;
};
__thread TimeAnchor tls_anchor PROFKIT_RT_TLS;

inline uint64_t read_tsc() { return __builtin_ia32_rdtsc(); }

int64_t realtime_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return (now.tv_sec - g.time_origin_sec) * 1'000'000'000 + now.tv_nsec;
}

PROFKIT_RT_NOINLINE int64_t now_ns_slow() {
  const int64_t ns = realtime_ns();
  if (!g_tsc_ok) return ns;
  const uint64_t tsc = read_tsc();
  double rate = 0;
  if (ns - g_ns_origin >= kCalibrationNs && tsc > g_tsc_origin)
    rate = static_cast<double>(ns - g_ns_origin) / static_cast<double>(tsc - g_tsc_origin);
  if (rate > 0 && rate < 1.0) {
    tls_anchor.tsc = tsc;
    tls_anchor.ns = ns;
    tls_anchor.ns_per_tick_q32 = static_cast<uint64_t>(rate * 4294967296.0);
    tls_anchor.limit = static_cast<uint64_t>(static_cast<double>(kAnchorNs) / rate);
  }
  return ns;
}
// The vDSO's __vdso_clock_gettime, from its dynamic symbol table (the kernel maps the
// vDSO as a small ELF object whose address the auxiliary vector gives); nullptr where
// there is no vDSO or no DT_HASH table to bound the symbol table by.
ClockRead find_vdso_clock_gettime() {
  const auto base = static_cast<uintptr_t>(getauxval(AT_SYSINFO_EHDR));
  if (base == 0) return nullptr;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(base + eh->e_phoff);
  uintptr_t bias = 0;
  bool loaded = false;
  const ElfW(Phdr)* dynamic = nullptr;
  for (unsigned i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && !loaded) {
      bias = base + ph[i].p_offset - ph[i].p_vaddr;
      loaded = true;
    }
    if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
  }
  if (!loaded || dynamic == nullptr) return nullptr;
  const ElfW(Sym)* symbols = nullptr;
  const char* strings = nullptr;
  const uint32_t* hash = nullptr;
  for (const auto* d = reinterpret_cast<const ElfW(Dyn)*>(bias + dynamic->p_vaddr); d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(bias + d->d_un.d_ptr);
    if (d->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(bias + d->d_un.d_ptr);
    if (d->d_tag == DT_HASH) hash = reinterpret_cast<const uint32_t*>(bias + d->d_un.d_ptr);
  }
  if (symbols == nullptr || strings == nullptr || hash == nullptr) return nullptr;
  static constexpr char kName[] = "__vdso_clock_gettime";
  for (uint32_t i = 0; i < hash[1]; ++i) {  // hash[1]: the number of symbols
    const ElfW(Sym)& sym = symbols[i];
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
    const char* name = strings + sym.st_name;
    size_t k = 0;
    while (kName[k] != '\0' && name[k] == kName[k]) ++k;
    if (kName[k] == '\0' && name[k] == '\0') return reinterpret_cast<ClockRead>(bias + sym.st_value);
  }
  return nullptr;
}
}  // namespace

void init_clock(const timespec& origin, bool coarse) {
  // The vDSO's function is used only if it answers as libc's does.
  if (ClockRead direct = find_vdso_clock_gettime()) {
    timespec a{}, b{};
    if (clock_gettime(CLOCK_REALTIME_COARSE, &a) == 0 && direct(CLOCK_REALTIME_COARSE, &b) == 0 &&
        b.tv_sec >= a.tv_sec && b.tv_sec - a.tv_sec <= 1)
      g_coarse_read = direct;
  }
  timespec res{};
  g_coarse = coarse && clock_getres(CLOCK_REALTIME_COARSE, &res) == 0 && res.tv_sec == 0 &&
             res.tv_nsec <= kCoarseMaxNs;
  // CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every C/P-state. Only the
  // fine clock reads the TSC; in a VM each CPUID traps to the hypervisor (1% of the start-up
  // of a small program), so a coarse clock skips it.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  g_tsc_ok = !g_coarse && __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0;
  g_ns_origin = origin.tv_nsec;  // origin.tv_sec is g.time_origin_sec
  g_tsc_origin = read_tsc();
}

bool clock_is_coarse() { return g_coarse; }

uint32_t now_ms() {
  if (PROFKIT_RT_LIKELY(g_coarse)) {
    timespec t{};
    g_coarse_read(CLOCK_REALTIME_COARSE, &t);
    // Up to a tick behind CLOCK_REALTIME, so just after start-up it may lie before the
    // origin's second: 0 then, not a wrapped value.
    const int64_t ms = (t.tv_sec - g.time_origin_sec) * 1000 + t.tv_nsec / 1'000'000;
    return ms > 0 ? static_cast<uint32_t>(ms) : 0;
  }
  int64_t ns;
  const TimeAnchor& a = tls_anchor;
  const uint64_t d = g_tsc_ok ? read_tsc() - a.tsc : ~uint64_t{0};
  if (PROFKIT_RT_LIKELY(d < a.limit))
    ns = a.ns + static_cast<int64_t>((d * a.ns_per_tick_q32) >> 32);
  else
    ns = now_ns_slow();
  return static_cast<uint32_t>(static_cast<int>(ns / 1'000'000));
}

}  // namespace profkit::rt
