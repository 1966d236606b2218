// Thread pool: a fixed pool of worker threads pulling tasks (std::function, so each task is
// an allocation too) from one queue under a mutex and condition variable. Each task builds
// temporaries of varied sizes (a vector, strings, a small map), and hands a result object to
// the submitting thread, which frees it: results are allocated on a worker and freed on the
// main thread, tasks the other way round. The queue is bounded, so the submitter waits for
// the workers as a real server's accept loop would.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Result {
  long id;
  long value;
  std::string summary;
};

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; i++) threads_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    has_work_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void submit(std::function<void()> task) {
    std::unique_lock<std::mutex> lock(m_);
    has_room_.wait(lock, [&] { return tasks_.size() < kMaxQueued; });
    tasks_.push_back(std::move(task));
    lock.unlock();
    has_work_.notify_one();
  }

 private:
  static constexpr size_t kMaxQueued = 256;
  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      has_work_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      has_room_.notify_one();
      task();
    }
  }
  std::mutex m_;
  std::condition_variable has_work_, has_room_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

// The task: parse-and-summarize work on data derived from its id.
Result* run_task(long id, const std::string& name) {
  unsigned long x = 0x9E3779B97F4A7C15ull * static_cast<unsigned long>(id + 1);
  auto next = [&x] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  std::vector<int> values(8 + next() % 120);
  for (int& v : values) v = static_cast<int>(next() % 1000);
  std::map<int, std::string> buckets;
  for (int v : values) buckets[v % 16] += std::to_string(v) + ",";
  std::string text;
  for (auto& [k, s] : buckets) text += std::to_string(k) + ":" + s + ";";
  long value = 0;
  for (char c : text) value += c;
  auto* r = new Result{id, value, name + "#" + std::to_string(id) + " " + std::to_string(text.size())};
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 40000;
  const int workers = 4;
  std::mutex results_m;
  std::vector<Result*> results;
  long total = 0, chars = 0, count = 0;
  auto drain = [&] {
    std::vector<Result*> done;
    {
      std::lock_guard<std::mutex> lock(results_m);
      done.swap(results);
    }
    for (Result* r : done) {
      total += r->value;
      chars += static_cast<long>(r->summary.size());
      ++count;
      delete r;
    }
  };
  {
    Pool pool(workers);
    const std::string name = "request-handler";
    for (long i = 0; i < n; i++) {
      pool.submit([i, name, &results_m, &results] {
        Result* r = run_task(i, name);
        std::lock_guard<std::mutex> lock(results_m);
        results.push_back(r);
      });
      if (i % 64 == 63) drain();
    }
  }  // joins the workers
  drain();
  std::printf("%ld %ld %ld\n", count, total, chars);
  return 0;
}
