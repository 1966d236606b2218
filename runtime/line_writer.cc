// Diagnostics without stdio: write(2) with EINTR retry, numbers formatted by hand.
#include "runtime/line_writer.h"

#include <errno.h>
#include <unistd.h>

namespace profkit::rt {

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

LineWriter& LineWriter::str(const char* s) {
  while (*s && size < sizeof bytes - 1) bytes[size++] = *s++;
  return *this;
}
LineWriter& LineWriter::str(const char* s, size_t n) {
  for (size_t i = 0; i < n && size < sizeof bytes - 1; ++i) bytes[size++] = s[i];
  return *this;
}
LineWriter& LineWriter::num(uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0 && size < sizeof bytes - 1) bytes[size++] = digits[--n];
  return *this;
}
LineWriter& LineWriter::hex(uint64_t v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v != 0);
  while (n > 0 && size < sizeof bytes - 1) bytes[size++] = digits[--n];
  return *this;
}
void LineWriter::flush_to(int fd) {
  bytes[size++] = '\n';
  write_all(fd, bytes, size);
  size = 0;
}

}  // namespace profkit::rt
