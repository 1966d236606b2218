/* split.c: cold code for hot/cold splitting -> sentinel probes */
#include <stdio.h>
#include <stdlib.h>
__attribute__((cold, noinline)) void report(const char *m, int v) { fprintf(stderr, "%s %d\n", m, v); }
__attribute__((noinline)) int work(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (__builtin_expect(a[i] < 0, 0)) {
      report("neg", a[i]);
      report("again", i);
      s -= a[i] * 3;
      if (s > 1000) abort();
    } else {
      s += a[i];
    }
  }
  return s;
}
int main(int argc, char **argv) {
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = (i * argc) - 3;
  printf("%d\n", work(a, 64));
  return 0;
}
