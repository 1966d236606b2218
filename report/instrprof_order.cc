// Renders the function order of a profile's temporal traces as `llvm-profdata-22 order`.
#include "report/instrprof_order.h"

#include <span>
#include <string_view>

#include "format/bytes/number_text.h"
#include "format/instrprof/function_order.h"
#include "format/instrprof/name_resolver.h"

namespace profkit::report {

namespace {

constexpr std::string_view kMachOWarning =
    "# Warning: Mach-O may prefix symbols with \"_\" depending on the linkage and this output "
    "does not take that into account. Some post-processing may be required before passing to "
    "the linker via -order_file.\n";

// One function's lines: an IR-PGO name "FILE;NAME" (a local symbol) prints "# FILE" and then
// NAME; a name without ';', or with nothing after the first ';', prints as it is.
void append_function(std::string& out, std::string_view pgo_name) {
  const size_t semi = pgo_name.find(';');
  if (semi != std::string_view::npos && semi + 1 < pgo_name.size()) {
    if (semi > 0) {
      out += "# ";
      out += pgo_name.substr(0, semi);
      out += '\n';
    }
    pgo_name.remove_prefix(semi + 1);
  }
  out += pgo_name;
  out += '\n';
}

}  // namespace

Expected<std::string> order_instrprof(const instrprof::Profile& profile,
                                      const OrderOptions& options) {
  const std::span<const instrprof::TemporalTrace> all(profile.traces);
  const size_t num_test = options.num_test_traces;
  if (num_test != 0 && num_test >= all.size())
    return make_error(ErrorCode::invalid_argument, kNoOffset,
                      "--num-test-traces must be smaller than the total number of traces: "
                      "expected: < " + std::to_string(all.size()) +
                          ", actual: " + std::to_string(num_test));
  const auto training = all.first(all.size() - num_test);
  const auto test = all.last(num_test);

  const std::vector<uint64_t> order = instrprof::order_functions(training);
  std::string out = "# Ordered ";
  append_decimal(out, order.size());
  out += " functions\n";
  if (!test.empty()) {
    // LLVM prints the unsigned area converted to float, as a double in "%e" style.
    const float area = static_cast<float>(instrprof::page_fault_area(order, test));
    out += "# Total area under the page fault curve: ";
    append_printf(out, "%.6e", static_cast<double>(area));
    out += '\n';
  }
  out += kMachOWarning;
  const auto names = instrprof::NameResolver::for_reader(profile);
  for (uint64_t ref : order) {
    const std::string* name = names.find(ref);
    append_function(out, name != nullptr ? std::string_view(*name) : std::string_view());
  }
  return out;
}

}  // namespace profkit::report
