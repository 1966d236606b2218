/* Five 40-byte allocations (two freed, three live), then ARG1 picks how the program ends:
   term, int, quit: the signal, sent to itself, with no handler; pipe: a write to a pipe
   with no reader (SIGPIPE); ignored: SIGTERM ignored, then sent (it survives and exits 0);
   int-once: SIGINT sent once, then "survived" and exit 0 (where SIGINT was ignored before
   the program started, as `nohup` and background jobs do); int-default: SIGINT set to
   SIG_DFL, then sent (ignored before it started: the stand-in comes with SIG_DFL); own:
   its own SIGTERM handler (prints, exits 42 with _exit: no profile); reset: a handler,
   then SIG_DFL again, then SIGTERM; wait: writes ARG2 (a file) and waits for a signal;
   view: prints the dispositions it finds, as it would without the runtime. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile sink;

static void own_handler(int sig) {
  (void)sig;
  write(1, "handled\n", 8);
  _exit(42);
}

__attribute__((noinline, disable_tail_calls)) void allocate(void) {
  for (int i = 0; i < 5; i++) {
    char *p = malloc(40);
    p[0] = 1;
    sink = p;
    if (i % 2) free(p);
  }
}

static const char *shown(void (*h)(int)) {
  return h == SIG_DFL ? "default" : h == SIG_IGN ? "ignore" : h == own_handler ? "own" : "other";
}

static void send(int sig) {
  kill(getpid(), sig);
  for (;;) pause();
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "term";
  allocate();
  if (strcmp(how, "term") == 0) send(SIGTERM);
  if (strcmp(how, "int") == 0) send(SIGINT);
  if (strcmp(how, "quit") == 0) send(SIGQUIT);
  if (strcmp(how, "pipe") == 0) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    close(fds[0]);
    write(fds[1], "x", 1);
    return 2;
  }
  if (strcmp(how, "int-default") == 0) {
    signal(SIGINT, SIG_DFL);
    send(SIGINT);
  }
  if (strcmp(how, "int-once") == 0) {
    kill(getpid(), SIGINT);
    puts("survived");
    return 0;
  }
  if (strcmp(how, "ignored") == 0) {
    signal(SIGTERM, SIG_IGN);
    kill(getpid(), SIGTERM);
    puts("survived");
    return 0;
  }
  if (strcmp(how, "own") == 0) {
    signal(SIGTERM, own_handler);
    send(SIGTERM);
  }
  if (strcmp(how, "reset") == 0) {
    signal(SIGTERM, own_handler);
    signal(SIGTERM, SIG_DFL);
    send(SIGTERM);
  }
  if (strcmp(how, "wait") == 0) {
    close(open(argv[2], O_WRONLY | O_CREAT, 0644));
    for (;;) pause();
  }
  if (strcmp(how, "view") == 0) {
    const int sigs[] = {SIGINT, SIGTERM, SIGPIPE, SIGSEGV, SIGABRT, SIGUSR1};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
      struct sigaction a;
      sigaction(sigs[i], NULL, &a);
      printf("%s %s%s", strsignal(sigs[i]), (a.sa_flags & SA_SIGINFO) ? "siginfo" : shown(a.sa_handler),
             i + 1 < sizeof sigs / sizeof sigs[0] ? ", " : "\n");
    }
    /* signal() and sigaction() see each other's settings, as with glibc alone. */
    printf("signal: %s", shown(signal(SIGTERM, own_handler)));
    printf(", %s", shown(signal(SIGTERM, SIG_IGN)));
    struct sigaction a, old;
    memset(&a, 0, sizeof a);
    a.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &a, &old);
    printf(", %s", shown(old.sa_handler));
    printf(", %s\n", shown(signal(SIGTERM, SIG_DFL)));
    return 0;
  }
  return 0;
}
