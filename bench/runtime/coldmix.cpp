// Cold/not-cold mix for sample.sh's agreement measure: 24 call sites, each allocating a
// different total (1-32 MiB) in blocks of a different size (256 B-32 KiB); the blocks of
// even sites are never touched (cold at a 0 s lifetime threshold), those of odd sites are
// written and read whole (not cold). The four workloads of run.sh have almost no cold bytes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

template <int K>
__attribute__((noinline)) long site() {
  const size_t block = size_t{256} << (K % 8);
  const size_t total = size_t{1} << (20 + K % 6);
  long sum = 0;
  for (size_t done = 0; done < total; done += block) {
    auto* p = static_cast<volatile long*>(std::malloc(block));
    asm volatile("" : : "r"(p) : "memory");  // the allocation is kept even when untouched
    if (K % 2) {
      for (size_t i = 0; i < block / sizeof(long); ++i) p[i] = static_cast<long>(i);
      for (size_t i = 0; i < block / sizeof(long); ++i) sum += p[i];
    }
    std::free(const_cast<long*>(p));
  }
  return sum;
}

template <int... K>
long all(std::integer_sequence<int, K...>) {
  return (site<K>() + ...);
}

int main() {
  std::printf("%ld\n", all(std::make_integer_sequence<int, 24>{}));
  return 0;
}
