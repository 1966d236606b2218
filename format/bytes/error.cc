// Names and rendering for profkit::Error.
#include "format/bytes/error.h"

namespace profkit {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::truncated: return "truncated";
    case ErrorCode::bad_magic: return "bad magic";
    case ErrorCode::unsupported_version: return "unsupported version";
    case ErrorCode::malformed: return "malformed";
    case ErrorCode::io: return "i/o error";
    case ErrorCode::invalid_argument: return "invalid argument";
    case ErrorCode::mismatch: return "mismatch";
  }
  return "unknown";
}

std::string format_error(std::string_view file, const Error& error) {
  std::string out(file);
  if (error.has_offset()) {
    out += ':';
    out += std::to_string(error.offset);
  }
  out += ": error: ";
  out += error.message;
  out += " (";
  out += error_code_name(error.code);
  out += ')';
  return out;
}

}  // namespace profkit
