// The stack walker: frame rules from unwind tables, their per-thread cache, and the walk
// memo a call site's next walk replays (unwind.cc).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

struct ThreadState;

// How to get from a frame to its caller, for one return address: the CFA is rsp or rbp plus
// an offset, the return address sits just below the CFA, and the caller's rbp is unchanged,
// saved at CFA + rbp_offset, or lost.
struct FrameRule {
  // no_entry: the object has unwind tables but none for this address (code between
  // functions: a return address that is not after a call, as makecontext's stacks hold).
  enum Kind : uint8_t { unknown, bad, outermost, from_rsp, from_rbp, no_entry };
  enum Rbp : uint8_t { rbp_same, rbp_saved, rbp_lost };
  uint8_t kind = unknown;
  uint8_t rbp = rbp_same;
  int16_t rbp_offset = 0;
  int32_t cfa_offset = 0;
};
struct FrameCacheEntry {
  uintptr_t pc = 0;
  FrameRule rule;
};
static_assert(sizeof(FrameCacheEntry) == 16);
static_assert(sizeof(FrameRule) == 8, "the shared rule table stores a rule in one word");
// Per thread state: 256 sets of 4 ways, a set per cache line. Set-associative because with
// ASLR a direct-mapped table sometimes put two hot return addresses in one slot, and both
// were then recomputed on every allocation (a third of the run time when it happened).
inline constexpr uint32_t kFrameCacheWays = 4;
inline constexpr uint32_t kFrameCacheSets = 256;
struct alignas(64) FrameCacheSet {
  FrameCacheEntry ways[kFrameCacheWays];
};

