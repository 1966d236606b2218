// The default stack walker: unwind tables (.eh_frame), so stacks stay right through code
// built without frame pointers (libstdc++, libc), at close to the cost of a frame-pointer
// walk. For each return address the frame rule (where the CFA is, where the caller's rbp
// was saved) is computed once from the CFI of its FDE, found through glibc's
// _dl_find_object and the object's .eh_frame_hdr search table, and kept in a per-thread
// set-associative cache with a process-wide table behind it; a walk is then a cache probe
// and two loads per frame. Whatever the walker cannot follow (CFA expressions as in signal
// trampolines, an rbp kept in another register, a frame outside the thread's stack) makes
// it give up, and the caller falls back to libunwind for that stack.
#include <dlfcn.h>
#include <emmintrin.h>
#include <sys/mman.h>

#include <atomic>
#include <bit>

#include "runtime/base.h"
#include "runtime/thread_state.h"
#include "runtime/walker.h"

namespace profkit::rt {
namespace {

// DWARF register numbers (x86-64 psABI).
constexpr uint64_t kRegRbp = 6, kRegRsp = 7, kRegRa = 16;

// DW_EH_PE pointer encodings.
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPePcrel = 0x10, kPeDatarel = 0x30, kPeIndirect = 0x80;

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  bool has(size_t n) {
    if (static_cast<size_t>(end - p) < n) ok = false;
    return ok;
  }
  template <class T>
  T fixed() {
    if (!has(sizeof(T))) return 0;
    T v;
    __builtin_memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; has(1); shift += 7) {
      const uint8_t b = *p++;
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
    return 0;
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (!has(1)) return 0;
      b = *p++;
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  // An encoded pointer; `data_base` for datarel. The application part is ignored when
  // `value_only` (an FDE's address range is a plain length).
  uint64_t pointer(uint8_t enc, uint64_t data_base, bool value_only = false) {
    if (enc == kPeOmit) return 0;
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    uint64_t v;
    switch (enc & 0x0f) {
      case 0x00: v = fixed<uint64_t>(); break;
      case 0x01: v = uleb(); break;
      case 0x02: v = fixed<uint16_t>(); break;
      case 0x03: v = fixed<uint32_t>(); break;
      case 0x04: v = fixed<uint64_t>(); break;
      case 0x09: v = static_cast<uint64_t>(sleb()); break;
      case 0x0a: v = static_cast<uint64_t>(static_cast<int64_t>(fixed<int16_t>())); break;
      case 0x0b: v = static_cast<uint64_t>(static_cast<int64_t>(fixed<int32_t>())); break;
      case 0x0c: v = fixed<uint64_t>(); break;
      default: ok = false; return 0;
    }
    if (value_only) return v;
    switch (enc & 0x70) {
      case 0x00: break;
      case kPePcrel: v += at; break;
      case kPeDatarel: v += data_base; break;
      default: ok = false; return 0;
    }
    if (enc & kPeIndirect) {
      ok = false;  // never used for FDE addresses in practice
      return 0;
    }
    return v;
  }
};

// A factored offset (ULEB/SLEB operand times the CIE's data alignment) with wrap-around:
// corrupt tables must not overflow; absurd offsets are rejected when the rule is built.
inline int64_t scaled(uint64_t operand, int64_t factor) {
  return static_cast<int64_t>(operand * static_cast<uint64_t>(factor));
}

// How a register of the caller is recovered.
enum class Saved : uint8_t { same, at_cfa, undefined, other };

struct CfiState {
  uint64_t cfa_reg = kRegRsp;
  int64_t cfa_offset = 8;
  bool cfa_expression = false;
  Saved rbp = Saved::same, ra = Saved::same;
  int64_t rbp_offset = 0, ra_offset = 0;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint64_t ra_register = kRegRa;
  uint8_t fde_encoding = 0;
  bool has_augmentation_data = false;
  bool signal_frame = false;
  const uint8_t* instructions = nullptr;
  const uint8_t* end = nullptr;
};

// The loaded object's mapped bytes, [lo, hi): every read of its unwind tables stays inside.
struct Image {
  const uint8_t* lo;
  const uint8_t* hi;
  bool holds(const uint8_t* p, uint64_t n) const {
    return p >= lo && p <= hi && n <= static_cast<uint64_t>(hi - p);
  }
};

// Length-prefixed entry at `p` (CIE or FDE): body start and end, or false.
bool entry_bounds(const Image& image, const uint8_t* p, const uint8_t** body,
                  const uint8_t** end) {
  if (!image.holds(p, 4)) return false;
  uint32_t length32;
  __builtin_memcpy(&length32, p, 4);
  p += 4;
  uint64_t length = length32;
  if (length32 == 0xffffffffu) {
    if (!image.holds(p, 8)) return false;
    __builtin_memcpy(&length, p, 8);
    p += 8;
  }
  if (length < 4 || !image.holds(p, length)) return false;
  *body = p;
  *end = p + length;
  return true;
}

bool parse_cie(const Image& image, const uint8_t* at, Cie* cie) {
  const uint8_t* body;
  const uint8_t* end;
  if (!entry_bounds(image, at, &body, &end)) return false;
  Reader r{body, end};
  if (r.fixed<uint32_t>() != 0) return false;  // CIE id in .eh_frame
  const uint8_t version = r.fixed<uint8_t>();
  if (version != 1 && version != 3) return false;
  const char* augmentation = reinterpret_cast<const char*>(r.p);
  while (r.has(1) && *r.p != 0) ++r.p;
  if (!r.has(1)) return false;
  ++r.p;
  cie->code_align = r.uleb();
  cie->data_align = r.sleb();
  cie->ra_register = version == 1 ? r.fixed<uint8_t>() : r.uleb();
  if (augmentation[0] == 'z') {
    cie->has_augmentation_data = true;
    const uint64_t length = r.uleb();
    if (!r.has(length)) return false;
    const uint8_t* data_end = r.p + length;
    for (const char* a = augmentation + 1; *a != 0 && r.ok; ++a) {
      switch (*a) {
        case 'R': cie->fde_encoding = r.fixed<uint8_t>(); break;
        case 'L': r.fixed<uint8_t>(); break;
        case 'P': {
          const uint8_t enc = r.fixed<uint8_t>();
          r.pointer(static_cast<uint8_t>(enc & ~kPeIndirect), 0);
          break;
        }
        case 'S': cie->signal_frame = true; break;
        default: break;  // 'B', 'G' and the like carry no data we need
      }
    }
    r.p = data_end;
  } else if (augmentation[0] != 0) {
    return false;  // pre-'z' GCC augmentations ("eh"): never emitted for x86-64 today
  }
  cie->instructions = r.p;
  cie->end = end;
  return r.ok;
}

// Runs CFA instructions from `r` until the location passes `target`. `initial` is the CIE's
// state (for DW_CFA_restore). False on anything malformed.
bool run_cfi(Reader r, const Cie& cie, uint64_t loc, uint64_t target, const CfiState& initial,
             CfiState* state) {
  constexpr int kMaxRemembered = 8;
  CfiState remembered[kMaxRemembered];
  int depth = 0;
  auto set_saved = [&](uint64_t reg, Saved how, int64_t offset) {
    if (reg == kRegRbp) {
      state->rbp = how;
      state->rbp_offset = offset;
    } else if (reg == cie.ra_register) {
      state->ra = how;
      state->ra_offset = offset;
    }
  };
  auto restore = [&](uint64_t reg) {
    if (reg == kRegRbp) {
      state->rbp = initial.rbp;
      state->rbp_offset = initial.rbp_offset;
    } else if (reg == cie.ra_register) {
      state->ra = initial.ra;
      state->ra_offset = initial.ra_offset;
    }
  };
  while (r.ok && r.p < r.end) {
    const uint8_t op = *r.p++;
    const uint8_t low = op & 0x3f;
    uint64_t advance = 0;
    switch (op >> 6) {
      case 1: advance = low; break;
      case 2: set_saved(low, Saved::at_cfa, scaled(r.uleb(), cie.data_align)); continue;
      case 3: restore(low); continue;
      default: break;
    }
    if (op >> 6 == 0) {
      switch (op) {
        case 0x00: continue;                                        // nop
        case 0x01: {                                                // set_loc
          const uint64_t to = r.pointer(cie.fde_encoding, 0);
          if (to > target) return r.ok;
          loc = to;
          continue;
        }
        case 0x02: advance = r.fixed<uint8_t>(); break;             // advance_loc1
        case 0x03: advance = r.fixed<uint16_t>(); break;            // advance_loc2
        case 0x04: advance = r.fixed<uint32_t>(); break;            // advance_loc4
        case 0x05: {                                                // offset_extended
          const uint64_t reg = r.uleb();
          set_saved(reg, Saved::at_cfa, scaled(r.uleb(), cie.data_align));
          continue;
        }
        case 0x06: restore(r.uleb()); continue;                     // restore_extended
        case 0x07: set_saved(r.uleb(), Saved::undefined, 0); continue;
        case 0x08: set_saved(r.uleb(), Saved::same, 0); continue;   // same_value
        case 0x09: {                                                // register
          const uint64_t reg = r.uleb();
          r.uleb();
          set_saved(reg, Saved::other, 0);
          continue;
        }
        case 0x0a:                                                  // remember_state
          if (depth == kMaxRemembered) return false;
          remembered[depth++] = *state;
          continue;
        case 0x0b:                                                  // restore_state
          if (depth == 0) return false;
          *state = remembered[--depth];
          continue;
        case 0x0c:                                                  // def_cfa
          state->cfa_reg = r.uleb();
          state->cfa_offset = static_cast<int64_t>(r.uleb());
          state->cfa_expression = false;
          continue;
        case 0x0d: state->cfa_reg = r.uleb(); state->cfa_expression = false; continue;
        case 0x0e: state->cfa_offset = static_cast<int64_t>(r.uleb()); continue;
        case 0x0f: {                                                // def_cfa_expression
          const uint64_t n = r.uleb();
          if (r.has(n)) r.p += n;
          state->cfa_expression = true;
          continue;
        }
        case 0x10: case 0x16: {                                     // [val_]expression
          const uint64_t reg = r.uleb();
          const uint64_t n = r.uleb();
          if (r.has(n)) r.p += n;
          set_saved(reg, Saved::other, 0);
          continue;
        }
        case 0x11: {                                                // offset_extended_sf
          const uint64_t reg = r.uleb();
          set_saved(reg, Saved::at_cfa, scaled(static_cast<uint64_t>(r.sleb()), cie.data_align));
          continue;
        }
        case 0x12:                                                  // def_cfa_sf
          state->cfa_reg = r.uleb();
          state->cfa_offset = scaled(static_cast<uint64_t>(r.sleb()), cie.data_align);
          state->cfa_expression = false;
          continue;
        case 0x13: state->cfa_offset = scaled(static_cast<uint64_t>(r.sleb()), cie.data_align); continue;
        case 0x14: case 0x15: {                                     // val_offset[_sf]
          const uint64_t reg = r.uleb();
          if (op == 0x14) r.uleb(); else r.sleb();
          set_saved(reg, Saved::other, 0);
          continue;
        }
        case 0x2e: r.uleb(); continue;                              // GNU_args_size
        case 0x2f: {                                                // GNU_negative_offset_extended
          const uint64_t reg = r.uleb();
          set_saved(reg, Saved::at_cfa, scaled(0 - r.uleb(), cie.data_align));
          continue;
        }
        default: return false;
      }
    }
    loc += advance * cie.code_align;
    if (loc > target) break;
  }
  return r.ok;
}

// The FDE of the last function starting at or before `pc` in the object's .eh_frame_hdr
// search table, or nullptr (`*before_all`: the table is sound and starts after `pc`).
const uint8_t* find_fde(const Image& image, const uint8_t* hdr, uintptr_t pc, bool* before_all) {
  if (hdr == nullptr || !image.holds(hdr, 4) || hdr[0] != 1) return nullptr;
  const uint8_t table_enc = hdr[3];
  if (table_enc != (kPeDatarel | 0x0b)) return nullptr;  // sorted table of sdata4 pairs
  Reader r{hdr + 4, image.hi};
  const uint64_t base = reinterpret_cast<uintptr_t>(hdr);
  r.pointer(hdr[1], base);
  const uint64_t count = r.pointer(hdr[2], base);
  if (!r.ok || count == 0 || count > static_cast<uint64_t>(image.hi - r.p) / 8) return nullptr;
  const uint8_t* table = r.p;
  auto entry = [table](uint64_t i, int field) {
    int32_t v;
    __builtin_memcpy(&v, table + 8 * i + 4 * field, 4);
    return static_cast<int64_t>(v);
  };
  uint64_t lo = 0, hi = count;  // last entry with initial location <= pc
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (base + static_cast<uint64_t>(entry(mid, 0)) <= pc)
      lo = mid;
    else
      hi = mid;
  }
  if (base + static_cast<uint64_t>(entry(lo, 0)) > pc) {
    *before_all = true;
    return nullptr;
  }
  const uint64_t fde = base + static_cast<uint64_t>(entry(lo, 1));
  const uint64_t image_lo = reinterpret_cast<uintptr_t>(image.lo);
  if (fde < image_lo || fde - image_lo >= static_cast<uint64_t>(image.hi - image.lo)) return nullptr;
  return image.lo + (fde - image_lo);
}

}  // namespace

