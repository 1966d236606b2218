#include <stdio.h>
#include <stdlib.h>
int check(int a, int b, int c) { if ((a && b) || c) return 1; return 0; }
int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < 8; i++) s += check(i & 1, i & 2, i == 5);
  printf("%d\n", s);
  return 0;
}
