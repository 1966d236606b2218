// A function order from temporal profile traces: what `llvm-profdata order` computes. The
// traces become utility lists (functions called early in the same traces share utilities),
// balanced partitioning orders them, and held-out traces can measure the result as the
// area under their page-fault curve. docs/irpgo-order.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/instrprof/balanced_partitioning.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

// One node per distinct function of `traces`, sorted by its earliest position in any trace
// and then by NameRef; its utilities as LLVM 22's TemporalProfTraceTy::createBPFunctionNodes
// assigns them: per trace, position p falls into window k = the number of powers-of-two
// cutoffs passed so far, and a function touches every window from its first call's to the
// trace's last. Utilities touched by a single function or by more than half of them are
// dropped. Trace weights are not used (LLVM does not use them either).
std::vector<PartitionNode> trace_partition_nodes(std::span<const TemporalTrace> traces);

// The functions of `traces` (NameRefs) in the order that keeps the traces' early functions
// together: trace_partition_nodes then balanced_partition with LLVM's defaults.
std::vector<uint64_t> order_functions(std::span<const TemporalTrace> traces);

// The area under the page-fault curve of `test_traces` for `order`, functions packed
// kFunctionsPerPage to a page: for each call of a function in the order, the number of
// distinct pages the trace has touched so far, summed over calls and traces. Calls to
// functions missing from `order` are skipped. Wraps at 2^32 as LLVM's unsigned does.
inline constexpr unsigned kFunctionsPerPage = 32;
uint32_t page_fault_area(std::span<const uint64_t> order,
                         std::span<const TemporalTrace> test_traces);

}  // namespace profkit::instrprof