// The rule at `pc` from an object's .eh_frame_hdr at `hdr`, all of whose reads stay in
// `image` (runtime_unwind_fuzz.cc drives this with arbitrary bytes).
FrameRule rule_from_tables(const uint8_t* image_lo, const uint8_t* image_hi, const uint8_t* hdr,
                           uintptr_t pc) {
  FrameRule bad{FrameRule::bad, 0, 0, 0};
  const Image image{image_lo, image_hi};
  bool before_all = false;
  const uint8_t* fde = find_fde(image, hdr, pc, &before_all);
  if (fde == nullptr) return before_all ? FrameRule{FrameRule::no_entry, 0, 0, 0} : bad;
  const uint8_t* body;
  const uint8_t* end;
  if (!entry_bounds(image, fde, &body, &end)) return bad;
  uint32_t cie_pointer;
  __builtin_memcpy(&cie_pointer, body, 4);
  if (cie_pointer == 0 || cie_pointer > static_cast<uint64_t>(body - image.lo)) return bad;
  Cie cie;
  if (!parse_cie(image, body - cie_pointer, &cie) || cie.signal_frame) return bad;
  Reader r{body + 4, end};
  const uint64_t begin = r.pointer(cie.fde_encoding, 0);
  const uint64_t range = r.pointer(cie.fde_encoding, 0, true);
  if (!r.ok) return bad;
  if (pc < begin || pc - begin >= range) return FrameRule{FrameRule::no_entry, 0, 0, 0};
  if (cie.has_augmentation_data) {
    const uint64_t n = r.uleb();
    if (!r.has(n)) return bad;
    r.p += n;
  }
  CfiState initial;
  if (!run_cfi(Reader{cie.instructions, cie.end}, cie, begin, ~uint64_t{0}, initial, &initial))
    return bad;
  CfiState state = initial;
  if (!run_cfi(r, cie, begin, pc, initial, &state)) return bad;
  if (state.ra == Saved::undefined) return FrameRule{FrameRule::outermost, 0, 0, 0};
  if (state.cfa_expression || (state.cfa_reg != kRegRsp && state.cfa_reg != kRegRbp) ||
      state.ra != Saved::at_cfa || state.ra_offset != -8 || state.rbp == Saved::other ||
      state.cfa_offset < 8 || state.cfa_offset > (1 << 30) ||
      (state.rbp == Saved::at_cfa && (state.rbp_offset < -32768 || state.rbp_offset > -8)))
    return bad;
  FrameRule rule;
  rule.kind = state.cfa_reg == kRegRsp ? FrameRule::from_rsp : FrameRule::from_rbp;
  rule.rbp = state.rbp == Saved::at_cfa ? FrameRule::rbp_saved
             : state.rbp == Saved::undefined ? FrameRule::rbp_lost
                                             : FrameRule::rbp_same;
  rule.cfa_offset = static_cast<int32_t>(state.cfa_offset);
  rule.rbp_offset = rule.rbp == FrameRule::rbp_saved ? static_cast<int16_t>(state.rbp_offset) : 0;
  return rule;
}

