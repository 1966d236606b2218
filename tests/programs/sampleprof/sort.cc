#include <cstdio>
#include <cstdlib>

static unsigned next(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return *state >> 8;
}

__attribute__((noinline)) void insertion_sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int key = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
}

__attribute__((noinline)) int checksum(const int *a, int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    c = c * 31 + (a[i] & 0xff);
  return c;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 500;
  unsigned state = 7;
  int *a = new int[n];
  for (int i = 0; i < n; i++)
    a[i] = static_cast<int>(next(&state) % 1000);
  insertion_sort(a, n);
  printf("%d\n", checksum(a, n));
  return 0;
}
