/* Test program for profkit-branch-trace (tests/branch_trace_test.cc). Every count below
   is known exactly, so the profiles made from its trace can be checked against it:
   with N = argv[1] (default 2000), per run
     hot   entered 4260 times = N direct + N/2 through the table + N/2 tail-called from tail
                               + 13 leaves of each of the N/100 rec(6) trees
     cold  200 = N/10 calls    tail 1000 = N/2 indirect calls    rec 500 = 25 per rec(6)
     spin  1 call, its loop body runs 5 N = 10000 times. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int hot(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int cold(int x) { sink -= x; return x - 1; }
__attribute__((noinline)) int tail(int x) { return hot(x * 3); } /* a jmp at -O2 */
__attribute__((noinline)) int rec(int n) {
  if (n <= 1) return hot(n);
  return rec(n - 1) + rec(n - 2);
}
__attribute__((noinline)) int spin(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i ^ sink;
  return s;
}

typedef int (*fn_t)(int);
fn_t table[2] = {hot, tail};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  int acc = 0;
  for (int i = 0; i < n; i++) {
    acc += hot(i);
    if (i % 10 == 0) acc += cold(i);
    acc += table[i & 1](i);
    if (i % 100 == 0) acc += rec(6);
  }
  acc += spin(5 * n);
  sink = acc;
  return 0;
}
