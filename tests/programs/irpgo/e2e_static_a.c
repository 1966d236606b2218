/* Same-named static functions in two files (with e2e_static_b.c): the profile keys are
   "e2e_static_a.c;helper" and "e2e_static_b.c;helper", and must not be mixed. */
static __attribute__((noinline)) int helper(int x) { return x % 3 ? x * 3 : x - 1; }
static __attribute__((noinline)) int scale(int x) { return x > 50 ? x / 2 : x * 2; }
int a_sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += helper(i) + scale(i);
  return s;
}