namespace {

// Computes the rule of the frame whose return address is `ra`.
FrameRule compute_rule(uintptr_t ra) {
  const uintptr_t pc = ra - 1;  // inside the call instruction: right even for noreturn calls
  dl_find_object object;
  if (_dl_find_object(reinterpret_cast<void*>(pc), &object) != 0)
    return FrameRule{FrameRule::bad, 0, 0, 0};
  return rule_from_tables(static_cast<const uint8_t*>(object.dlfo_map_start),
                          static_cast<const uint8_t*>(object.dlfo_map_end),
                          static_cast<const uint8_t*>(object.dlfo_eh_frame), pc);
}

// The process's rules, shared by its threads behind their own caches: a program whose hot
// return addresses outnumber a thread's cache (thousands of allocation sites, called in
// turn) recomputed a rule from the unwind tables at nearly every walk, a third of its run.
// Lock-free: a slot's key goes 0 (or a key of an older code generation) -> kClaimed -> its
// key, published after the rule. A key is the return address with the code generation
// (g_code_generation, counted at each dlclose that unloads code) in its top 16 bits, so a
// rule learnt before code was unloaded no longer matches, and its slot is taken again like
// a free one; a reader checks the key again after reading the rule (a slot can be taken
// again under it). When the generation's low 16 bits wrap, forget_shared_rules empties the
// table, so that a key's generation bits stand for one generation. A probe that finds
// neither the key nor a slot to take among its kSharedProbe slots computes the rule and
// keeps it only in the thread's cache. Return addresses above 2^48 (none on x86-64 Linux
// unless asked for) are never kept here. Reserved on the first miss, touched page by page.
constexpr uint32_t kSharedRuleBits = 16;
constexpr uint32_t kSharedProbe = 4;  // one cache line
constexpr uintptr_t kClaimed = 1;
constexpr int kGenerationShift = 48;
struct SharedRule {
  std::atomic<uintptr_t> key;
  std::atomic<uint64_t> rule;
};
std::atomic<SharedRule*> g_shared_rules{nullptr};

SharedRule* shared_rules() {
  SharedRule* table = g_shared_rules.load(std::memory_order_acquire);
  if (PROFKIT_RT_LIKELY(table != nullptr)) return table;
  constexpr size_t kBytes = sizeof(SharedRule) << kSharedRuleBits;
  void* fresh = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (fresh == MAP_FAILED) return nullptr;
  madvise(fresh, kBytes, MADV_NOHUGEPAGE);  // a few pages of it are used, not 2 MiB
  if (!g_shared_rules.compare_exchange_strong(table, static_cast<SharedRule*>(fresh),
                                              std::memory_order_acq_rel))
    munmap(fresh, kBytes);  // another thread's table won
  return g_shared_rules.load(std::memory_order_acquire);
}

FrameRule shared_rule(ThreadState* state, uintptr_t ra) {
  SharedRule* free_slot = nullptr;  // where the computed rule goes (none: no table, or full)
  uintptr_t free_key = 0;           // what that slot held
  const uintptr_t generation = state->code_generation & 0xffff;
  const uintptr_t key = ra | generation << kGenerationShift;
  SharedRule* const table = ra >> kGenerationShift == 0 ? shared_rules() : nullptr;
  if (table != nullptr) {
    const uint64_t hash = (ra ^ (ra >> 29)) * 0xBF58476D1CE4E5B9ull;
    SharedRule* const line =
        table + ((hash >> (64 - kSharedRuleBits)) & ~uint64_t{kSharedProbe - 1});
    for (uint32_t i = 0; i < kSharedProbe; ++i) {
      const uintptr_t held = line[i].key.load(std::memory_order_acquire);
      if (held == key) {
        const uint64_t rule = line[i].rule.load(std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (line[i].key.load(std::memory_order_relaxed) == key) {
          ++state->walk_stats.rules_shared;
          return std::bit_cast<FrameRule>(rule);
        }
        continue;  // taken again while it was read: compute the rule
      }
      const bool stale = held != kClaimed && held >> kGenerationShift != generation;
      const bool takeable = held == 0 || stale;
      if (takeable && free_slot == nullptr) {
        free_slot = &line[i];
        free_key = held;
      }
    }
  }
  ++state->walk_stats.rules_computed;
  const FrameRule rule = compute_rule(ra);
  if (free_slot != nullptr &&
      free_slot->key.compare_exchange_strong(free_key, kClaimed, std::memory_order_relaxed)) {
    std::atomic_thread_fence(std::memory_order_release);  // kClaimed before the new rule
    free_slot->rule.store(std::bit_cast<uint64_t>(rule), std::memory_order_relaxed);
    free_slot->key.store(key, std::memory_order_release);
  }
  return rule;
}

inline FrameCacheSet& frame_cache_set(ThreadState* state, uintptr_t ra) {
  constexpr int kSetBits = __builtin_ctz(kFrameCacheSets);
  return state->frame_cache[(ra * 0x9E3779B97F4A7C15ull) >> (64 - kSetBits)];
}
// The new rule goes first, the oldest one drops out.
inline FrameRule cache_in(FrameCacheSet& set, uintptr_t ra, FrameRule rule) {
  for (uint32_t w = kFrameCacheWays - 1; w > 0; --w) set.ways[w] = set.ways[w - 1];
  set.ways[0].rule = rule;
  set.ways[0].pc = ra;
  return rule;
}
// A miss: the shared table or the unwind tables, then the thread's cache.
PROFKIT_RT_NOINLINE FrameRule rule_missed(ThreadState* state, FrameCacheSet& set, uintptr_t ra) {
  return cache_in(set, ra, shared_rule(state, ra));
}
// Inlined into every walk step (a call per step was 10% of a depth-30 walk's instructions).
PROFKIT_RT_ALWAYS_INLINE inline FrameRule rule_for(ThreadState* state, uintptr_t ra) {
  FrameCacheSet& set = frame_cache_set(state, ra);
  for (const FrameCacheEntry& e : set.ways)
    if (e.pc == ra) return e.rule;
  return rule_missed(state, set, ra);
}

// One step outward by a frame's rule from its registers (sp, bp): the caller's CFA and, for
// a rule that saves rbp, the slot it is saved in (0 otherwise). False where the step cannot
// be taken: no CFA rule, a CFA from an rbp that is not known, a CFA not above sp, above
// `high` or misaligned, a saved rbp below sp. Every walker steps with this.
struct RuleStep {
  uintptr_t cfa, rbp_slot;
};
PROFKIT_RT_ALWAYS_INLINE inline bool rule_step(FrameRule rule, uintptr_t sp, uintptr_t bp,
                                               bool bp_known, uintptr_t high, RuleStep* out) {
  if ((rule.kind != FrameRule::from_rsp && rule.kind != FrameRule::from_rbp) ||
      (rule.kind == FrameRule::from_rbp && !bp_known))
    return false;
  const uintptr_t cfa = (rule.kind == FrameRule::from_rsp ? sp : bp) + rule.cfa_offset;
  if (cfa <= sp || cfa > high || (cfa & 7) != 0) return false;
  out->cfa = cfa;
  out->rbp_slot = 0;
  if (rule.rbp == FrameRule::rbp_saved) {
    out->rbp_slot = cfa + rule.rbp_offset;  // rbp_offset <= -8: below the CFA
    if (out->rbp_slot < sp) return false;
  }
  return true;
}

}  // namespace

void cache_rule(ThreadState* state, uintptr_t ra, FrameRule rule) {
  cache_in(frame_cache_set(state, ra), ra, rule);
}

namespace {

// The memo of the call site whose return address is `caller_return`.
inline WalkMemo& memo_for(ThreadState* state, uintptr_t caller_return) {
  constexpr int kMemoBits = __builtin_ctz(kWalkMemos);
  return state->walk_memo[(caller_return * 0x9E3779B97F4A7C15ull) >> (64 - kMemoBits)];
}

// What an irregular step's check record points at (see WalkCheck): zeros, which never match
// the non-zero return address a checked step read.
alignas(16) constexpr uintptr_t kIrregularWords[2] = {0, 0};

// The replay's tight loop: checks the records c, c - 1, ... down to just above `stop`, four
// per test (their 16 stack bytes against the records', with no branch between them), and
// writes their pcs to `out`. An irregular step (a frame without a frame pointer: libstdc++,
// libc) fails that test and is checked here, one at a time, from the addresses its step
// read (`steps`, parallel to `checks`); returning to the caller for each cost more than the
// check in stacks that cross libstdc++ or a benchmark library.
// Returns the record it stopped at: `stop`, or the first whose words differ. A frame's pc
// is the return address its callee's step read, so all but the first of four come from the
// words just compared. Out of line, so that its few registers are its own.
PROFKIT_RT_NOINLINE const WalkCheck* replay_checked(const WalkCheck* c, const WalkCheck* stop,
                                                    uintptr_t* out, const WalkCheck* checks,
                                                    const WalkStep* steps) {
  auto differs = [](const WalkCheck& r) PROFKIT_RT_ALWAYS_INLINE {
    const __m128i diff = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r.at)),
                                       _mm_load_si128(reinterpret_cast<const __m128i*>(&r)));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) != 0xffff;
  };
  for (;;) {
    while (c - stop >= 4) {
      const __m128i w0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c[0].at));
      const __m128i w1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c[-1].at));
      const __m128i w2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c[-2].at));
      const __m128i w3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c[-3].at));
      const __m128i diff = _mm_or_si128(
          _mm_or_si128(_mm_xor_si128(w0, _mm_load_si128(reinterpret_cast<const __m128i*>(&c[0]))),
                       _mm_xor_si128(w1, _mm_load_si128(reinterpret_cast<const __m128i*>(&c[-1])))),
          _mm_or_si128(_mm_xor_si128(w2, _mm_load_si128(reinterpret_cast<const __m128i*>(&c[-2]))),
                       _mm_xor_si128(w3, _mm_load_si128(reinterpret_cast<const __m128i*>(&c[-3])))));
      if (_mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) != 0xffff) break;
      out[0] = c[0].pc;
      _mm_storeh_pd(reinterpret_cast<double*>(out + 1), _mm_castsi128_pd(w0));
      _mm_storeh_pd(reinterpret_cast<double*>(out + 2), _mm_castsi128_pd(w1));
      _mm_storeh_pd(reinterpret_cast<double*>(out + 3), _mm_castsi128_pd(w2));
      out += 4;
      c -= 4;
    }
    // Fewer than four left, or one of four differs: one at a time up to it, then four again.
    const WalkCheck* const until = c - stop >= 4 ? c - 4 : stop;
    for (; c != until; --c, ++out) {
      if (differs(*c)) {
        if (c->at != reinterpret_cast<uintptr_t>(kIrregularWords)) return c;
        const WalkStep& step = steps[c - checks];
        if (*reinterpret_cast<const uintptr_t*>(step.bp_at) != c->bp_val ||
            *reinterpret_cast<const uintptr_t*>(step.ra_at) != c->ra)
          return c;
      }
      *out = c->pc;
    }
    if (c == stop) return c;
  }
}

}  // namespace

