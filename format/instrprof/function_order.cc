// Temporal traces -> utility lists -> function order, and the page-fault evaluation.
#include "format/instrprof/function_order.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace profkit::instrprof {

std::vector<PartitionNode> trace_partition_nodes(std::span<const TemporalTrace> traces) {
  struct Function {
    size_t first_position = 0;        // earliest position in any trace
    std::vector<uint32_t> utilities;  // increasing: windows of trace 0, then trace 1, ...
  };
  std::unordered_map<uint64_t, Function> functions;
  uint32_t window = 0;  // utility ids are global across traces
  std::unordered_map<uint64_t, uint32_t> first_window;  // per trace
  for (const TemporalTrace& trace : traces) {
    size_t cutoff = 1;
    first_window.clear();
    for (size_t pos = 0; pos < trace.function_refs.size(); ++pos) {
      const uint64_t ref = trace.function_refs[pos];
      auto [it, inserted] = functions.try_emplace(ref);
      if (inserted)
        it->second.first_position = pos;
      else
        it->second.first_position = std::min(it->second.first_position, pos);
      if (pos >= cutoff) {
        ++window;
        cutoff = 2 * pos;
      }
      first_window.try_emplace(ref, window);
    }
    for (const auto& [ref, first] : first_window) {
      std::vector<uint32_t>& u = functions[ref].utilities;
      for (uint32_t w = first; w <= window; ++w) u.push_back(w);
    }
    ++window;
  }

  // Utilities that no pair of functions shares, or that more than half of all functions
  // share, say nothing about which functions belong together.
  std::unordered_map<uint32_t, size_t> frequency;
  for (const auto& [ref, f] : functions)
    for (uint32_t u : f.utilities) ++frequency[u];
  const size_t total = functions.size();
  std::vector<PartitionNode> nodes;
  nodes.reserve(total);
  std::vector<std::pair<size_t, uint64_t>> keys;  // (first position, NameRef) per node
  keys.reserve(total);
  for (auto& [ref, f] : functions) {
    std::erase_if(f.utilities, [&](uint32_t u) {
      const size_t n = frequency[u];
      return n <= 1 || 2 * n > total;
    });
    keys.emplace_back(f.first_position, ref);
  }
  // The partitioning depends on the input order: earliest first, NameRef breaks ties.
  std::sort(keys.begin(), keys.end());
  for (const auto& [pos, ref] : keys)
    nodes.push_back(PartitionNode{ref, std::move(functions[ref].utilities)});
  return nodes;
}

std::vector<uint64_t> order_functions(std::span<const TemporalTrace> traces) {
  return balanced_partition(trace_partition_nodes(traces));
}

uint32_t page_fault_area(std::span<const uint64_t> order,
                         std::span<const TemporalTrace> test_traces) {
  std::unordered_map<uint64_t, uint32_t> page;
  for (size_t i = 0; i < order.size(); ++i)
    page.emplace(order[i], static_cast<uint32_t>(i / kFunctionsPerPage));
  uint32_t area = 0;
  std::unordered_set<uint32_t> touched;
  for (const TemporalTrace& trace : test_traces) {
    touched.clear();
    for (uint64_t ref : trace.function_refs) {
      auto it = page.find(ref);
      if (it == page.end()) continue;
      touched.insert(it->second);
      area += static_cast<uint32_t>(touched.size());
    }
  }
  return area;
}

}  // namespace profkit::instrprof
