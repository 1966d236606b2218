// Property: parse_options never reads outside its input, never writes past an option's
// buffer, terminates, and reports one error line per rejected token; the values it sets
// always satisfy the documented ranges (malloc_context_size in 1..255, fold_recursion 0..2,
// sample_interval in 0..2^40, max_threads in 1..131072).
// The parser lives in the runtime (not in profkit_format), so its source is compiled in.
#include <stddef.h>
#include <stdint.h>

#include "runtime/options.cc"

namespace {
void count_line(void* context, const char* line, size_t size) {
  auto* lines = static_cast<size_t*>(context);
  ++*lines;
  for (size_t i = 0; i < size; ++i)
    if (line[i] == '\n') __builtin_trap();  // one line per error
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  profkit::rt::Options options;
  profkit::rt::set_default_options(&options);
  size_t lines = 0;
  const int errors = profkit::rt::parse_options(reinterpret_cast<const char*>(data), size, "fuzz",
                                                &options, count_line, &lines);
  if (static_cast<size_t>(errors) != lines) __builtin_trap();
  if (options.malloc_context_size.value < 1 || options.malloc_context_size.value > 255)
    __builtin_trap();
  if (options.fold_recursion.value < 0 || options.fold_recursion.value > 2) __builtin_trap();
  if (options.sample_interval.value < 0 || options.sample_interval.value > (int64_t{1} << 40))
    __builtin_trap();
  if (options.max_threads.value < 1 || options.max_threads.value > profkit::rt::kMaxThreadsLimit)
    __builtin_trap();
  size_t n = 0;
  while (n < profkit::rt::kOptionStringMax && options.log_path.value[n]) ++n;
  if (n == profkit::rt::kOptionStringMax) __builtin_trap();  // always terminated
  return 0;
}
