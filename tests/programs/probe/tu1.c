/* tu1.c: multi-TU; static function with same name as in tu2.c */
int tu2_entry(int);
static int helper(int x) { return x * 7 + (x >> 2); }
__attribute__((noinline)) int tu1_entry(int x) {
  int s = 0;
  for (int i = 0; i < x; i++)
    s += helper(i);
  return s;
}
int main(int argc, char **argv) {
  (void)argv;
  return (tu1_entry(argc * 50) + tu2_entry(argc * 30)) & 0xff;
}
