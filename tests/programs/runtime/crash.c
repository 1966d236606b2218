/* A crash after five 40-byte allocations (two freed, three live): ARG1 picks how it ends.
   segv: a NULL store; fpe: an integer division by zero; abort: abort(); own: the program
   installs its own SIGSEGV handler first (it prints and exits 42); chain: its handler
   prints, then passes the signal on to the handler it replaced, as crash reporters do. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile sink;
static struct sigaction previous;

static void own_handler(int sig) {
  (void)sig;
  write(1, "handled\n", 8);
  _exit(42);
}

static void chaining_handler(int sig, siginfo_t *info, void *context) {
  write(1, "chained\n", 8);
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
  }
}

__attribute__((noinline, disable_tail_calls)) void allocate(void) {
  for (int i = 0; i < 5; i++) {
    char *p = malloc(40);
    p[0] = 1;
    sink = p;
    if (i % 2) free(p);
  }
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "segv";
  allocate();
  if (strcmp(how, "own") == 0) signal(SIGSEGV, own_handler);
  if (strcmp(how, "chain") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = chaining_handler;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, &previous);
  }
  if (strcmp(how, "abort") == 0) abort();
  if (strcmp(how, "fpe") == 0) {
    int zero = 0;
    asm volatile("" : "+r"(zero));
    return 100 / zero;
  }
  volatile long null_address = 0;
  *(volatile int *)null_address = 1;
  return 0;
}
