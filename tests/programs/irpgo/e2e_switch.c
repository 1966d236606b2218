/* Switches of several shapes (dense jump table, sparse, fall-through, nested) inside loops.
   Built at -O2 with -fprofile-generate by tests/irpgo_e2e_test.cc; argv[1] varies the input. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int dense(int x) {
  switch (x & 7) {
  case 0: return x + 1;
  case 1: return x * 3;
  case 2: return x - 7;
  case 3: return x ^ 0x55;
  case 4: return x >> 1;
  case 5: return x << 2;
  case 6: return -x;
  default: return 0;
  }
}

__attribute__((noinline)) int sparse(int x) {
  switch (x % 1000) {
  case 1: return 10;
  case 17: return 20;
  case 255: return 30;
  case 600: return 40;
  case 999: return 50;
  default: return x & 1;
  }
}

__attribute__((noinline)) int fallthrough(int x) {
  int s = 0;
  switch (x % 5) {
  case 0: s += 1; /* fall through */
  case 1: s += 2; /* fall through */
  case 2: s += 4; break;
  case 3: s += 8; /* fall through */
  default: s += 16;
  }
  return s;
}

static __attribute__((noinline)) int nested(int a, int b) {
  switch (a % 3) {
  case 0:
    switch (b % 4) {
    case 0: return 1;
    case 1: return 2;
    default: return 3;
    }
  case 1:
    for (int i = 0; i < (b & 3); i++)
      if (i == 2) return 4;
    return 5;
  default:
    return b > 10 ? 6 : 7;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  long acc = 0;
  for (int i = 0; i < n; i++) {
    acc += dense(i * 7 + n);
    if (i % 3) acc += sparse(i * 17);
    acc += fallthrough(i + n);
    for (int j = 0; j < i % 6; j++) acc += nested(i, j + n);
  }
  printf("%ld\n", acc);
  return 0;
}
