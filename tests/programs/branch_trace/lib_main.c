/* Calls lib_hot (libbtlib.so) N = argv[1] times (default 2000). */
#include <stdlib.h>

int lib_hot(int x);

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  int acc = 0;
  for (int i = 0; i < n; i++) acc += lib_hot(i);
  return acc == 42 ? 1 : 0;
}
