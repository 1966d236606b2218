#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) int work(int x) {
  if (x % 3 == 0)
    return x * 2;
  return x + 1;
}

int helper(int x) { return work(x) + 1; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long sum = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1)
      sum += helper(i);
    else
      sum += work(i);
  }
  printf("%ld\n", sum);
  return 0;
}
