/* See e2e_static_a.c: same static names, different bodies and counts. */
#include <stdio.h>
#include <stdlib.h>
static __attribute__((noinline)) int helper(int x) { return x & 1 ? x + 7 : x; }
static __attribute__((noinline)) int scale(int x) { return x < 5 ? 0 : x - 5; }
int a_sum(int n);
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40;
  int s = 0;
  for (int i = 0; i < n / 2; i++) s += helper(i) + scale(i);
  printf("%d\n", s + a_sum(n));
  return 0;
}
