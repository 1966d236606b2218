/* Shared library of the branch tracer's test (tests/branch_trace_test.cc): lib_hot runs
   its loop (x & 3) times per call; main.c calls it N times. */
volatile int lib_sink;

__attribute__((noinline)) int lib_hot(int x) {
  int s = 0;
  for (int i = 0; i < (x & 3); i++) s += i * x + lib_sink;
  return s;
}
