/* Four threads allocate and free without pause (each into its own 64 slots, sizes 16 B to
   2 KiB); once each has made 20 000 blocks, the program creates ARG1 (a file) and waits
   for a signal. A signal that ends it then finds threads inside and outside the runtime. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int warmed;

__attribute__((noinline, disable_tail_calls)) static void *churn(void *arg) {
  void *slots[64] = {0};
  unsigned s = (unsigned)(long)arg;
  for (long n = 0;; n++) {
    s = s * 1103515245u + 12345u;
    const int k = (s >> 8) & 63;
    free(slots[k]);
    slots[k] = malloc(16 + (s >> 20) % 2000);
    ((volatile char *)slots[k])[0] = 1;
    if (n == 20000) atomic_fetch_add(&warmed, 1);
  }
  return 0;
}

int main(int argc, char **argv) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, churn, (void *)(i + 1));
  while (atomic_load(&warmed) < 4) usleep(1000);
  if (argc > 1) close(open(argv[1], O_WRONLY | O_CREAT, 0644));
  for (;;) pause();
}
