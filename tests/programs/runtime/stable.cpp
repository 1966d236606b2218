// Allocations made inside libstdc++ (built without frame pointers): std::string growth,
// std::map nodes, std::vector growth, std::unordered_map buckets. The recorded contexts
// must be the same on every run. A recursive tree builder adds stacks that differ from
// the previous allocation's only in middle frames (siblings at the same stack depth), where
// the walker's memo must notice the difference and rejoin further out.
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

__attribute__((noinline, disable_tail_calls)) std::string make_key(int i) {
  std::string s = "key-with-a-long-prefix-to-force-heap-";
  s += std::to_string(i);
  s.append(40, 'x');
  return s;
}

struct Node {
  Node* left;
  Node* right;
  std::vector<long> data;
};

__attribute__((noinline, disable_tail_calls)) Node* grow(int depth, long v) {
  Node* n = new Node{nullptr, nullptr, {}};
  n->data.reserve(4 + static_cast<size_t>(depth));  // allocated inside libstdc++
  n->data.push_back(v);
  if (depth > 0) {
    n->left = grow(depth - 1, 2 * v);
    n->right = grow(depth - 1, 2 * v + 1);
  }
  return n;
}

long fell(Node* n) {
  if (n == nullptr) return 0;
  const long s = n->data[0] + fell(n->left) + fell(n->right);
  delete n;
  return s;
}

int main() {
  long grown = 0;
  for (int round = 0; round < 3; round++) grown += fell(grow(5, round));
  std::map<std::string, std::vector<int>> ordered;
  std::unordered_map<std::string, int> hashed;
  for (int i = 0; i < 2000; i++) {
    std::string k = make_key(i % 500);
    ordered[k].push_back(i);
    hashed[k] += i;
  }
  long total = 0;
  for (auto &kv : ordered) total += (long)kv.second.size();
  std::printf("%ld %zu %ld\n", total, hashed.size(), grown);
  return 0;
}
