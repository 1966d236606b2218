// Producer/consumer pair: one thread allocates messages, the other frees them (every free
// is a cross-thread free).
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  std::mutex m;
  std::condition_variable cv;
  std::deque<char*> q;
  bool done = false;
  long consumed = 0;
  std::thread consumer([&] {
    for (;;) {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return !q.empty() || done; });
      if (q.empty() && done) return;
      std::deque<char*> batch;
      batch.swap(q);
      lock.unlock();
      for (char* p : batch) {
        consumed += p[0];
        std::free(p);
      }
    }
  });
  for (long i = 0; i < n; i++) {
    char* p = static_cast<char*>(std::malloc(32 + i % 96));
    p[0] = 1;
    std::lock_guard<std::mutex> lock(m);
    q.push_back(p);
    if (q.size() >= 64) cv.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_one();
  consumer.join();
  std::printf("%ld\n", consumed);
  return 0;
}
