// Over-aligned small blocks: 40 rounds of 50 000 live posix_memalign blocks (24-224 bytes,
// alignments 16-4096), all freed at the end of each round. Blocks that go to glibc padded by
// their alignment drain into its top chunk on every round's frees, which glibc trims and the
// next round faults back.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  uint64_t x = 88172645463325252ull, sum = 0;
  std::vector<void*> live(50000);
  for (int r = 0; r < rounds; ++r) {
    for (auto& p : live) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      size_t align = size_t{16} << (x % 9);
      size_t size = 24 + (x >> 8) % 201;
      if (posix_memalign(&p, align, size) != 0) return 1;
      static_cast<char*>(p)[0] = char(r);
      static_cast<char*>(p)[size - 1] = 1;
      if (reinterpret_cast<uintptr_t>(p) % align) return 2;
    }
    for (auto& p : live) { sum += static_cast<char*>(p)[0]; free(p); }
  }
  printf("%llu\n", (unsigned long long)sum);
}
