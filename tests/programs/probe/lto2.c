/* lto2.c: static function referenced by an importable function => promoted name (.llvm.NNN) */
__attribute__((noinline)) static int hidden_work(int x) {
  int s = 1;
  for (int i = 0; i < x; i++) s = s * 3 + (i ^ x);
  return s;
}
int lto_entry(int x) { return hidden_work(x) + 1; }
