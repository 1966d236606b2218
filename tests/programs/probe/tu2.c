/* tu2.c: second TU */
static int helper(int x) { return x * 11 - (x >> 3); }
__attribute__((noinline)) static int not_inlined(int x) {
  int s = 1;
  for (int i = 0; i < x; i++) s = s * 3 + i;
  return s;
}
__attribute__((noinline)) int tu2_entry(int x) {
  int s = 0;
  for (int i = 0; i < x; i++)
    s += helper(i) + (i % 5 == 0 ? not_inlined(i) : 0);
  return s;
}
