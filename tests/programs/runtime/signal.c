/* A dump on a signal chosen by option (dump_signal=28): the program raises SIGWINCH, whose
   default action is to do nothing (so it goes on), after its first phase and leaves with
   _exit, so only the signal's dump exists. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
void *volatile sink;
__attribute__((noinline, disable_tail_calls)) void before_signal(void) {
  for (int i = 0; i < 7; i++) { char *p = malloc(40); sink = p; p[0] = 1; free(p); }
}
int main(void) {
  before_signal();
  raise(SIGWINCH);
  _exit(3);
}
