/* Four threads allocate through a plugin that stays loaded (argv[1]) while the main thread
 * loads, uses and unloads another (argv[2]) 3000 times: every unload makes each walker
 * drop what it learnt, under the feet of threads that are walking. Prints how many
 * iterations the workers made (each: one block through the plugin, one directly). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *(*entry_kept)(void);
static volatile int stop;
void *volatile sink;

__attribute__((noinline)) static void *worker(void *arg) {
  (void)arg;
  long n = 0;
  while (!stop) {
    free(entry_kept());
    void *p = malloc(40);
    sink = p;
    free(p);
    n++;
  }
  return (void *)n;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  void *kept = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (kept == NULL) return 3;
  entry_kept = (void *(*)(void))dlsym(kept, "entry");
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < 3000; i++) {
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return 4;
    void *(*entry)(void) = (void *(*)(void))dlsym(h, "entry");
    free(entry());
    if (dlclose(h) != 0) return 5;
  }
  stop = 1;
  long total = 0;
  for (int i = 0; i < 4; i++) {
    void *n;
    pthread_join(threads[i], &n);
    total += (long)n;
  }
  printf("%ld\n", total);
  return 0;
}
