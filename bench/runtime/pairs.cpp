// Cost of one allocation and one cross-thread free, apart from any program's locking:
//   isolated    one thread makes N blocks, then another thread frees them all;
//   concurrent  a producer and a consumer run at once, passing blocks through a lock-free
//               single-producer ring (both spin while it is full or empty).
// Prints nanoseconds per operation (the median of 5 rounds after a warm-up round) on stderr;
// run.sh runs it for the plain, compiler-rt and profkit builds side by side.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
double now_ns() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr long kBlocks = 1000000;
constexpr unsigned kRing = 1024;
char* blocks[kBlocks];
std::atomic<char*> ring[kRing];
long consumed = 0;

void isolated(double* malloc_ns, double* free_ns) {
  const double t0 = now_ns();
  std::thread([] {
    for (long i = 0; i < kBlocks; i++) {
      char* p = static_cast<char*>(std::malloc(32 + i % 96));
      p[0] = 1;
      blocks[i] = p;
    }
  }).join();
  const double t1 = now_ns();
  std::thread([] {
    for (long i = 0; i < kBlocks; i++) {
      consumed += blocks[i][0];
      std::free(blocks[i]);
    }
  }).join();
  const double t2 = now_ns();
  *malloc_ns = (t1 - t0) / kBlocks;
  *free_ns = (t2 - t1) / kBlocks;
}

double concurrent() {
  const double t0 = now_ns();
  std::thread consumer([] {
    for (long i = 0; i < kBlocks; i++) {
      std::atomic<char*>& slot = ring[i % kRing];
      char* p;
      while ((p = slot.load(std::memory_order_acquire)) == nullptr) __builtin_ia32_pause();
      slot.store(nullptr, std::memory_order_relaxed);
      consumed += p[0];
      std::free(p);
    }
  });
  for (long i = 0; i < kBlocks; i++) {
    char* p = static_cast<char*>(std::malloc(32 + i % 96));
    p[0] = 1;
    std::atomic<char*>& slot = ring[i % kRing];
    while (slot.load(std::memory_order_acquire) != nullptr) __builtin_ia32_pause();
    slot.store(p, std::memory_order_release);
  }
  consumer.join();
  return (now_ns() - t0) / kBlocks;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main() {
  std::vector<double> m, f, c;
  for (int round = 0; round < 6; round++) {
    double a, b;
    isolated(&a, &b);
    const double d = concurrent();
    if (round == 0) continue;  // first touch of the memory
    m.push_back(a);
    f.push_back(b);
    c.push_back(d);
  }
  std::fprintf(stderr, "malloc %.1f free %.1f concurrent %.1f\n", median(m), median(f), median(c));
  std::printf("%ld\n", consumed);
  return 0;
}