uint32_t walk_unwind_tables(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                            uintptr_t* out, uint32_t max, WalkMemo** memo_out, uint64_t* hash_out,
                            WalkShare* share) {
  *memo_out = nullptr;
  *hash_out = 0;
  share->prev_id = 0;
  const uintptr_t low = state->stack_low, high = state->stack_high;
  if (high == 0 || caller_frame < low || caller_frame + 16 > high || (caller_frame & 7) != 0 ||
      max == 0 || max > kWalkMemoSteps)
    return 0;
  // The entry point keeps a frame pointer: its caller's stack pointer is just above the
  // entry's saved rbp and return address, and the caller's rbp is the saved one.
  uintptr_t pc = caller_return;
  uintptr_t sp = caller_frame + 16;
  uintptr_t bp = *reinterpret_cast<const uintptr_t*>(caller_frame);
  bool bp_known = true;
  auto load = [](uintptr_t at) { return *reinterpret_cast<const uintptr_t*>(at); };
  WalkMemo& memo = memo_for(state, caller_return);
  // Every address the memo holds was checked to lie in this thread's stack when it was
  // recorded (memos are dropped when a state changes threads), so re-reading is safe.
  WalkStep* const old = state->walk_buf[memo.buf].step;
  WalkCheck* const oldc = state->walk_buf[memo.buf].check;
  // New steps go to the spare buffer, leaf at `top` and outward below it, so a walk of up
  // to `max` frames fits and the memo's own steps stay intact until the walk succeeds. The
  // walk sits in the middle of the buffer: what is left over is room for later walks to
  // go deeper (steps after `top`) or, cut at `max`, further out (steps before the first).
  WalkStep* const fresh = state->walk_buf[state->walk_spare].step;
  WalkCheck* const freshc = state->walk_buf[state->walk_spare].check;
  const uint32_t top = kWalkBufSteps - 1 - (kWalkBufSteps - max) / 2;
  uint32_t n = 0;  // frames out so far
  WalkStep* st = nullptr;   // the step being walked, and its check record
  WalkCheck* ck = nullptr;

  // Opens the step at the current frame; advance() fills in what it reads from it.
  auto start_step = [&]() PROFKIT_RT_ALWAYS_INLINE {
    ck->pc = pc;
    ck->ra = 0;
    ck->at = reinterpret_cast<uintptr_t>(kIrregularWords);
    st->sp = sp;
    st->bp = bp;
    st->flags = bp_known ? kStepBpKnown : 0;
    st->bp_at = 0;
    st->ra_at = 0;
  };

  // One step outward from the frame the step records (registers pc, sp, bp): its rule, the
  // words it reads, the caller's registers.
  enum class Next { frame, end, fail };
  auto advance = [&]() PROFKIT_RT_ALWAYS_INLINE -> Next {
    ++state->walk_stats.steps;
    const FrameRule rule = rule_for(state, pc);
    if (rule.kind == FrameRule::outermost) {
      st->flags |= kStepOutermost;
      return Next::end;
    }
    RuleStep next;
    if (!rule_step(rule, sp, bp, bp_known, high, &next)) return Next::fail;
    const uintptr_t cfa = next.cfa;
    st->flags |= (rule.kind == FrameRule::from_rbp ? kStepCfaFromRbp : 0) |
                 (rule.rbp == FrameRule::rbp_saved  ? kStepRbpSaved
                  : rule.rbp == FrameRule::rbp_lost ? kStepRbpLost
                                                    : 0);
    if (next.rbp_slot != 0) {
      bp = load(next.rbp_slot);
      st->bp_at = next.rbp_slot;
      ck->bp_val = bp;
    } else if (rule.rbp == FrameRule::rbp_lost) {
      bp_known = false;
    }
    st->ra_at = cfa - 8;
    pc = load(cfa - 8);
    ck->ra = pc;
    if (st->bp_at == 0) {  // no rbp read: the replay checks the return address twice
      st->bp_at = st->ra_at;
      ck->bp_val = pc;
    }
    ck->at = st->bp_at + 8 == st->ra_at ? st->bp_at : reinterpret_cast<uintptr_t>(kIrregularWords);
    sp = cfa;
    return pc == 0 ? Next::end : Next::frame;  // 0: a thread's or the process's first frame
  };
  // The memo becomes the fresh buffer's `count` steps; their hashes are folded outward-in.
  auto adopt_fresh = [&](uint32_t count) PROFKIT_RT_ALWAYS_INLINE {
    const uint32_t first = top + 1 - count;
    uint64_t h = 0;
    for (uint32_t x = first; x <= top; ++x) fresh[x].hash = h = stack_hash_step(h, freshc[x].pc);
    const uint32_t spare = memo.buf;
    memo.buf = state->walk_spare;
    state->walk_spare = spare;
    memo.first = first;
    memo.end = top + 1;
    memo.max = max;
    memo.context_id = 0;
    memo.walk_first = first;
    memo.walk_leaf = top;
    memo.base = 0;
    *memo_out = &memo;
    *hash_out = stack_hash_final(h, count);
    return count;
  };

  // The memo's frames `from` down to `to`, replayed after `below` fresh frames, copied to
  // the fresh buffer behind them.
  auto copy_replayed = [&](uint32_t below, uint32_t from, uint32_t to) PROFKIT_RT_ALWAYS_INLINE {
    for (uint32_t x = from;; --x) {
      fresh[top - below - (from - x)] = old[x];
      freshc[top - below - (from - x)] = oldc[x];
      if (x == to) break;
    }
  };
  // Whether the stack still holds the words step x of the memo read (for the steps that
  // read both, as every step the tight loop checks did).
  auto still_reads = [&](uint32_t x) PROFKIT_RT_ALWAYS_INLINE {
    return load(old[x].bp_at) == oldc[x].bp_val && load(old[x].ra_at) == oldc[x].ra;
  };

  // Walk from the leaf until a frame has the registers of one of the memo's frames (the
  // memo's stack pointers grow toward `first`, so one cursor moving outward finds it), then
  // replay the memo from there while the words it read are the same. Where one differs,
  // walk on from that frame (copying the replayed frames to the fresh buffer) and look for
  // the memo again further out: a recursion often differs in a middle frame only.
  bool matching = memo.end > memo.first && memo.max == max;
  uint32_t j = matching ? memo.end - 1 : 0;
  uint32_t m = 0, i = 0;
  bool extended = false;  // the memo grew outward: its walk is longer than before
  for (;;) {
    for (;;) {
      while (matching && old[j].sp < sp) {
        if (j == memo.first)
          matching = false;
        else
          --j;
      }
      if (matching && old[j].sp == sp && oldc[j].pc == pc && old[j].bp == bp &&
          ((old[j].flags & kStepBpKnown) != 0) == bp_known)
        break;
      st = &fresh[top - n];
      ck = &freshc[top - n];
      start_step();
      out[n++] = pc;
      if (n == max) {
        st->flags |= kStepCut;
        return adopt_fresh(n);
      }
      const Next next = advance();
      if (next == Next::fail) return 0;
      if (next == Next::end) return adopt_fresh(n);
    }
    m = n;  // frames in the fresh buffer, below the memo's frame j
    // The memo's frames j, j-1, ...: the walk is full at frame `last` if the memo gets there.
    const uint32_t last = j + m + 1 >= max ? j + m + 1 - max : ~uint32_t{0};
    // Only the memo's first step can end a walk (outermost, a zero return address, or cut):
    // every step down to `stop` + 1 read its caller's return address and saved rbp (or the
    // return address again), and is checked in a tight loop, four steps per test: their
    // 16-byte words from the stack against the records, with no branch between them.
    const uint32_t stop = last != ~uint32_t{0} && last > memo.first ? last : memo.first;
    bool differs = false;
    i = j;
    if (i > stop) {
      const WalkCheck* const c = replay_checked(oldc + i, oldc + stop, out + n, oldc, old);
      n += static_cast<uint32_t>(oldc + i - c);
      i = static_cast<uint32_t>(c - oldc);
      if (i != stop) {
        out[n++] = oldc[i].pc;
        differs = true;  // frame i's registers are the memo's; what it reads is not
      }
    }
    if (!differs) {  // step `stop`: the walk is full there, or the memo's walk ended there
      const WalkStep& o = old[i];
      out[n++] = oldc[i].pc;
      if (i == last || (o.flags & (kStepOutermost | kStepCut)) != 0)
        differs = i != last && (o.flags & kStepCut) != 0;  // a cut step read nothing
      else  // it read a zero return address: so does this walk, if the words are the same
        differs = !still_reads(i);
    }
    // The replay got to the memo's first step, where the memo's walk was cut, and this walk
    // needs more frames (its leaf is further out): the memo grows outward in place, before
    // its first step, when its buffer has room there for the rest of the walk and room
    // after it for the fresh frames.
    if (differs && i == memo.first && (old[i].flags & kStepCut) != 0 && i >= max - n &&
        j + m < kWalkBufSteps) {
      st = &old[i];
      ck = &oldc[i];
      pc = ck->pc;
      sp = st->sp;
      bp = st->bp;
      bp_known = (st->flags & kStepBpKnown) != 0;
      st->flags &= kStepBpKnown;
      st->bp_at = 0;
      uint32_t k = i;
      for (;;) {
        const Next next = advance();
        if (next == Next::fail) {  // the memo's first step is half rewritten: drop the memo
          memo.first = memo.end = 0;
          memo.context_id = 0;
          return 0;
        }
        if (next == Next::end) break;
        --k;
        st = &old[k];
        ck = &oldc[k];
        start_step();
        out[n++] = pc;
        if (n == max) {
          st->flags |= kStepCut;
          break;
        }
      }
      // Prefix values of the new steps, backward from the memo's base.
      uint64_t before = memo.base;
      for (uint32_t x = i; x-- > k;) {
        old[x].hash = before;
        before = stack_hash_unstep(before, oldc[x].pc);
      }
      memo.base = before;
      memo.first = k;
      i = k;
      extended = true;
      break;
    }
    if (!differs) break;
    copy_replayed(m, j, i);
    st = &fresh[top - (n - 1)];
    ck = &freshc[top - (n - 1)];
    pc = ck->pc;
    sp = st->sp;
    bp = st->bp;
    bp_known = (st->flags & kStepBpKnown) != 0;
    st->flags &= kStepBpKnown;
    st->bp_at = 0;
    const Next next = advance();
    if (next == Next::fail) return 0;
    if (next == Next::end) return adopt_fresh(n);
    matching = i > memo.first;
    if (matching) j = i - 1;
  }
  // The walk is the fresh frames, then the memo's frames j..i: they replace the memo's
  // frames below j (where there is room; else the fresh buffer takes the whole walk).
  if (j + m >= kWalkBufSteps) {
    copy_replayed(m, j, i);
    const uint32_t x = top - (n - 1);
    if (n == max && !(fresh[x].flags & kStepOutermost) && freshc[x].ra != 0)
      fresh[x].flags |= kStepCut;
    return adopt_fresh(n);
  }
  const bool whole_replay = m == 0 && j + 1 == memo.end && !extended;
  if (m != 0) {
    // Usually one or two steps: copied inline (a memcpy call would be the runtime's own
    // interposed one).
    uint64_t h = old[j].hash;
    for (uint32_t x = j + 1, y = top + 1 - m; x <= j + m; ++x, ++y) {
      old[x] = fresh[y];
      oldc[x] = freshc[y];
      old[x].hash = h = stack_hash_step(h, oldc[x].pc);
    }
  }
  memo.end = j + m + 1;
  if (whole_replay && memo.context_id != 0) {  // the memo's own stack: its id is all it needs
    memo.walk_first = i;
    *memo_out = &memo;
    return n;
  }
  // The steps i .. j were replayed unchanged: those of them the previous walk had are
  // frames it shares with this one.
  const uint32_t shared_first = i > memo.walk_first ? i : memo.walk_first;
  const uint32_t shared_last = j < memo.walk_leaf ? j : memo.walk_leaf;
  if (memo.context_id != 0 && shared_first <= shared_last) {
    share->prev_id = memo.context_id;
    share->lo = memo.end - 1 - shared_last;
    share->hi = memo.end - 1 - shared_first;
    share->shift = static_cast<int32_t>(memo.end - 1 - memo.walk_leaf);
  }
  memo.walk_first = i;
  memo.walk_leaf = memo.end - 1;
  if (!whole_replay) memo.context_id = 0;
  *memo_out = &memo;
  // The walk is the memo's steps i .. end - 1.
  const uint64_t before = i == memo.first ? memo.base : old[i - 1].hash;
  *hash_out = stack_hash_final(stack_hash_window(before, old[memo.end - 1].hash, n), n);
  return n;
}

