// Tree builder: builds and frees complete binary trees recursively (many small blocks,
// deep recursive allocation stacks).
#include <cstdio>
#include <cstdlib>

struct Node {
  Node* left;
  Node* right;
  long value;
};

__attribute__((noinline)) Node* build(int depth, long v) {
  Node* n = new Node{nullptr, nullptr, v};
  if (depth > 0) {
    n->left = build(depth - 1, 2 * v);
    n->right = build(depth - 1, 2 * v + 1);
  }
  return n;
}

long sum(const Node* n) { return n ? n->value + sum(n->left) + sum(n->right) : 0; }

void destroy(Node* n) {
  if (!n) return;
  destroy(n->left);
  destroy(n->right);
  delete n;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 12;
  long total = 0;
  Node* keep = build(16, 1);  // long-lived
  for (int r = 0; r < rounds; r++) {
    Node* t = build(16, r);
    total += sum(t);
    destroy(t);
  }
  total += sum(keep);
  destroy(keep);
  std::printf("%ld\n", total);
  return 0;
}
