// Data-access profile names and merging.
#include "format/memprof/data_access.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace profkit::memprof {

std::string_view data_access_symbol_name(std::string_view name) {
  constexpr std::string_view kUniq = ".__uniq.";
  size_t from = name.find(kUniq);
  from = from == std::string_view::npos ? 0 : from + kUniq.size();
  const size_t dot = name.find('.', from);
  if (dot != std::string_view::npos && dot != 0) return name.substr(0, dot);
  return name;
}

void merge_data_access(DataAccessProfile& out, const DataAccessProfile& in) {
  if (in.empty()) return;
  std::unordered_map<std::string, size_t> by_symbol;
  std::unordered_map<uint64_t, size_t> by_hash;
  for (size_t i = 0; i < out.records.size(); ++i) {
    if (out.records[i].is_string_literal)
      by_hash.emplace(out.records[i].hash, i);
    else
      by_symbol.emplace(out.records[i].symbol, i);
  }
  for (const DataAccessRecord& r : in.records) {
    const size_t next = out.records.size();
    const size_t j = r.is_string_literal ? by_hash.try_emplace(r.hash, next).first->second
                                         : by_symbol.try_emplace(r.symbol, next).first->second;
    if (j == next) {
      out.records.push_back(r);
      continue;
    }
    DataAccessRecord& d = out.records[j];
    d.access_count = d.access_count > UINT64_MAX - r.access_count ? UINT64_MAX
                                                                  : d.access_count + r.access_count;
    for (const DataAccessLocation& l : r.locations)
      if (std::find(d.locations.begin(), d.locations.end(), l) == d.locations.end())
        d.locations.push_back(l);
  }
  std::unordered_set<std::string> cold_symbols(out.known_cold_symbols.begin(),
                                               out.known_cold_symbols.end());
  for (const std::string& s : in.known_cold_symbols)
    if (cold_symbols.insert(s).second) out.known_cold_symbols.push_back(s);
  std::unordered_set<uint64_t> cold_hashes(out.known_cold_hashes.begin(),
                                           out.known_cold_hashes.end());
  for (uint64_t h : in.known_cold_hashes)
    if (cold_hashes.insert(h).second) out.known_cold_hashes.push_back(h);
}

}  // namespace profkit::memprof
