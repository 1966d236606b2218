// Vectors grown by push_back to 10 000-200 000 elements (40 KiB-800 KiB, a doubling at a
// time: every buffer above 32 KiB is a large block), 4 000 of them in turn, a few kept alive
// at once; and a std::string built to 100 KiB by appends.
#include <cstdio>
#include <string>
#include <vector>
int main() {
  unsigned long x = 0x9E3779B97F4A7C15ul, sum = 0;
  std::vector<std::vector<int>> kept(4);
  for (int i = 0; i < 4000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int n = 10000 + static_cast<int>(x % 190000);
    std::vector<int> v;
    for (int k = 0; k < n; ++k) v.push_back(k ^ static_cast<int>(x));
    sum += static_cast<unsigned long>(v[n / 2]);
    if (i % 20 == 0) {
      std::string s;
      while (s.size() < 100000) s += "line of text ";
      sum += s.size();
    }
    kept[i % 4] = std::move(v);
  }
  std::printf("%lu\n", sum);
  return 0;
}
