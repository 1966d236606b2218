#include <cstdio>
#include <cstdlib>
struct Shape { virtual ~Shape() {} virtual int area(int) const = 0; };
struct Sq : Shape { int area(int x) const override { return x * x; } };
struct Tri : Shape { int area(int x) const override { return x * x / 2; } };
namespace { struct Circ : Shape { int area(int x) const override { return 3 * x * x; } }; }
__attribute__((noinline)) int measure(const Shape *s, int x) { return s->area(x); }
template <typename T> __attribute__((noinline)) T twice(T v) { return v + v; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  Shape *shapes[3] = {new Sq, new Tri, new Circ};
  long acc = 0;
  for (int i = 0; i < n; i++) acc += measure(shapes[i % 5 == 0 ? 2 : (i % 2)], i);
  acc += twice<long>(acc) + twice<int>(3);
  printf("%ld\n", acc);
  return 0;
}
