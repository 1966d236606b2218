// tmpl.cpp: C++ templates, namespaces, classes, lambdas -> mangled names
#include <cstdio>
#include <cstdlib>

namespace ns {
namespace detail {
template <typename T> static inline T sq(T v) { return v * v; }
}
template <typename T> struct Acc {
  T total{};
  __attribute__((noinline)) void add(T v) {
    if (v > T(3))
      total += detail::sq(v);
    else
      total -= v;
  }
};
template <typename T> __attribute__((noinline)) T sum(const T *p, int n) {
  T s{};
  for (int i = 0; i < n; i++)
    s += detail::sq(p[i]);
  return s;
}
} // namespace ns

struct Base {
  virtual ~Base() {}
  virtual int f(int) = 0;
};
struct D1 : Base {
  int f(int x) override { return x + 3; }
};
struct D2 : Base {
  int f(int x) override { return x ^ 5; }
};

__attribute__((noinline)) int callv(Base *b, int x) { return b->f(x); }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  ns::Acc<int> ai;
  ns::Acc<double> ad;
  double arr[4] = {1, 2, 3, 4};
  D1 d1;
  D2 d2;
  int acc = 0;
  auto lam = [&](int i) { return i % 3 ? callv(&d1, i) : callv(&d2, i); };
  for (int i = 0; i < n; i++) {
    ai.add(i);
    ad.add(i * 0.5);
    acc += lam(i);
  }
  printf("%d %f %f\n", ai.total, ad.total, ns::sum(arr, 4));
  return acc & 1;
}
