// String processing: split lines into words, build and concatenate strings, count words.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 60000;
  std::map<std::string, int> counts;
  unsigned x = 12345;
  for (int i = 0; i < lines; i++) {
    std::string line;
    for (int w = 0; w < 12; w++) {
      x = x * 1103515245u + 12345u;
      line += "word" + std::to_string((x >> 8) % 3000) + " ";
    }
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    std::string joined;
    for (const auto& w : words) joined += w + ",";
    counts[words[x % words.size()]] += (int)joined.size();
  }
  std::printf("%zu\n", counts.size());
  return 0;
}
