// access.cc's libc replacements (memcpy, strlen, ...): counting versions for instrumented
// programs, libc's own for the others.
#pragma once

namespace profkit::rt {

// At start-up, after g.count_libc_accesses is decided: when it is false, the replacements
// go straight to libc's functions from now on.
void call_libc_directly();

}  // namespace profkit::rt