uint32_t walk_other_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                          uintptr_t* out, uint32_t max) {
  // Such a stack's bounds are the program's secret (a malloc'd or mmap'd block): frames
  // must lie above the entry point's and, as a bound on a walk gone astray, within the
  // span a large coroutine stack could have.
  constexpr uintptr_t kSpan = uintptr_t{64} << 20;
  if ((caller_frame & 7) != 0 || caller_frame == 0 || caller_frame > ~uintptr_t{0} - kSpan ||
      max == 0)
    return 0;
  const uintptr_t high = caller_frame + kSpan;
  auto load = [](uintptr_t at) { return *reinterpret_cast<const uintptr_t*>(at); };
  uintptr_t pc = caller_return;
  uintptr_t sp = caller_frame + 16;
  uintptr_t bp = load(caller_frame);
  bool bp_known = true;
  ++state->walk_stats.other_stacks;
  uint32_t n = 0;
  for (;;) {
    out[n++] = pc;
    if (n == max) return n;
    ++state->walk_stats.steps;
    const FrameRule rule = rule_for(state, pc);
    if (rule.kind == FrameRule::outermost || rule.kind == FrameRule::no_entry) return n;
    RuleStep next;
    if (!rule_step(rule, sp, bp, bp_known, high, &next)) return 0;
    if (next.rbp_slot != 0)
      bp = load(next.rbp_slot);
    else if (rule.rbp == FrameRule::rbp_lost)
      bp_known = false;
    pc = load(next.cfa - 8);
    sp = next.cfa;
    if (pc == 0) return n;  // as a thread's first frame
  }
}

