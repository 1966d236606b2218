// Errors as values: what failed, where in the input, and while reading what.
// The library never prints; the CLI renders an Error as `FILE:OFFSET: error: MESSAGE`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace profkit {

// Closed set of failure kinds. Callers branch on the code; people read the message.
enum class ErrorCode {
  truncated,            // the input ended before a complete field or section
  bad_magic,            // the first bytes do not name a format we read
  unsupported_version,  // a format we know, in a version we do not
  malformed,            // a field holds a value the format forbids
  io,                   // the operating system refused a read or write
  invalid_argument,     // a caller (usually the command line) asked for something impossible
  mismatch,             // inputs that cannot be combined (e.g. IR and front-end profiles)
};

std::string_view error_code_name(ErrorCode code);

inline constexpr uint64_t kNoOffset = ~uint64_t{0};

struct Error {
  ErrorCode code = ErrorCode::malformed;
  uint64_t offset = kNoOffset;  // byte offset in the input where the check failed
  std::string message;          // names what was expected: "expected 8-byte counter"

  bool has_offset() const { return offset != kNoOffset; }
};

// Renders `FILE:OFFSET: error: MESSAGE` (the offset part only when known).
std::string format_error(std::string_view file, const Error& error);

}  // namespace profkit
