/* Signal handlers and longjmp under profkit-branch-trace (tests/branch_trace_test.cc):
   SIGUSR1 is raised 6 times in the loop; the third handler call longjmps out of it. */
#include <setjmp.h>
#include <signal.h>

volatile int ticks, sink;
static jmp_buf out;

__attribute__((noinline)) void handler(int s) {
  (void)s;
  if (++ticks == 3) longjmp(out, 1);
}
__attribute__((noinline)) int work(int i) { sink += i; return i * 3; }

int main(void) {
  signal(SIGUSR1, handler);
  int acc = 0;
  if (setjmp(out) == 0)
    for (int i = 0; i < 30000; i++) {
      acc += work(i);
      if (i % 5000 == 0) raise(SIGUSR1);
    }
  for (int i = 0; i < 5000; i++) acc += work(i);
  sink = acc;
  return ticks == 3 ? 0 : 1;
}