namespace {
// The return address the first step of a walk from these registers reads, found as that
// step finds it, with the leaf's rule (kept in the call site's memo); 0 where that step
// cannot be taken (rule_step).
inline uintptr_t leaf_tag(ThreadState* state, WalkMemo& memo, uintptr_t pc, uintptr_t sp,
                          uintptr_t bp) {
  if (memo.leaf_rule_pc != pc) {
    memo.leaf_rule = rule_for(state, pc);
    memo.leaf_rule_pc = pc;
  }
  RuleStep next;
  if (!rule_step(memo.leaf_rule, sp, bp, true, state->stack_high, &next)) return 0;
  return *reinterpret_cast<const uintptr_t*>(next.cfa - 8);
}
inline bool same_leaf(const ExactKey& k, uintptr_t pc, uintptr_t sp, uintptr_t bp, uint32_t max) {
  return k.pc == pc && k.sp == sp && (k.bp == bp || !k.uses_bp) && k.max == max;
}
// Whether way `w` of `set` holds this walk: the same leaf registers and depth, and every
// word its walk read and used unchanged (the tag first, at one load). Pairs are compared as
// 16 bytes, outermost first, four at a time with no branch between them: the walks of a
// recursion that share a leaf differ from near the outermost frame on, and a miss among
// them stops at the first four pairs that differ instead of reading all (a third of
// tree.cpp's probes compared every word of a way that then missed). Then the other words.
inline bool exact_way_matches(const ExactSet& set, uint32_t w, uintptr_t pc, uintptr_t sp,
                              uintptr_t bp, uint32_t max) {
  const ExactKey& key = set.key[w];
  if (!same_leaf(key, pc, sp, bp, max) || key.context_id == 0 ||
      *reinterpret_cast<const uintptr_t*>(key.tag_at) != key.tag)
    return false;
  const ExactWalk& e = set.walk[w];
  const uint32_t pairs = key.pairs;
  for (uint32_t i = 0; i < pairs;) {
    __m128i pair_diff = _mm_setzero_si128();
    for (const uint32_t end = i + 4 < pairs ? i + 4 : pairs; i < end; ++i) {
      const __m128i now = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e.at[i]));
      const __m128i then = _mm_load_si128(reinterpret_cast<const __m128i*>(e.value + 2 * i));
      pair_diff = _mm_or_si128(pair_diff, _mm_xor_si128(now, then));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(pair_diff, _mm_setzero_si128())) != 0xffff) return false;
  }
  uintptr_t diff = 0;
  for (uint32_t j = 0; j < key.singles; ++j)
    diff |= *reinterpret_cast<const uintptr_t*>(e.at[pairs + j]) ^ e.value[2 * pairs + j];
  return diff == 0;
}
// The ways a call site used last and the one before (WalkMemo::exact_last, exact_prev).
inline uint16_t exact_way_code(uint32_t set_index, uint32_t w) {
  return static_cast<uint16_t>(set_index * kExactWays + w + 1);
}
inline void note_exact_way(WalkMemo& memo, uint32_t set_index, uint32_t w) {
  const uint16_t code = exact_way_code(set_index, w);
  if (code == memo.exact_last) return;
  memo.exact_prev = memo.exact_last;
  memo.exact_last = code;
}
inline uint32_t exact_hit(ThreadState* state, WalkMemo& memo, uint32_t set_index, uint32_t w) {
  ExactSet& set = state->exact[set_index];
  set.recent = w;
  set.key[w].used = ++state->exact_clock;
  note_exact_way(memo, set_index, w);
  if (memo.exact_score < kExactScoreMax) ++memo.exact_score;
  memo.exact_backoff = 0;
  return set.key[w].context_id;
}
// The ways of set `set_index` but the two the call site used last (probed already), the one
// used last in the set first: the depot id of the walk when one holds it, else 0.
[[gnu::always_inline]] inline uint32_t probe_exact_set(ThreadState* state, WalkMemo& memo,
                                                       uint32_t set_index, uintptr_t pc,
                                                       uintptr_t sp, uintptr_t bp, uint32_t max) {
  const ExactSet& set = state->exact[set_index];
  const uint16_t last = memo.exact_last, prev = memo.exact_prev;
  for (uint32_t k = 0; k < kExactWays; ++k) {
    const uint32_t w = (set.recent + k) % kExactWays;
    const uint16_t code = exact_way_code(set_index, w);
    if (code == last || code == prev) continue;
    if (exact_way_matches(set, w, pc, sp, bp, max)) return exact_hit(state, memo, set_index, w);
  }
  return 0;
}
// The second set, out of line: it holds only walks whose first set was full, and a probe
// gets here only when the walk is in neither of the two ways its site used last nor its
// first set, which is rare but at sites with more paths than a set has ways (and before a
// walk).
[[gnu::noinline]] uint32_t probe_second_exact_set(ThreadState* state, WalkMemo& memo,
                                                  uintptr_t tag, uintptr_t pc, uintptr_t sp,
                                                  uintptr_t bp, uint32_t max) {
  return probe_exact_set(state, memo, exact_sets(pc, sp, tag).second, pc, sp, bp, max);
}
}  // namespace

