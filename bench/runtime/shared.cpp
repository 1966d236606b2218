// Shared containers: several threads index generated documents into a word-count table (a
// std::unordered_map<std::string, long> under one mutex) and keep per-document summaries in
// a bounded cache (a std::map<std::string, std::string> under another mutex, evicting its
// first entry when full). Words and summaries are built on the thread that reads the
// document and evicted entries are freed by whichever thread evicts them, so most blocks
// are allocated on one thread and freed on another. The output (word counts, distinct words,
// summary bytes) does not depend on how the threads interleave.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

std::mutex words_m, cache_m;
std::unordered_map<std::string, long> words;
std::map<std::string, std::string> cache;
constexpr size_t kCacheEntries = 2048;

const char* const kSyllables[] = {"ka", "lo", "mi", "sen", "tor", "va", "rin", "pe", "dus", "qua", "bel", "zo"};

void index_documents(int thread, int threads, long documents, long* summary_bytes) {
  for (long d = thread; d < documents; d += threads) {
    unsigned long x = 0x9E3779B97F4A7C15ull * static_cast<unsigned long>(d + 1);
    auto next = [&x] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
    // Tokenize a generated document: 20-80 words of 1-4 syllables (a skewed vocabulary).
    std::vector<std::string> tokens;
    const int n = 20 + static_cast<int>(next() % 60);
    for (int i = 0; i < n; i++) {
      std::string w;
      const int syllables = 1 + static_cast<int>(next() % 4);
      for (int s = 0; s < syllables; s++) w += kSyllables[next() % (s == 0 ? 12 : 6)];
      tokens.push_back(std::move(w));
    }
    {
      std::lock_guard<std::mutex> lock(words_m);
      for (const std::string& w : tokens) ++words[w];
    }
    std::string key = "doc/" + std::to_string(next() % 100000) + "/" + std::to_string(d);
    std::string summary = tokens.front() + " .. " + tokens.back() + " (" + std::to_string(n) + " words)";
    summary.append(next() % 200, '.');
    *summary_bytes += static_cast<long>(summary.size());
    std::string evicted_key, evicted;  // freed after the lock is released
    {
      std::lock_guard<std::mutex> lock(cache_m);
      cache.emplace(std::move(key), std::move(summary));
      if (cache.size() > kCacheEntries) {
        auto first = cache.begin();
        evicted_key = std::move(const_cast<std::string&>(first->first));
        evicted = std::move(first->second);
        cache.erase(first);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long documents = argc > 1 ? std::atol(argv[1]) : 60000;
  const int threads = 6;
  std::vector<long> bytes(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back(index_documents, t, threads, documents, &bytes[t]);
  for (auto& t : pool) t.join();
  long total = 0, summary = 0;
  for (const auto& [w, c] : words) total += c;
  for (long b : bytes) summary += b;
  std::printf("%ld %zu %ld\n", total, words.size(), summary);
  return 0;
}
