// 32 threads (on however few CPUs), each churning small blocks and handing a third of them to
// its neighbour under the neighbour's mutex (at most 256 waiting), which frees them:
// cross-thread frees and lock hand-offs with many more threads than CPUs.
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <mutex>
#include <deque>
struct Box { std::mutex m; std::deque<void*> q; };
int main() {
  const int T = 32; std::vector<Box> boxes(T); std::vector<std::thread> ts;
  for (int t = 0; t < T; ++t) ts.emplace_back([&, t] {
    unsigned long x = t + 1;
    for (int i = 0; i < 300000; ++i) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      void* p = malloc(16 + x % 300); static_cast<char*>(p)[0] = 1;
      bool handed = false;
      if (x % 3 == 0) {  // at most 256 waiting, whatever the schedule: the live set stays bounded
        std::lock_guard<std::mutex> g(boxes[(t + 1) % T].m);
        if (boxes[(t + 1) % T].q.size() < 256) boxes[(t + 1) % T].q.push_back(p), handed = true;
      }
      if (!handed) free(p);
      if (i % 64 == 0) { std::deque<void*> mine; { std::lock_guard<std::mutex> g(boxes[t].m); mine.swap(boxes[t].q); } for (void* q : mine) free(q); }
    }
  });
  for (auto& t : ts) t.join();
  for (auto& b : boxes) for (void* q : b.q) free(q);
  puts("done");
}
