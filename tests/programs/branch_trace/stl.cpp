// A C++ program for profgen: virtual calls, std::sort with a lambda (whose inlined
// helpers leave call sites the optimizer merged, index 0), std::map, qsort callbacks into
// libc, exceptions, setjmp/longjmp and recursion. tests/profgen_cxx_test.py traces it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <csetjmp>

struct Shape { virtual ~Shape() = default; virtual double area() const = 0; };
struct Sq : Shape { double s; explicit Sq(double x) : s(x) {} double area() const override { return s * s; } };
struct Ci : Shape { double r; explicit Ci(double x) : r(x) {} double area() const override { return 3.14159 * r * r; } };

static int cmp(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }

__attribute__((noinline)) int thrower(int i) {
  if (i % 7 == 3) throw std::runtime_error("x");
  return i * 2;
}

static jmp_buf jb;
__attribute__((noinline)) void jumper(int i) { if (i % 5 == 1) longjmp(jb, 1); }

__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int even(int n);
__attribute__((noinline)) int odd(int n) { return n == 0 ? 0 : even(n - 1); }
__attribute__((noinline)) int even(int n) { return n == 0 ? 1 : odd(n - 1); }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  std::vector<std::unique_ptr<Shape>> v;
  for (int i = 0; i < n; ++i) {
    if (i & 1) v.push_back(std::make_unique<Sq>(i)); else v.push_back(std::make_unique<Ci>(i));
  }
  double total = 0;
  for (auto& s : v) total += s->area();
  std::map<std::string, int> m;
  for (int i = 0; i < n; ++i) m[std::to_string(i % 50)] += i;
  std::vector<int> a(n);
  for (int i = 0; i < n; ++i) a[i] = (i * 7919) % 1000;
  qsort(a.data(), a.size(), sizeof(int), cmp);
  std::sort(a.begin(), a.end(), [](int x, int y) { return x > y; });
  int caught = 0;
  for (int i = 0; i < n / 10; ++i) {
    try { total += thrower(i); } catch (const std::exception&) { ++caught; }
  }
  int jumps = 0;
  for (int i = 0; i < n / 10; ++i) { if (setjmp(jb) == 0) jumper(i); else ++jumps; }
  total += fib(15) + odd(n / 3);
  printf("%f %zu %d %d %d\n", total, m.size(), a[0], caught, jumps);
}
