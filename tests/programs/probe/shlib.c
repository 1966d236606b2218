/* shlib.c: shared library */
static int sl_helper(int x) { return x % 3 ? x + 1 : x - 1; }
__attribute__((noinline)) int sl_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += sl_helper(i);
  return s;
}
int sl_api(int n) { return sl_work(n) + sl_helper(n); }
