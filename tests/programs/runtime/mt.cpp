// Threads: four workers allocate and free their own 120-byte blocks (30 int stores each);
// then main allocates 40-byte blocks (2 stores each) that the workers free (cross-thread).
#include <cstdlib>
#include <thread>
#include <vector>

void *volatile sink;

__attribute__((noinline, disable_tail_calls)) void worker(int id) {
  for (int i = 0; i < 1000; i++) {
    int *p = (int *)malloc(120);
    sink = p;
    for (int j = 0; j < 30; j++) p[j] = id + j;
    free(p);
  }
}

__attribute__((noinline, disable_tail_calls)) long *make_shared(long v) {
  long *p = (long *)malloc(40);
  p[0] = v;
  p[4] = v;
  return p;
}

__attribute__((noinline, disable_tail_calls)) void release(std::vector<long *> *blocks) {
  for (long *p : *blocks) free(p);
}

// ts.reserve(16): 128 bytes, not 4 slots: no growth while the workers run, and a size class
// apart from the threads' 24-byte start records. A 32-byte buffer shares compiler-rt's
// 64-byte granule with the next chunk, and when that chunk is a start record its new
// thread's reads were counted for the vector (compiler-rt gave 8 or 13 accesses, run to run).
int main() {
  std::vector<std::thread> ts;
  ts.reserve(16);
  for (int i = 0; i < 4; i++) ts.emplace_back(worker, i);
  for (auto &t : ts) t.join();
  std::vector<long *> a, b;
  a.reserve(500);
  b.reserve(500);
  for (int i = 0; i < 500; i++) a.push_back(make_shared(i));
  for (int i = 0; i < 500; i++) b.push_back(make_shared(i));
  std::thread t1(release, &a), t2(release, &b);
  t1.join();
  t2.join();
  return 0;
}