uint32_t exact_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                     uint32_t max) {
  if (caller_frame < state->stack_low || caller_frame + 16 > state->stack_high ||
      (caller_frame & 7) != 0)
    return 0;
  // Where the call site's last walk was too long to keep (a recursion at a depth limit
  // above kExactSteps), or its probes kept missing, the probe would only cost time.
  WalkMemo& memo = memo_for(state, caller_return);
  if (memo.exact_pause != 0) {
    --memo.exact_pause;
    ++state->walk_stats.exact_skipped;
    return 0;
  }
  if (memo.walk_leaf + 1 - memo.walk_first > kExactSteps) {
    ++state->walk_stats.exact_skipped;
    return 0;
  }
  // The entry point's caller: its registers as the walk starts (walk_unwind_tables).
  const uintptr_t sp = caller_frame + 16;
  const uintptr_t bp = *reinterpret_cast<const uintptr_t*>(caller_frame);
  // The ways this call site used last and the one before, first: most sites take one path
  // most of the time, or alternate between two (a string built and then copied), and their
  // sets are then known without the tag (whose load the set index would wait for). With
  // the last way alone, 61% of kvstore.cpp's hits went on to compute the tag and probe a set.
  for (const uint16_t code : {memo.exact_last, memo.exact_prev}) {
    if (code == 0) break;
    const uint32_t set_index = (code - 1u) / kExactWays, w = (code - 1u) % kExactWays;
    if (exact_way_matches(state->exact[set_index], w, caller_return, sp, bp, max)) {
      ++state->walk_stats.exact_recent_hits;
      return exact_hit(state, memo, set_index, w);
    }
  }
  const uintptr_t tag = leaf_tag(state, memo, caller_return, sp, bp);
  const uint32_t first = exact_sets(caller_return, sp, tag).first;
  if (const uint32_t id = probe_exact_set(state, memo, first, caller_return, sp, bp, max))
    return id;
  if (const uint32_t id = probe_second_exact_set(state, memo, tag, caller_return, sp, bp, max))
    return id;
  if (--memo.exact_score <= kExactGiveUp) {
    memo.exact_score = kExactRetry;
    memo.exact_pause = static_cast<uint16_t>(kExactPause << memo.exact_backoff);
    if (memo.exact_backoff < kExactBackoffMax) ++memo.exact_backoff;
  }
  return 0;
}

