// Diagnostics without stdio: a fixed buffer written to a file descriptor with write(2).
#pragma once

#include "runtime/base.h"

namespace profkit::rt {

// Formats into a fixed buffer and writes one line to stderr with write(2).
struct LineWriter {
  char bytes[1024];
  size_t size = 0;
  LineWriter& str(const char* s);
  LineWriter& str(const char* s, size_t n);
  LineWriter& num(uint64_t v);
  LineWriter& hex(uint64_t v);
  void flush_to(int fd);
};
bool write_all(int fd, const void* data, size_t size);  // EINTR-safe; false on error

}  // namespace profkit::rt
