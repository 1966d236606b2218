// A server's shape: the main thread allocates requests and hands them to worker threads,
// which free them. The heap stays small and flat; the main thread's allocations reach the
// shared live total 32 KiB at a time, the workers' frees only when each has freed 32 KiB.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { kWorkers = 8, kRequests = 200000, kQueue = 256 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER, room = PTHREAD_COND_INITIALIZER;
static char *queue[kQueue];
static unsigned head, tail;
static int done;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (head == tail && !done) pthread_cond_wait(&more, &lock);
    if (head == tail) {
      pthread_mutex_unlock(&lock);
      return NULL;
    }
    char *request = queue[head++ % kQueue];
    pthread_cond_signal(&room);
    pthread_mutex_unlock(&lock);
    free(request);
  }
}

int main(void) {
  pthread_t threads[kWorkers];
  for (int i = 0; i < kWorkers; i++) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < kRequests; i++) {
    char *request = malloc(64 + i % 192);
    memset(request, 1, 64);
    pthread_mutex_lock(&lock);
    while (tail - head == kQueue) pthread_cond_wait(&room, &lock);
    queue[tail++ % kQueue] = request;
    pthread_cond_signal(&more);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_broadcast(&more);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < kWorkers; i++) pthread_join(threads[i], NULL);
  return 0;
}
