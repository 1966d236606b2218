/* inl.c: inlining (multi-level), recursion, indirect calls */
#include <stdio.h>
#include <stdlib.h>

static int leaf(int x) {           /* inlined into mid */
  if (x & 1)
    return x * 3 + 1;
  return x / 2;
}

static int mid(int x) {            /* inlined into top, carries leaf */
  int s = 0;
  for (int i = 0; i < x % 7; i++)
    s += leaf(x + i);
  return s;
}

static int top(int x) {            /* inlined into main: 3-level chain main->top->mid->leaf */
  if (x > 100)
    return mid(x) + mid(x + 1);
  return mid(x - 1);
}

__attribute__((noinline)) int fib(int n) {   /* recursion */
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int add1(int v) { return v + 1; }
__attribute__((noinline)) int dbl(int v) { return v * 2; }

typedef int (*fn_t)(int);
fn_t table[2] = {add1, dbl};

__attribute__((noinline)) int apply(int sel, int v) {  /* indirect call */
  return table[sel & 1](v);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long acc = 0;
  for (int i = 0; i < n; i++) {
    acc += top(i);
    acc += apply(i, i);
    if ((i & 255) == 0)
      acc += fib(i % 20);
  }
  printf("%ld\n", acc);
  return 0;
}
