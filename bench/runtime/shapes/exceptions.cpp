// Errors as exceptions: 300 000 throws of an exception carrying a std::string message,
// thrown 6 frames below the catch (a parser rejecting input), each with a few blocks
// allocated and released by the unwinding.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
namespace {
struct ParseError : std::runtime_error {
  explicit ParseError(const std::string& what) : std::runtime_error(what) {}
};
[[gnu::noinline]] int level(int depth, unsigned long& x) {
  std::vector<int> scratch(4 + depth);
  auto owned = std::make_unique<std::string>("token at depth " + std::to_string(depth));
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  if (depth == 0) {
    if (x % 4 != 0) throw ParseError("unexpected " + *owned + " near offset " + std::to_string(x % 1000));
    return static_cast<int>(owned->size());
  }
  return level(depth - 1, x) + scratch[0];
}
}  // namespace
int main() {
  unsigned long x = 0x9E3779B97F4A7C15ul;
  long errors = 0, sum = 0;
  for (int i = 0; i < 300000; ++i) {
    try {
      sum += level(5, x);
    } catch (const ParseError& e) {
      ++errors;
      sum += static_cast<long>(std::string(e.what()).size());
    }
  }
  std::printf("%ld %ld\n", errors, sum);
  return 0;
}
