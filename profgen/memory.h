// Returning freed heap memory to the system between profgen's stages.
#pragma once

#include <malloc.h>

namespace profkit::profgen {

// A stage frees large structures that were allocated piecewise among longer-lived ones: the
// freed chunks are holes in the heap that stay resident, counted in the peak RSS of the
// next stage unless it happens to reuse them. malloc_trim gives their whole pages back
// (a few milliseconds per call); the next stage faults in what it uses.
inline void release_free_memory() { malloc_trim(0); }

}  // namespace profkit::profgen