// The last walk from a call site (unwind.cc), replayed by re-reading the words it read: a
// walk is a function of its registers (pc, sp, rbp) at any frame and of the words it reads
// from there on, so once a new walk reaches a frame of the memo's walk with the very same
// registers, the rest is the memo's while those words match; at the first difference the
// walk goes on from there. Steps are kept outermost first, so a walk that differs only
// near the leaf (a recursion one level deeper or shallower) rewrites only those steps.
inline constexpr uint32_t kWalkMemos = 16;     // per thread state, by call site
inline constexpr uint32_t kWalkMemoSteps = 256; // a whole walk (malloc_context_size <= 255)
// A memo's buffer holds more steps than a walk takes: a walk cut at its depth limit keeps
// room on both sides, so a recursion that allocates a level deeper or shallower moves the
// cut window within the buffer (new outer steps go before the memo's first) instead of
// rewriting the whole walk into the spare buffer.
inline constexpr uint32_t kWalkBufSteps = 512;
// A memo's steps are kept in two parallel arrays. WalkCheck is all the replay reads for a
// frame: its pc, and the two words its step read, as they were. A step that found the
// caller's rbp saved just below the return address (every frame-pointer frame) read both
// words at `at` and `at + 8`, and the replay compares those 16 bytes with `bp_val, ra` in one
// go; any other step's `at` points at zeros, which never match its return address (a step
// the replay checks read a non-zero one), and is checked again from its WalkStep.
struct alignas(32) WalkCheck {
  uintptr_t bp_val, ra;  // the caller's saved rbp (or the return address again), the return address
  uintptr_t at;
  uintptr_t pc;          // the frame's pc
};
// WalkStep::flags. A walk ends at an outermost frame, at a return address of 0 (the step
// that read it is the last), or cut at `max` frames (nothing was read at the cut step). A
// step that applied its rule also notes what the rule did with rbp (remember_exact_stack).
inline constexpr uint32_t kStepBpKnown = 1, kStepOutermost = 2, kStepCut = 4;
inline constexpr uint32_t kStepCfaFromRbp = 8, kStepRbpSaved = 16, kStepRbpLost = 32;
struct WalkStep {
  uintptr_t sp, bp;         // the walk's registers at the frame
  uint32_t flags;           // kStep* above
  uint32_t pad;
  uintptr_t bp_at, ra_at;   // where the saved rbp (or, for a step that reads none, the
                            // return address again) and the return address were read
  uint64_t hash;            // stack_hash_step over the memo's frames from its first to this one
};
struct WalkBuf {
  WalkCheck check[kWalkBufSteps];
  WalkStep step[kWalkBufSteps];
};
struct WalkMemo {
  uint32_t first = 0, end = 0;  // its steps: [first, end) of its buffer, outermost first
  uint32_t max = 0;             // the depth it was walked with
  uint32_t context_id = 0;      // the depot id of the walk it holds; 0 until interned
  uint32_t buf = 0;             // which of the thread state's walk buffers holds the steps
  uint32_t walk_first = 0, walk_leaf = 0;  // the steps of the walk it holds (whose id is context_id)
  uint64_t base = 0;            // the hash "before" the first step (see stack_hash_window)
  int16_t exact_score = 0;      // the exact-stack cache's hits less misses at this site
  uint16_t exact_pause = 0;     // captures left before this site probes that cache again
  // The frame rule of the call site's return address, for the exact-stack cache's set index
  // (kept here: the memo is at hand there, the rule cache is a hash and a set away).
  uintptr_t leaf_rule_pc = 0;   // the return address it is the rule of (0: none)
  FrameRule leaf_rule;
  uint16_t exact_last = 0;      // set * kExactWays + way + 1 of the exact-stack cache's way
                                // this site hit or wrote last (0: none)
  uint16_t exact_prev = 0;      // the way it used before that one (0: none)
  uint8_t exact_backoff = 0;    // pauses in a row with no hit between them (kExactBackoffMax)
};
// The exact-stack cache: walks of up to kExactSteps frames kept whole, by their leaf's
// registers, with the depot id they were given. A memo is one per call site, and sites
// reached by several paths (libstdc++'s string code under every string a program builds;
// Lua's one `realloc` in l_alloc under every allocation the interpreter makes) found the
// memo holding another path's walk most times (kvstore: 28% whole replays, Lua: 30%), then
// walked the frames that differ and looked the stack up in the depot. An entry answers
// when its leaf has the very same registers and every word its walk read is unchanged,
// which makes the walk the same (walk_unwind_tables' reasoning); else the memo walks.
// The leaf's rbp counts only where the walk used it before replacing it: code without frame
// pointers (libstdc++) keeps any value there, which changed from call to call, and a key
// with it missed half the time.
// Eight ways per set, replaced least recently used: the paths through one wrapper reach it
// with the same registers (Lua's l_alloc sits at the same depth under most of its callers);
// the return address its leaf step read (`tag`) spreads them over the sets (below) and tells
// a way from the others before the other words are compared. 32 frames: the default depth
// (malloc_context_size=30) fits, so a program's usual stacks all can be kept; sites where
// the cache keeps missing (a recursion, whose every depth is a new leaf) stop probing for a
// while (WalkMemo::exact_score).
inline constexpr uint32_t kExactSteps = 32;
inline constexpr uint32_t kExactSets = 16;
inline constexpr uint32_t kExactWays = 8;
// A walk's sets are chosen by its leaf's registers and the return address its leaf step
// reads (the tag, below), so the paths through one wrapper spread over the sets: with the
// set chosen by the registers alone, a wrapper called from more places than a set has ways
// (an xmalloc under dozens of callers, called in turn) evicted its own walks and never hit.
// Each walk has two sets it may live in, probed in turn, and is kept in the first with room
// (else in place of the least recently used of both): with one, the paths of a wrapper
// under 48 callers fell on the sets unevenly enough that one got more than its ways in 1 run
// of 20 (by where the program was loaded), and those paths, called in turn, always missed.
// The probe reads the tag where the leaf's frame rule says it is, as the walk's first step
// would; exact_sets gives the sets of a walk with these leaf registers and tag.
struct ExactSetPair {
  uint32_t first, second;  // different sets
};
inline ExactSetPair exact_sets(uintptr_t pc, uintptr_t sp, uintptr_t tag) {
  constexpr int kSetBits = __builtin_ctz(kExactSets);
  const uint64_t h = ((pc * 0x9E3779B97F4A7C15ull) ^ (sp * 0xC4CEB9FE1A85EC53ull) ^
                      (tag * 0xD6E8FEB86659FD93ull)) * 0xFF51AFD7ED558CCDull;
  const auto first = static_cast<uint32_t>(h >> (64 - kSetBits));
  const auto other = static_cast<uint32_t>(h >> (64 - 2 * kSetBits)) & (kExactSets - 1);
  return {first, other != first ? other : first ^ 1};
}
struct ExactKey {
  uintptr_t pc = 0, sp = 0, bp = 0;  // the leaf's registers
  uintptr_t tag_at = 0, tag = 0;     // the leaf step's return address, and where it was read
  uint32_t context_id = 0;           // 0: empty
  uint16_t max = 0;                  // the depth it was walked with
  uint8_t uses_bp = 0;               // the walk used the leaf's rbp: `bp` must match
  uint8_t pairs = 0, singles = 0;    // what its ExactWalk holds
  uint32_t used = 0;                 // ThreadState::exact_clock when it last answered or was written
  uint32_t pad[2] = {};
};
static_assert(sizeof(ExactKey) == 64, "a line per way");
// The words the walk read and used: every return address, and the saved rbp values a later
// step took its CFA from. A frame-pointer frame's saved rbp and return address are adjacent
// and both used: a pair, compared as 16 bytes (`at[i]` for value[2i], value[2i + 1]); the
// other words come after the pairs, one at a time (`at[pairs + j]` for value[2 pairs + j]).
struct ExactWalk {
  uintptr_t at[2 * kExactSteps];
  alignas(16) uintptr_t value[2 * kExactSteps];
};
struct ExactSet {
  ExactKey key[kExactWays];  // together: a probe reads a line per way until the tag matches
  uint32_t recent = 0;       // the way that answered or was written last (probed first)
  ExactWalk walk[kExactWays];
};
// When a site probes the cache (WalkMemo::exact_score): a hit adds one, a miss takes one;
// at kExactGiveUp the site skips the cache (no probe, nothing kept) for its next
// kExactPause captures, then tries again from kExactRetry. Each time it gives up again
// without a hit in between, the pause doubles, up to kExactPause << kExactBackoffMax; any
// hit makes the next pause kExactPause again. A recursion of many depths, whose
// allocations nearly all miss, thus probes and keeps 4 walks in 4 + 32 768 once it has
// settled instead of 4 in 4 + 256: at the default depth of 30 frames, keeping a walk
// (its 30 pairs of words written to a cold way) cost more than the few hits saved
// (recursive.cpp: 244 000 walks kept for 176 000 hits, 7% of the run). A site warming up
// (paths through a wrapper, each kept on its first miss) hits between its pauses, so its
// pauses stay short.
inline constexpr int16_t kExactScoreMax = 64, kExactGiveUp = -16, kExactRetry = -12;
inline constexpr uint16_t kExactPause = 256;
inline constexpr uint8_t kExactBackoffMax = 7;
static_assert((uint32_t{kExactPause} << kExactBackoffMax) <= 0xFFFF, "WalkMemo::exact_pause");

