// Thread churn: 500 waves of 8 short-lived threads, each making 200 strings: the cost of a
// thread's first allocation and of its exit.
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <string>
int main(int argc, char** argv) {
  int waves = argc > 1 ? atoi(argv[1]) : 500;
  unsigned long sum = 0;
  for (int w = 0; w < waves; ++w) {
    std::vector<std::thread> ts;
    std::vector<unsigned long> out(8);
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&out, t, w] {
        std::vector<std::string> v;
        for (int i = 0; i < 200; ++i) v.push_back(std::string(20 + (i * 7 + t + w) % 100, 'x'));
        unsigned long s = 0;
        for (auto& x : v) s += x.size();
        out[t] = s;
      });
    for (auto& t : ts) t.join();
    for (auto s : out) sum += s;
  }
  printf("%lu\n", sum);
}
