#include <stdio.h>
#include <stdlib.h>
extern void sink(int);
__attribute__((cold, noinline)) void report(int v) { fprintf(stderr, "%d\n", v); }
__attribute__((noinline)) int work(int x) {
  if (x < 0) {
    report(x); report(x + 1); report(x + 2); sink(x);
    abort();
  }
  return x * 2;
}
