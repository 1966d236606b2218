// `profkit report --pprof`: a heap profile as pprof's profile.proto (perftools.profiles),
// one sample per allocation context, so `pprof` (and every tool that reads its format) can
// show, filter and compare it.
#pragma once

#include <string>

#include "report/heap_profile.h"

namespace profkit::report {

// The sample types, in the order of every sample's values:
//   alloc_objects/count   AllocCount
//   alloc_space/bytes     TotalSize (the default sample type)
//   accesses/count        TotalAccessCount
//   lifetime/milliseconds TotalLifetime
// Locations are the non-inlined frames with their address (raw inputs; 0 otherwise); the
// frames inlined into one are its earlier lines (Location.line, innermost first, as pprof
// orders them). Each sample carries labels "hint" (notcold/cold/hot, clang's verdict),
// "context" (the context id in hex) and "bytes" (the average allocation size).
// Returns the serialized message, not compressed.
std::string pprof_profile_proto(const HeapProfile& profile);

// What `--pprof OUT.pb.gz` writes: pprof_profile_proto() gzipped (pprof's convention).
std::string pprof_profile_gz(const HeapProfile& profile);

}  // namespace profkit::report
