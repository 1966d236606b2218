/* Churn for the soak test (make soak) and the SIGKILL test: ARG1 seconds of worker threads
   that come and go (each lives 20-200 ms, ARG2 at a time), allocating from 256 call paths
   with sizes from 16 bytes to 48 KiB, freeing their own blocks, each other's (an exchange
   of 1024 slots) and a table of 512 long-lived blocks that survive many dumps. Its live
   heap stays bounded, so memory that keeps growing is the runtime's. Fixed seeds. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RING 256
#define EXCHANGE 1024
#define LONG_LIVED 512

void *volatile sink;
static void *exchange_slots[EXCHANGE];
static void *long_lived[LONG_LIVED];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* 2^8 distinct stacks: each level goes through one of two functions by one bit of `path`. */
char *alloc_at(int level, unsigned path, size_t size);
__attribute__((noinline, disable_tail_calls)) char *left(int level, unsigned path, size_t size) {
  return alloc_at(level + 1, path >> 1, size);
}
__attribute__((noinline, disable_tail_calls)) char *right(int level, unsigned path, size_t size) {
  char *p = alloc_at(level + 1, path >> 1, size);
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *alloc_at(int level, unsigned path, size_t size) {
  if (level == 8) {
    char *p = malloc(size);
    for (size_t i = 0; i < size; i += 64) p[i] = (char)i;
    return p;
  }
  return (path & 1) ? left(level, path, size) : right(level, path, size);
}

static size_t pick_size(uint64_t *s) {
  const uint64_t r = next_random(s) % 100;
  if (r < 60) return 16 + next_random(s) % 240;
  if (r < 95) return 256 + next_random(s) % 3840;
  return 32768 + next_random(s) % 16384; /* glibc's blocks */
}

struct worker_arg {
  uint64_t seed;
  double lifetime;
};

static void *worker(void *p) {
  struct worker_arg *arg = p;
  uint64_t s = arg->seed;
  char *ring[RING] = {0};
  unsigned at = 0;
  const double end = now_s() + arg->lifetime;
  while (now_s() < end) {
    for (int n = 0; n < 64; n++) {
      free(ring[at % RING]);
      ring[at % RING] = alloc_at(0, (unsigned)next_random(&s) & 255, pick_size(&s));
      at++;
      const uint64_t r = next_random(&s) % 16;
      if (r == 0) { /* hand a block to whichever thread takes the slot next */
        char *mine = alloc_at(0, (unsigned)next_random(&s) & 255, pick_size(&s));
        pthread_mutex_lock(&lock);
        const unsigned k = (unsigned)next_random(&s) % EXCHANGE;
        void *theirs = exchange_slots[k];
        exchange_slots[k] = mine;
        pthread_mutex_unlock(&lock);
        free(theirs);
      } else if (r == 1) { /* replace a long-lived block */
        char *fresh = alloc_at(0, (unsigned)next_random(&s) & 255, pick_size(&s));
        pthread_mutex_lock(&lock);
        const unsigned k = (unsigned)next_random(&s) % LONG_LIVED;
        void *old = long_lived[k];
        long_lived[k] = fresh;
        pthread_mutex_unlock(&lock);
        free(old);
      }
    }
  }
  for (unsigned i = 0; i < RING; i++) free(ring[i]);
  free(arg);
  return NULL;
}

int main(int argc, char **argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 10;
  const int concurrent = argc > 2 ? atoi(argv[2]) : 4;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  const double end = now_s() + seconds;
  pthread_t threads[64];
  int started = 0;
  for (int i = 0; i < concurrent && i < 64; i++) {
    struct worker_arg *arg = malloc(sizeof *arg);
    arg->seed = next_random(&s) | 1;
    arg->lifetime = 0.02 + (next_random(&s) % 180) / 1000.0;
    pthread_create(&threads[i], NULL, worker, arg);
  }
  /* Replace each worker when it ends, round robin, until the time is up. */
  for (int i = 0; now_s() < end; i = (i + 1) % concurrent) {
    pthread_join(threads[i], NULL);
    struct worker_arg *arg = malloc(sizeof *arg);
    arg->seed = next_random(&s) | 1;
    arg->lifetime = 0.02 + (next_random(&s) % 180) / 1000.0;
    pthread_create(&threads[i], NULL, worker, arg);
    started++;
  }
  for (int i = 0; i < concurrent; i++) pthread_join(threads[i], NULL);
  /* The exchange and long-lived blocks stay live (the exit profile reports them): freed here,
     they would put contexts the main thread never freed before into its tables at the end,
     a step in the runtime's memory the test would take for growth. */
  printf("soak: %d threads\n", started + concurrent);
  return 0;
}
