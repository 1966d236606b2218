// A mutual recursion a -> b -> c -> a and a direct recursion d, each allocating at every
// level, entered at every depth below 60 from two roots: cold_root leaves its blocks
// untouched, hot_root writes them over and over. Unfolded, every level is a context of its
// own (hundreds of frames deep); with fold_recursion=1 each site has a handful.
#include <cstdio>

static int g_writes;  // how many times each block is written (0: never)

static void use(char* p, int n) {
  for (int t = 0; t < g_writes; ++t)
    for (int i = 0; i < n; ++i) static_cast<volatile char*>(p)[i] = static_cast<char>(t);
}

__attribute__((noinline)) void a(int n);
__attribute__((noinline)) void c(int n) {
  char* p = new char[48];
  use(p, 48);
  a(n - 1);
  delete[] p;
}
__attribute__((noinline)) void b(int n) {
  char* p = new char[32];
  use(p, 32);
  c(n);
  delete[] p;
}
__attribute__((noinline)) void a(int n) {
  char* p = new char[16];
  use(p, 16);
  if (n > 0) b(n);
  delete[] p;
}
__attribute__((noinline)) void d(int n) {
  char* p = new char[24];
  use(p, 24);
  if (n > 0) d(n - 1);
  delete[] p;
}

__attribute__((noinline)) void cold_root(int depth) {
  g_writes = 0;
  a(depth);
  d(depth);
}
__attribute__((noinline)) void hot_root(int depth) {
  g_writes = 40;
  a(depth);
  d(depth);
}

int main() {
  for (int depth = 0; depth < 60; ++depth) {
    cold_root(depth);
    hot_root(depth);
  }
  std::puts("done");
  return 0;
}
