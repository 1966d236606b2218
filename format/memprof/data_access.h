// The v4 data-access profile: sampled accesses to data symbols and string literals, and
// known-cold data (docs/formats/memprof.md C.7.1, E.3).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace profkit::memprof {

// A v4 data-access profile (docs/formats/memprof.md C.7.1, E.3; YAML input only). Symbol names
// are stored canonical (data_access_symbol_name); records and cold lists keep first-seen
// order, which is the order the payload stores them in.
struct DataAccessLocation {
  std::string file;
  uint32_t line = 0;
  friend bool operator==(const DataAccessLocation&, const DataAccessLocation&) = default;
};
struct DataAccessRecord {
  bool is_string_literal = false;  // true: `hash` names the string literal; else `symbol`
  std::string symbol;
  uint64_t hash = 0;
  uint64_t access_count = 0;
  std::vector<DataAccessLocation> locations;
  friend bool operator==(const DataAccessRecord&, const DataAccessRecord&) = default;
};
struct DataAccessProfile {
  std::vector<DataAccessRecord> records;      // symbols and hashes distinct
  std::vector<std::string> known_cold_symbols;  // distinct
  std::vector<uint64_t> known_cold_hashes;      // distinct
  bool empty() const {
    return records.empty() && known_cold_symbols.empty() && known_cold_hashes.empty();
  }
  friend bool operator==(const DataAccessProfile&, const DataAccessProfile&) = default;
};

// The name LLVM keys a data symbol by (InstrProfSymtab::getCanonicalName): cut at the first
// '.' after any ".__uniq." part, unless that '.' is the first character.
std::string_view data_access_symbol_name(std::string_view name);

// Merges `in` into `out`: records of the same symbol or hash get their access counts
// summed (saturating) and their locations united; new records, cold symbols and cold
// hashes are appended in their order. A name that becomes sampled stays cold if it was.
void merge_data_access(DataAccessProfile& out, const DataAccessProfile& in);

}  // namespace profkit::memprof
