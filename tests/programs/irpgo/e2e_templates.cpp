// Templates (several instantiations of one function and class template), a lambda passed
// through std::function, and virtual calls: C++ names and value profiles. Built at -O2.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

template <typename T>
__attribute__((noinline)) T accumulate_if(const std::vector<T>& v, bool odd) {
  T s = 0;
  for (const T& x : v)
    if ((static_cast<long>(x) & 1) == odd) s += x;
  return s;
}

template <int N>
struct Ring {
  int data[N] = {};
  int pos = 0;
  __attribute__((noinline)) void push(int x) {
    data[pos] = x;
    pos = pos + 1 == N ? 0 : pos + 1;
  }
  __attribute__((noinline)) int sum() const {
    int s = 0;
    for (int i = 0; i < N; i++) s += data[i];
    return s;
  }
};

struct Visitor {
  virtual ~Visitor() {}
  virtual long visit(long x) = 0;
};
struct Adder : Visitor { long visit(long x) override { return x + 1; } };
struct Doubler : Visitor { long visit(long x) override { return 2 * x; } };

__attribute__((noinline)) long apply(Visitor& v, long x) { return v.visit(x); }
__attribute__((noinline)) long call_fn(const std::function<long(long)>& f, long x) { return f(x); }

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 60;
  std::vector<int> vi;
  std::vector<double> vd;
  for (int i = 0; i < n; i++) {
    vi.push_back(i * 3);
    vd.push_back(i * 0.5);
  }
  Ring<4> r4;
  Ring<16> r16;
  for (int i = 0; i < n; i++) {
    r4.push(i);
    if (i % 3) r16.push(i);
  }
  Adder a;
  Doubler d;
  long acc = 0;
  for (int i = 0; i < n; i++) {
    acc += apply(i % 4 ? static_cast<Visitor&>(a) : d, i);
    acc += call_fn([i](long x) { return x + i; }, i);
  }
  std::printf("%d %f %d %d %ld\n", accumulate_if(vi, true), accumulate_if(vd, false), r4.sum(),
              r16.sum(), acc);
  return 0;
}
