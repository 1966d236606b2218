// Stress: two producer threads (10 million allocations in all) and a consumer with
// cross-thread frees, allocating threads that exit while their blocks live on, a
// thread_local destructor and an atexit handler that allocate, signals arriving during
// allocation, fork + exec. Prints "ok". The program is never sanitized (the runtime owns
// malloc), so it runs at full size in the ASan build too: about 3 s of CPU.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

void *volatile sink;
static std::atomic<long> signals_seen{0};
static std::atomic<bool> done{false};

__attribute__((noinline, disable_tail_calls)) char *produce(int i) {
  char *p = (char *)malloc(24 + (i % 5) * 8);
  p[0] = (char)i;
  return p;
}

__attribute__((noinline, disable_tail_calls)) void in_atexit() {
  char *p = (char *)malloc(88);
  sink = p;
  p[0] = 1;
  free(p);
}

struct TlsThing {
  ~TlsThing() {
    char *p = (char *)malloc(56);
    sink = p;
    free(p);
  }
};
thread_local TlsThing tls_thing;

__attribute__((noinline, disable_tail_calls)) void tls_user() { sink = &tls_thing; }

constexpr int kPerProducer = 5000000;  // 10 million allocations in all (issue 3)

int main() {
  std::atexit(in_atexit);
  std::signal(SIGUSR2, [](int) { signals_seen++; });
  std::mutex m;
  std::vector<char *> queue;
  std::vector<std::thread> producers;
  for (int t = 0; t < 2; t++)
    producers.emplace_back([&, t] {
      tls_user();
      std::vector<char *> batch;
      for (int i = 0; i < kPerProducer; i++) {
        batch.push_back(produce(i + t));
        if (batch.size() == 256) {
          std::lock_guard<std::mutex> g(m);
          queue.insert(queue.end(), batch.begin(), batch.end());
          batch.clear();
        }
      }
      std::lock_guard<std::mutex> g(m);
      queue.insert(queue.end(), batch.begin(), batch.end());
    });
  long freed = 0;
  std::thread consumer([&] {
    for (;;) {
      std::vector<char *> take;
      {
        std::lock_guard<std::mutex> g(m);
        take.swap(queue);
      }
      for (char *p : take) free(p);
      freed += (long)take.size();
      if (take.empty() && done.load()) {
        std::lock_guard<std::mutex> g(m);
        if (queue.empty()) break;
      }
    }
  });
  std::thread signaller([&] {
    while (!done.load()) {
      kill(getpid(), SIGUSR2);
      usleep(500);
    }
  });
  for (auto &t : producers) t.join();
  done = true;
  consumer.join();
  signaller.join();
  pid_t child = fork();
  if (child == 0) {
    char *p = (char *)malloc(40);
    sink = p;
    execl("/bin/true", "true", (char *)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 4;
  if (freed != 2L * kPerProducer) return 5;
  std::printf("ok\n");
  return 0;
}
