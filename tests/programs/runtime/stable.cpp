// Allocations made inside libstdc++ (built without frame pointers): std::string growth,
// std::map nodes, std::vector growth, std::unordered_map buckets. The recorded contexts
// must be the same on every run.
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

__attribute__((noinline, disable_tail_calls)) std::string make_key(int i) {
  std::string s = "key-with-a-long-prefix-to-force-heap-";
  s += std::to_string(i);
  s.append(40, 'x');
  return s;
}

int main() {
  std::map<std::string, std::vector<int>> ordered;
  std::unordered_map<std::string, int> hashed;
  for (int i = 0; i < 2000; i++) {
    std::string k = make_key(i % 500);
    ordered[k].push_back(i);
    hashed[k] += i;
  }
  long total = 0;
  for (auto &kv : ordered) total += (long)kv.second.size();
  std::printf("%ld %zu\n", total, hashed.size());
  return 0;
}
