#include <stdio.h>
static int helper(int x) { return x + 7; }
int a_entry(int n);
int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += helper(i); printf("%d\n", s + a_entry(4)); return 0; }
