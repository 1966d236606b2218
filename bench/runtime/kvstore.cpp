// Key-value store: std::unordered_map<std::string, std::string> with inserts, lookups,
// overwrites and erases; allocation-heavy through libstdc++'s own string code.
#include <cstdio>
#include <string>
#include <unordered_map>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 400000;
  std::unordered_map<std::string, std::string> store;
  unsigned long x = 88172645463325252ull;
  long hits = 0;
  for (long i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::string key = "user:" + std::to_string(x % 50000) + ":profile-field";
    switch (x % 4) {
      case 0:
      case 1: store[key] = std::string(16 + x % 200, 'v'); break;
      case 2: hits += store.count(key); break;
      case 3: store.erase(key); break;
    }
  }
  std::printf("%zu %ld\n", store.size(), hits);
  return 0;
}
