// Known counts of known sizes from one call site each (runtime_sampling_test.cc): every
// block is touched exactly twice (one 8-byte write, one 8-byte read) and freed at once,
// except site_live's, which live until exit. Every kind of entry point, so each path of a
// sampled runtime is taken: small and large blocks, aligned ones, calloc, realloc.
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static void touch(void* p, size_t size) {
  if (malloc_usable_size(p) < size) abort();
  *(volatile long*)p = 1;
  if (*(volatile long*)p != 1) abort();
}

// Each site's call must not be a tail call: its frame is the context's leaf.
#define KEPT(p) (__extension__({ void* kept_ = (p); __asm__ volatile("" : "+r"(kept_)); kept_; }))

__attribute__((noinline)) void* site_small(void) { return KEPT(malloc(64)); }
__attribute__((noinline)) void* site_page(void) { return KEPT(malloc(4096)); }
__attribute__((noinline)) void* site_large(void) { return KEPT(malloc(100000)); }
__attribute__((noinline)) void* site_aligned(void) {
  void* p = NULL;
  if (posix_memalign(&p, 256, 200) != 0 || ((unsigned long)p & 255) != 0) abort();
  return p;
}
__attribute__((noinline)) void* site_zeroed(void) { return KEPT(calloc(10, 100)); }
__attribute__((noinline)) void* site_grown(void* p) { return KEPT(realloc(p, 3000)); }
__attribute__((noinline)) void* site_live(void) { return KEPT(malloc(512)); }

int main(void) {
  for (int i = 0; i < 200000; ++i) { void* p = site_small(); touch(p, 64); free(p); }
  for (int i = 0; i < 20000; ++i) { void* p = site_page(); touch(p, 4096); free(p); }
  for (int i = 0; i < 2000; ++i) { void* p = site_large(); touch(p, 100000); free(p); }
  for (int i = 0; i < 20000; ++i) { void* p = site_aligned(); touch(p, 200); free(p); }
  for (int i = 0; i < 20000; ++i) {
    char* p = site_zeroed();
    for (int j = 0; j < 1000; ++j)
      if (p[j] != 0) abort();
    touch(p, 1000);
    free(p);
  }
  for (int i = 0; i < 5000; ++i) {
    char* p = malloc(100);
    memset(p, 7, 100);
    char* q = site_grown(p);
    if (q[99] != 7) abort();
    touch(q, 3000);
    free(q);
  }
  static void* live[1000];
  for (int i = 0; i < 1000; ++i) { live[i] = site_live(); touch(live[i], 512); }
  return 0;
}