// How the stacks of a thread were captured, printed with atexit=1 (counts only: cheap adds
// to a line the capture writes anyway).
struct WalkStats {
  uint64_t captures = 0;       // capture_stack calls with the own walker
  uint64_t exact_hits = 0;     // answered by the exact-stack cache
  uint64_t exact_recent_hits = 0;  // of those, by one of the two ways its call site used last
  uint64_t exact_skipped = 0;  // not probed: the site's last walk was too long to keep,
                               // or its probes kept missing
  uint64_t walks = 0;          // walk_unwind_tables calls
  uint64_t whole_replays = 0;  // walks that were the memo's own stack (id known)
  uint64_t steps = 0;          // frames stepped with their rules (not replayed)
  uint64_t frames = 0;         // frames the walks gave (stepped or replayed)
  uint64_t interned = 0;       // depot lookups (any capture)
  uint64_t guess_hits = 0;     // of those, found at the thread's guessed node
  uint64_t inserted = 0;       // of those, new stacks
  uint64_t rules_shared = 0;   // frame rules the thread's cache lacked, found in the shared table
  uint64_t rules_computed = 0; // frame rules computed from the unwind tables
  uint64_t other_stacks = 0;   // walks on a stack other than the thread's (walk_other_stack)
  uint64_t by_libunwind = 0;   // captures the own walkers left to libunwind
  uint64_t fold_hits = 0;      // fold_recursion: walks whose folded id the fold cache had

  WalkStats& operator+=(const WalkStats& o) {
    captures += o.captures;
    exact_hits += o.exact_hits;
    exact_recent_hits += o.exact_recent_hits;
    exact_skipped += o.exact_skipped;
    walks += o.walks;
    whole_replays += o.whole_replays;
    steps += o.steps;
    frames += o.frames;
    interned += o.interned;
    guess_hits += o.guess_hits;
    inserted += o.inserted;
    rules_shared += o.rules_shared;
    rules_computed += o.rules_computed;
    other_stacks += o.other_stacks;
    by_libunwind += o.by_libunwind;
    fold_hits += o.fold_hits;
    return *this;
  }
};

