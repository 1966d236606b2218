// Allocation stacks: captured (frame pointers, unwind tables, libunwind) and interned in
// the stack depot, whose ids are the MIBs' context ids (stack.cc).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

struct ThreadState;

// Captures the allocation stack (leaf first, starting at `caller_return`, the return
// address of the public entry point, so no runtime frame is recorded) and interns it.
// Returns the depot id (never 0).
uint32_t capture_stack(uintptr_t caller_return, uintptr_t caller_frame);
// PCs (return addresses) of a depot id; nullptr if unknown.
const uintptr_t* depot_stack(uint32_t id, uint32_t* size);
// Starts loading the stack of `id` into the cache (a dump reads stacks in MIB order).
void depot_prefetch(uint32_t id);
uint32_t depot_size();
bool depot_init();  // at start-up; false when its memory cannot be reserved
void register_thread_stack(ThreadState* state);

}  // namespace profkit::rt
