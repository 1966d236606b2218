// Building blocks for the IR-PGO unit tests (format/ and report/): profiles spelled out in a
// line each. Not used by the libraries themselves.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/instrprof/profile.h"

namespace profkit::instrprof::test {

// A record with block counters and nothing else.
inline Record make_record(std::string name, uint64_t hash, std::vector<uint64_t> counts) {
  Record r;
  r.name = std::move(name);
  r.hash = hash;
  r.counts = std::move(counts);
  return r;
}

}  // namespace profkit::instrprof::test
