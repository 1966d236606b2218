#include <cstdlib>
#include <thread>
#include <vector>

void *volatile sink;

__attribute__((noinline, disable_tail_calls)) void worker(int id) {
  for (int i = 0; i < 1000; i++) {
    int *p = (int *)malloc(128);
    sink = p;
    for (int j = 0; j < 32; j++) p[j] = id + j;
    free(p);
  }
}

int main() {
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; i++) ts.emplace_back(worker, i);
  for (auto &t : ts) t.join();
  return 0;
}
