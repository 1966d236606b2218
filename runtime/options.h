// Runtime options (MEMPROF_OPTIONS) and their parser. The parser is freestanding (no libc,
// no allocation) so it runs before anything is initialized and under the fuzzer unchanged.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace profkit::rt {

inline constexpr size_t kOptionStringMax = 1024;
inline constexpr int64_t kMaxThreadsLimit = 1 << 17;  // max_threads' range (thread_state.h)

struct Options {
#define PROFKIT_RT_OPTION(Kind, Name, Default, Help) Kind##Option Name;
  struct BoolOption { bool value; };
  struct IntOption { int64_t value; };
  struct StringOption { char value[kOptionStringMax]; };
  struct SecondsOption { int64_t value; };  // milliseconds, given as decimal seconds
#include "runtime/options.def"
};

// Sets every option to its default.
void set_default_options(Options* options);

// Receives one complete error line (without newline).
using OptionErrorSink = void (*)(void* context, const char* line, size_t size);

// Parses compiler-rt option syntax: `name=value` pairs separated by ':', ',' or white
// space; a value may be quoted with ' or ". `source` names the string in error lines.
// Unknown names, a missing '=', bad values and over-long values each give one error line
// and are skipped; the rest still applies. Options compiler-rt has and we do not use
// (sanitizer_common's list) are accepted and ignored. Returns the number of errors.
int parse_options(const char* text, size_t size, const char* source, Options* options,
                  OptionErrorSink sink, void* context);

// Writes the help table (one line per option) through `sink`.
void print_option_help(OptionErrorSink sink, void* context);

}  // namespace profkit::rt
