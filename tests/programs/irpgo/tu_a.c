static int helper(int x) { return x * 3; }
int a_entry(int n) { int s = 0; for (int i = 0; i < n; i++) s += helper(i); return s; }
