// wordcache: counts the words of text files and answers "top N" queries from a small cache.
//
// The example program of `make demo` (heap profiling): its allocations have the shapes a
// heap report should tell apart:
//   - a lowercase copy of every word (many small, short-lived, touched allocations: hot);
//   - the word index, an unordered_map that lives all run and is read on every word;
//   - an archive that keeps each input's text "for the audit log", written once and never
//     read again (long-lived and untouched: what LLVM would hint cold);
//   - a cache of formatted query results, rebuilt on every query.
// Built with -DBIG_ARCHIVE it keeps four copies of each input in the archive: the changed
// site `profkit diff` should put first.
//
// usage: wordcache [-r ROUNDS] FILE...
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef BIG_ARCHIVE
constexpr int kArchiveCopies = 4;
#else
constexpr int kArchiveCopies = 1;
#endif

// Texts kept for an audit log nobody reads during the run; each blob has room for notes
// that are never written.
constexpr size_t kNotesRoom = 64 * 1024;
struct Archive {
  std::vector<std::unique_ptr<char[]>> blobs;
  size_t bytes = 0;
  __attribute__((noinline)) void keep(const std::string& text) {
    for (int i = 0; i < kArchiveCopies; ++i) {
      std::unique_ptr<char[]> blob(new char[text.size() + kNotesRoom]);
      std::memcpy(blob.get(), text.data(), text.size());
      bytes += text.size() + kNotesRoom;
      blobs.push_back(std::move(blob));
    }
  }
};

__attribute__((noinline)) std::string read_file(const char* path) {
  std::string text;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

__attribute__((noinline)) std::string normalize(const char* begin, size_t length) {
  std::string word(begin, length);
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

using Index = std::unordered_map<std::string, long>;

__attribute__((noinline)) void count_words(const std::string& text, Index& index) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    // Padded to 32 letters so every word is a heap string (no small-string buffer).
    if (j > i) ++index[normalize(&text[i], j - i) + std::string(32, '_')];
    i = j;
  }
}

__attribute__((noinline)) std::vector<std::string> top_words(const Index& index, size_t n) {
  std::vector<std::pair<long, const std::string*>> all;
  all.reserve(index.size());
  for (const auto& [word, count] : index) all.push_back({count, &word});
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<long>(n), all.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : *a.second < *b.second;
                    });
  std::vector<std::string> lines;
  for (size_t k = 0; k < n; ++k)
    lines.push_back(std::to_string(all[k].first) + " " +
                    all[k].second->substr(0, all[k].second->find('_')));
  return lines;
}

int main(int argc, char** argv) {
  int rounds = 200;
  int first = 1;
  if (argc > 2 && std::strcmp(argv[1], "-r") == 0) {
    rounds = std::atoi(argv[2]);
    first = 3;
  }
  Archive archive;
  Index index;
  std::vector<std::string> answer;
  for (int round = 0; round < rounds; ++round) {
    for (int a = first; a < argc; ++a) {
      const std::string text = read_file(argv[a]);
      if (round == 0) archive.keep(text);
      count_words(text, index);
    }
    answer = top_words(index, 5);
  }
  for (const std::string& line : answer) std::printf("%s\n", line.c_str());
  std::printf("%zu distinct words, %zu bytes archived\n", index.size(), archive.bytes);
  return 0;
}
