/* Interval profiles (dump_interval): blocks live across many dumps and freed late, blocks
   freed in the interval after the one they were made in, blocks never freed, two threads
   freeing their own and each other's blocks. Every count is fixed; only the timing of the
   dumps varies. Runs about 0.3 s (ARG1 scales the sleeps, 0 = no sleeps). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

void *volatile sink;
static int scale = 1;

static void pause_ms(int ms) {
  struct timespec t = {0, (long)ms * scale * 1000000L};
  nanosleep(&t, NULL);
}

__attribute__((noinline, disable_tail_calls)) long *make_long_lived(void) {
  long *p = malloc(48);
  p[0] = 1;
  return p;
}
__attribute__((noinline, disable_tail_calls)) long *make_never_freed(void) {
  long *p = malloc(200);
  p[0] = 1;
  p[8] = 2;
  return p;
}
__attribute__((noinline, disable_tail_calls)) long *make_phase_block(int k) {
  long *p = malloc(64 + 8 * (k % 3));
  for (int j = 0; j <= k % 4; j++) p[j] = j;
  return p;
}
__attribute__((noinline, disable_tail_calls)) long *make_thread_block(int id) {
  long *p = malloc(32);
  p[0] = id;
  p[1] = id;
  p[2] = id;
  return p;
}

static long *handed[2][50];

static void *worker(void *arg) {
  const int id = (int)(long)arg;
  for (int round = 0; round < 5; round++) {
    long *own[10];
    for (int i = 0; i < 10; i++) own[i] = make_thread_block(id);
    for (int i = 0; i < 10; i++) handed[id][round * 10 + i] = make_thread_block(id);
    pause_ms(12);
    for (int i = 0; i < 10; i++) free(own[i]);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) scale = atoi(argv[1]);
  long *long_lived[8], *never[4], *carried[5] = {0};
  for (int i = 0; i < 8; i++) long_lived[i] = make_long_lived();
  for (int i = 0; i < 4; i++) never[i] = make_never_freed();
  sink = never;
  pthread_t threads[2];
  for (long id = 0; id < 2; id++) pthread_create(&threads[id], NULL, worker, (void *)id);
  for (int phase = 0; phase < 10; phase++) {
    long *blocks[10];
    for (int k = 0; k < 10; k++) blocks[k] = make_phase_block(phase + k);
    pause_ms(15);
    for (int k = 0; k < 5; k++) {
      free(blocks[k]);
      free(carried[k]);  /* made in the previous phase */
      carried[k] = blocks[5 + k];
    }
  }
  for (int k = 0; k < 5; k++) free(carried[k]);
  for (int id = 0; id < 2; id++) pthread_join(threads[id], NULL);
  for (int id = 0; id < 2; id++)
    for (int i = 0; i < 50; i++) free(handed[id][i]); /* made by the workers */
  for (int i = 0; i < 8; i++) free(long_lived[i]);
  return 0;
}