void remember_exact_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                          uint32_t max, WalkMemo* memo, uint32_t context_id) {
  const uint32_t n = memo->walk_leaf + 1 - memo->walk_first;
  if (n > kExactSteps || context_id == 0 || memo->exact_pause != 0) return;
  const uintptr_t sp = caller_frame + 16;
  const uintptr_t bp = *reinterpret_cast<const uintptr_t*>(caller_frame);  // the walk checked it
  const ExactSetPair sets =
      exact_sets(caller_return, sp, leaf_tag(state, *memo, caller_return, sp, bp));
  // An empty way of the first set, else of the second, else the least recently used way of
  // both (the probe missed, so no way holds this walk). The first set holds the walks of a
  // site taken by a few paths, so their probes look in it alone, as with one set.
  uint32_t set_index = sets.first, way = 0, oldest = 0;
  bool empty = false;
  for (const uint32_t s : {sets.first, sets.second})
    for (uint32_t w = 0; w < kExactWays && !empty; ++w) {
      const ExactKey& k = state->exact[s].key[w];
      const uint32_t age = state->exact_clock - k.used;
      if (k.context_id == 0 || age > oldest) {
        set_index = s;
        way = w;
        oldest = age;
        empty = k.context_id == 0;
      }
    }
  ExactSet& set = state->exact[set_index];
  set.recent = way;
  note_exact_way(*memo, set_index, way);
  ExactKey& key = set.key[way];
  ExactWalk& e = set.walk[way];
  const WalkCheck* const checks = state->walk_buf[memo->buf].check + memo->walk_first;
  const WalkStep* const steps = state->walk_buf[memo->buf].step + memo->walk_first;
  // Which rbp values the walk used: a step that takes its CFA from rbp uses the value the
  // nearest step below it read (or, if none did, the leaf's). A saved rbp that no step used
  // is left out: code without frame pointers saves whatever it kept in rbp, which changed
  // from call to call (half of strings.cpp's entries failed on it).
  bool used[kExactSteps] = {};
  bool uses_bp = false;
  constexpr uint32_t kLeaf = kExactSteps, kLost = kExactSteps + 1;
  uint32_t source = kLeaf;  // the step whose read is the frame's rbp
  for (uint32_t k = n; k-- > 0;) {
    const uint32_t flags = steps[k].flags;
    if ((flags & kStepCfaFromRbp) != 0) {
      if (source == kLeaf) uses_bp = true;
      else if (source < kExactSteps) used[source] = true;
    }
    if ((flags & kStepRbpSaved) != 0) source = k;
    else if ((flags & kStepRbpLost) != 0) source = kLost;
  }
  // The outermost step read nothing when the rule said so or the walk was cut there.
  uint32_t pairs = 0, singles = 0;
  uintptr_t single_at[2 * kExactSteps], single_value[2 * kExactSteps];
  for (uint32_t k = 0; k < n; ++k) {
    if (k == 0 && (steps[0].flags & (kStepOutermost | kStepCut)) != 0) continue;
    if (used[k] && steps[k].bp_at + 8 == steps[k].ra_at) {
      e.at[pairs] = steps[k].bp_at;
      e.value[2 * pairs] = checks[k].bp_val;
      e.value[2 * pairs + 1] = checks[k].ra;
      ++pairs;
      continue;
    }
    single_at[singles] = steps[k].ra_at;
    single_value[singles++] = checks[k].ra;
    if (used[k]) {
      single_at[singles] = steps[k].bp_at;
      single_value[singles++] = checks[k].bp_val;
    }
  }
  for (uint32_t j = 0; j < singles; ++j) {  // pairs + singles and 2 pairs + singles <= 2n
    e.at[pairs + j] = single_at[j];
    e.value[2 * pairs + j] = single_value[j];
  }
  // Within the set, the leaf step's return address tells the paths through one leaf apart at
  // one load; a leaf step that read nothing (the walk's only step) is tagged with a word
  // that is 0.
  const bool leaf_read = !(n == 1 && (steps[0].flags & (kStepOutermost | kStepCut)) != 0);
  key.tag_at = leaf_read ? steps[n - 1].ra_at : reinterpret_cast<uintptr_t>(kIrregularWords);
  key.tag = leaf_read ? checks[n - 1].ra : 0;
  key.used = ++state->exact_clock;
  key.pairs = static_cast<uint8_t>(pairs);
  key.singles = static_cast<uint8_t>(singles);
  key.pc = caller_return;
  key.sp = sp;
  key.bp = bp;
  key.max = static_cast<uint16_t>(max);
  key.uses_bp = uses_bp;
  key.context_id = context_id;
}

void forget_shared_rules() {
  // Zero pages in place of the table's (once per 65,536 unloads: shared_rule's keys say
  // which generation a rule is of, modulo that): a probe then finds no rule.
  if (SharedRule* const table = g_shared_rules.load(std::memory_order_acquire))
    madvise(table, sizeof(SharedRule) << kSharedRuleBits, MADV_DONTNEED);
}

void forget_code(ThreadState* state) {
  for (FrameCacheSet& set : state->frame_cache) set = FrameCacheSet{};
  forget_walks(state);
}

void forget_walks(ThreadState* state, bool exact_keys) {
  // The keys only: a way whose key is empty is never read, and writing the walks (136 KiB,
  // most of it never touched by a thread with a few stacks) cost every dlclose 30 us. A new
  // state's keys are zero already: clearing them touched a page per set (64 KiB per
  // thread, 8 000 threads alive at once).
  if (exact_keys)
    for (ExactSet& set : state->exact) {
      for (ExactKey& key : set.key) key = ExactKey{};
      set.recent = 0;
    }
  for (uint32_t i = 0; i < kWalkMemos; ++i) {
    WalkMemo& memo = state->walk_memo[i];
    memo.first = memo.end = 0;
    memo.max = 0;
    memo.context_id = 0;
    memo.walk_first = memo.walk_leaf = 0;
    memo.base = 0;
    memo.exact_score = 0;
    memo.exact_pause = 0;
    memo.exact_backoff = 0;
    memo.leaf_rule_pc = 0;
    memo.exact_last = memo.exact_prev = 0;
    memo.buf = i;
  }
  state->walk_spare = kWalkMemos;
}

}  // namespace profkit::rt