// What a walk shares with the memo's previous walk, whose depot id was `prev_id` (0: nothing
// known): frames lo..hi of this walk (leaf first) are that walk's frames lo - shift ..
// hi - shift, replayed from the very same steps, which this walk found unchanged. The depot
// uses it to compare only the other frames (stack.cc).
struct WalkShare {
  uint32_t prev_id = 0;
  uint32_t lo = 0, hi = 0;
  int32_t shift = 0;
};
// The stack hash the depot keys on: a polynomial in the return addresses, outermost frame
// first (h = h * B + pc), modulo 2^64, then mixed. Polynomial so that the hash of any run of
// a memo's steps follows from two prefix values (stack_hash_window): a walk cut at the depth
// limit uses a window of the memo's steps that does not start at its first one, and the
// memo can grow outward (prefix values of earlier steps follow backward with B's inverse).
// Equal hashes are only candidates: the depot compares the frames.
inline constexpr uint64_t kStackHashBase = 0x9E3779B97F4A7C15ull;  // odd: invertible mod 2^64
inline constexpr uint64_t kStackHashBaseInverse = [] {
  uint64_t x = kStackHashBase;  // Newton's iteration doubles the correct low bits each time
  for (int i = 0; i < 6; ++i) x *= 2 - kStackHashBase * x;
  return x;
}();
static_assert(kStackHashBase * kStackHashBaseInverse == 1);
inline uint64_t stack_hash_step(uint64_t h, uintptr_t pc) { return h * kStackHashBase + pc; }
inline uint64_t stack_hash_unstep(uint64_t h, uintptr_t pc) {  // the prefix before `pc`'s step
  return (h - pc) * kStackHashBaseInverse;
}
// B^n for the window lengths a walk can have (n <= kWalkMemoSteps): a table, not a loop of
// squarings, since every walk needs one.
struct StackHashPowers {
  uint64_t p[kWalkMemoSteps + 1];
  constexpr StackHashPowers() : p() {
    p[0] = 1;
    for (uint32_t i = 1; i <= kWalkMemoSteps; ++i) p[i] = p[i - 1] * kStackHashBase;
  }
};
inline constexpr StackHashPowers kStackHashPowers;
inline uint64_t stack_hash_power(uint32_t n) { return kStackHashPowers.p[n]; }  // B^n
// The polynomial of the n steps after the prefix value `before`, up to the prefix value `end`.
inline uint64_t stack_hash_window(uint64_t before, uint64_t end, uint32_t n) {
  return end - before * stack_hash_power(n);
}
inline uint64_t stack_hash_final(uint64_t h, uint32_t n) {
  h += uint64_t{n} * 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h != 0 ? h : 1;  // 0 means "not known" to the depot
}
static_assert((kFrameCacheSets & (kFrameCacheSets - 1)) == 0 &&
              (kWalkMemos & (kWalkMemos - 1)) == 0, "indexed by the top bits of a hash");

// Walks the stack with unwind tables from an entry point's return address and frame (see
// capture_stack); 0 when some frame cannot be followed (the caller then uses libunwind).
// `*memo` is the memo now holding this walk (set whenever the walk succeeds): its
// context_id, when not 0, is the walk's depot id, because a whole replay gives back the
// very same frames. `*hash` is the walk's stack hash (stack_hash_final) when the memo knew
// it, else 0. `*share`: what the walk has in common with the memo's previous walk.
uint32_t walk_unwind_tables(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                            uintptr_t* out, uint32_t max, WalkMemo** memo, uint64_t* hash,
                            WalkShare* share);
// Walks a stack that is not the thread's own (a coroutine's or fiber's, from makecontext or
// a fiber library), from an entry point's return address and frame, without memo or
// cache: their words need not stay readable once the coroutine is gone. Frames are
// followed as libunwind follows them, up to `max`; the walk ends at a frame whose
// return address has no unwind entry in its object (listed, as libunwind lists it: the
// function makecontext returns to). 0 where a frame cannot be followed (libunwind then).
uint32_t walk_other_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                          uintptr_t* out, uint32_t max);
// Drops the remembered walks (a state taken over by another thread, on another stack);
// `exact_keys` false leaves the exact-stack cache's keys (a new state's, zero already).
void forget_walks(ThreadState* state, bool exact_keys = true);
// Code was unloaded (dlclose), and another object may be loaded at its addresses: every
// frame rule, memo and whole walk learnt before may be of code that is gone.
// forget_shared_rules empties the process's rule table (whose entries are kept by code
// generation, modulo 2^16: once per 65,536 unloads); forget_code drops a thread's own rules
// and walks (that thread, before its next walk, with its code_generation already new).
void forget_shared_rules();
void forget_code(ThreadState* state);
// Puts `rule` in the thread's rule cache as the rule of return address `ra` (tests: walks
// over fake stacks, whose addresses have no unwind tables).
void cache_rule(ThreadState* state, uintptr_t ra, FrameRule rule);
// The depot id of the stack from an entry point's return address and frame when the
// exact-stack cache holds it unchanged, else 0.
uint32_t exact_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                     uint32_t max);
// Keeps the walk `memo` holds (walk_unwind_tables just made it, from that return address
// and frame) with its depot id, if it is short enough.
void remember_exact_stack(ThreadState* state, uintptr_t caller_return, uintptr_t caller_frame,
                          uint32_t max, WalkMemo* memo, uint32_t context_id);
// The frame rule at `pc` from a loaded object's .eh_frame_hdr at `hdr`; every read stays in
// the object's mapped bytes [image_lo, image_hi). FrameRule::bad when it cannot be followed,
// FrameRule::no_entry when the tables are sound but cover no function at `pc`.
FrameRule rule_from_tables(const uint8_t* image_lo, const uint8_t* image_hi, const uint8_t* hdr,
                           uintptr_t pc);

}  // namespace profkit::rt
