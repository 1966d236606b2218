// Cross-thread frees come back to the allocating thread: main allocates 1000 blocks of 200
// bytes, a thread frees them all and exits, then main allocates 1000 more and prints how
// many reuse a freed block. The freeing thread gathers blocks into batches before handing
// them back; what it still holds must be handed back when it exits (1000 is no multiple of
// a batch), so all 1000 come back.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 1000, kSize = 200 };
static char *blocks[kBlocks];

static void *release_all(void *arg) {
  (void)arg;
  for (int i = 0; i < kBlocks; i++) free(blocks[i]);
  return NULL;
}

static int cmp(const void *a, const void *b) {
  const uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  static uintptr_t freed[kBlocks];
  for (int i = 0; i < kBlocks; i++) {
    blocks[i] = malloc(kSize);
    blocks[i][0] = (char)i;
    freed[i] = (uintptr_t)blocks[i];
  }
  qsort(freed, kBlocks, sizeof freed[0], cmp);
  pthread_t t;
  if (pthread_create(&t, NULL, release_all, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
  int reused = 0;
  for (int i = 0; i < kBlocks; i++) {
    blocks[i] = malloc(kSize);
    blocks[i][0] = (char)i;
    const uintptr_t p = (uintptr_t)blocks[i];
    if (bsearch(&p, freed, kBlocks, sizeof freed[0], cmp) != NULL) reused++;
  }
  printf("reused %d of %d\n", reused, kBlocks);
  for (int i = 0; i < kBlocks; i++) free(blocks[i]);
  return 0;
}
