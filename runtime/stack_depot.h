// Allocation stacks: captured (frame pointers, unwind tables, libunwind) and interned in
// the stack depot, whose ids are the MIBs' context ids (stack.cc).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

struct ThreadState;
struct WalkShare;

// Captures the allocation stack (leaf first, starting at `caller_return`, the return
// address of the public entry point, so no runtime frame is recorded) and interns it.
// Returns the depot id (never 0).
uint32_t capture_stack(uintptr_t caller_return, uintptr_t caller_frame);
// The depot id of `pcs` (leaf first), as capture_stack interns a walk that shares `share`
// with its memo's previous walk (walker.h): for tests.
uint32_t depot_intern(const uintptr_t* pcs, uint32_t n, const WalkShare& share);
// PCs (return addresses) of a depot id; nullptr if unknown.
const uintptr_t* depot_stack(uint32_t id, uint32_t* size);
// Starts loading the stack of `id` into the cache (a dump reads stacks in MIB order).
void depot_prefetch(uint32_t id);
uint32_t depot_size();
bool depot_init();  // at start-up; false when its memory cannot be reserved
// The longest call cycle fold_recursion removes, in frames. Bounded so that folding costs at
// most n * k * (k + 1) / 2 compares (about n * k in practice: most tries fail at the first
// frame); 8 covers direct recursion and the cycles of a recursive-descent parser, where
// one nesting level is 3-4 frames and two levels can alternate (A B A B).
inline constexpr uint32_t kFoldMaxPeriod = 8;
// Folds repeated call cycles in `pcs` (leaf first), in place: wherever a run of up to
// kFoldMaxPeriod frames is followed by the same run, the repeat goes (A B C B C B C D ->
// A B C D). Returns the new count. Allocation-free, for fold_recursion=1.
uint32_t fold_recursion(uintptr_t* pcs, uint32_t n);
// Removes every call cycle from `pcs` (leaf first, at most 255 frames), in place: where a
// return address occurs again, the frames from after its first occurrence to its next one
// go (A B C A D -> A D), so each return address is kept once. Returns the new count.
// Allocation-free, linear time, for fold_recursion=2.
uint32_t fold_cycles(uintptr_t* pcs, uint32_t n);
void register_thread_stack(ThreadState* state);

}  // namespace profkit::rt
