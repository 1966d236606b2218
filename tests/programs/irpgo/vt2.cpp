#include <cstdio>
#include <cstdlib>
#include <cstring>
struct B { virtual ~B() {} virtual int f(int) const = 0; };
struct D1 : B { int f(int x) const override { return x + 1; } };
struct D2 : B { int f(int x) const override { return x + 2; } };
char s[256], d[256];
__attribute__((noinline)) int both(const B *b, int x, size_t n) { memcpy(d, s, n); return b->f(x); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20; B *bs[2] = {new D1, new D2}; long acc = 0;
  for (int i = 0; i < n; i++) acc += both(bs[i % 3 == 0], i, (i % 2) ? 16 : 200);
  printf("%ld\n", acc + d[0]); return 0;
}
