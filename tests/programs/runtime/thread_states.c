/* Thread states: main makes one block, then ARG1 ("together" or "in-turn") threads, ARG2 of
   them, each making 10 blocks in `in_thread`. together: all alive at once (a barrier holds
   them until every one has allocated); in-turn: each joined before the next starts, so
   each can adopt the state of the one before. Prints "ok" (ARG3 "peak": and the peak
   resident set in KiB, read before the runtime writes its profile). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *volatile sink;
static pthread_barrier_t all_allocated;
static int together;

__attribute__((noinline, disable_tail_calls)) static void in_thread(void) {
  for (int i = 0; i < 10; i++) {
    char *p = malloc(48);
    p[0] = 1;
    sink = p;
    free(p);
  }
}

static void *run(void *arg) {
  (void)arg;
  in_thread();
  if (together) pthread_barrier_wait(&all_allocated);
  return 0;
}

int main(int argc, char **argv) {
  together = argc > 1 && strcmp(argv[1], "together") == 0;
  const int n = argc > 2 ? atoi(argv[2]) : 8;
  char *first = malloc(16);
  first[0] = 1;
  sink = first;
  pthread_t *threads = calloc((size_t)n, sizeof *threads);
  if (together) pthread_barrier_init(&all_allocated, 0, (unsigned)n);
  for (int i = 0; i < n; i++) {
    if (pthread_create(&threads[i], 0, run, 0) != 0) return 2;
    if (!together) pthread_join(threads[i], 0);
  }
  if (together)
    for (int i = 0; i < n; i++) pthread_join(threads[i], 0);
  free(threads);
  free(first);
  if (argc > 3 && strcmp(argv[3], "peak") == 0) {  /* peak resident set, before any dump */
    char line[256];
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status))
      if (strncmp(line, "VmHWM:", 6) == 0) printf("ok %ld\n", atol(line + 6));
    if (status) fclose(status);
    return 0;
  }
  puts("ok");
  return 0;
}
