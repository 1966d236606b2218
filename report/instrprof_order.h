// `order` for IR-PGO profiles: the function order computed from a profile's temporal traces
// (format/instrprof/function_order.h), rendered as the text `llvm-profdata-22 order` prints.
// Returns the text; never prints. docs/irpgo-order.md.
#pragma once

#include <cstdint>
#include <string>

#include "format/bytes/error.h"
#include "format/bytes/expected.h"
#include "format/instrprof/profile.h"

namespace profkit::report {

struct OrderOptions {
  // Keep the last N traces out of the order and report how the order does on them.
  uint32_t num_test_traces = 0;
};

// The complete output of `llvm-profdata-22 order [--num-test-traces=N] FILE` for the profile
// read from FILE: "# Ordered N functions", the page-fault area of the test traces when N > 0,
// LLVM's Mach-O warning, then one line per function ("# FILE" first for a "FILE;NAME" PGO
// name; an empty line for a NameRef the profile has no name for). invalid_argument when
// num_test_traces is not smaller than the number of traces.
Expected<std::string> order_instrprof(const instrprof::Profile& profile,
                                      const OrderOptions& options);

}  // namespace profkit::report
