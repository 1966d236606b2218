#include <stdio.h>
#include <stdlib.h>

static int helper(int x) {        /* internal linkage -> "simple.c;helper" */
  if (x % 3 == 0)
    return x / 3;
  return x + 1;
}

int compute(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1)
      s += helper(i);
    else
      s -= i;
  }
  return s;
}

int never_called(int a) { return a * 2; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  printf("%d\n", compute(n));
  return 0;
}
