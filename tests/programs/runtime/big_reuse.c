// Large blocks freed and allocated again (runtime_sampling_test.cc: full profiles, and
// sampled ones with a small sample_interval so that every large block is sampled): the
// runtime keeps a freed block's pages for the next block of its size up to a bound,
// instead of giving them back to the kernel at every free. Checks, exiting non-zero with a message on the first failure:
//   1. calloc of a block whose pages held another block's bytes returns zeros (aligned and
//      not, after malloc'd blocks filled with 0xAB);
//   2. a 256 KiB block written whole, freed and allocated again 400 times faults its pages in
//      about once, not at every round (minor faults from getrusage);
//   3. 200 rounds of a 3 MiB block (above 2 MiB, kept once its size came back) fault it in
//      about twice; and a block finds the pages of a freed larger one when none of its own
//      size is kept and there is no room to keep more: 400 rounds of an 824 KiB block (a
//      size no freed block had) fault about once, with 1 MiB blocks and the bound's worth
//      of 300 KiB blocks kept;
//   4. what is kept stays bounded: after 192 MiB of blocks live at once are freed, under
//      120 MiB resident (at most 64 MiB of them are kept, plus the shadow of instrumented
//      runs, 24 MiB; keeping all took 192 MiB).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long minor_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

static long resident_mib(void) {
  long pages = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2) return -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// Keeps the compiler from eliding a malloc/memset/free sequence whose bytes nobody reads.
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

static int fail(const char* what) {
  fprintf(stderr, "big_reuse: %s\n", what);
  return 1;
}

// Page faults over `rounds` rounds of one block of `size` bytes written whole and freed,
// or -1 when malloc fails.
static long faults_reusing(size_t size, int rounds) {
  const long before = minor_faults();
  for (int round = 0; round < rounds; ++round) {
    char* p = malloc(size);
    if (p == NULL) return -1;
    memset(p, round, size);
    ESCAPE(p);
    free(p);
  }
  return minor_faults() - before;
}

// Fails, naming the block, when its rounds faulted more than `bound` times.
static int check_reuse(size_t size, int rounds, long bound, long* faults) {
  *faults = faults_reusing(size, rounds);
  if (*faults < 0) return fail("malloc failed");
  if (*faults > bound) {
    fprintf(stderr, "big_reuse: %ld page faults for %d rounds of one %zu KiB block\n", *faults,
            rounds, size >> 10);
    return 1;
  }
  return 0;
}

int main(void) {
  // 1. Zeros from calloc, after the same sizes were written and freed.
  static const size_t sizes[] = {40000, 100000, 300000, 1 << 20, 3000000};
  for (int round = 0; round < 20; ++round)
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
      const size_t n = sizes[i];
      char* p = round % 2 ? aligned_alloc(4096, n) : malloc(n);
      if (p == NULL) return fail("malloc failed");
      memset(p, 0xAB, n);
      ESCAPE(p);
      free(p);
      unsigned char* z = calloc(1, n);
      if (z == NULL) return fail("calloc failed");
      for (size_t k = 0; k < n; ++k)
        if (z[k] != 0) {
          fprintf(stderr, "big_reuse: calloc(%zu) byte %zu is %d, not 0\n", n, k, z[k]);
          return 1;
        }
      memset(z, 0xCD, n);  // the next round's calloc must not see these either
      ESCAPE(z);
      free(z);
    }
  // 2. One block's pages reused: 400 rounds of 64 pages would be 25 600 faults.
  long faults, faults3, faults3b;
  if (check_reuse(256 << 10, 400, 2000, &faults)) return 1;
  // 3. A 3 MiB block (while there is room to keep it): larger blocks are kept once their
  // size is asked for again after one was given back, so 200 rounds fault it in about
  // twice, not 200 times (173 000 faults).
  if (check_reuse(3 << 20, 200, 4000, &faults3b)) return 1;
  // Kept blocks of the next larger sizes serve a size of which none is kept. The 300 KiB
  // blocks fill what may be kept (up to the most bytes ever live in large blocks, the
  // burst's own), so an 824 KiB block freed finds no room and would come back as fresh
  // pages every round: 400 rounds of 206 pages, 82 000 faults.
  static char* burst3[40];
  for (int k = 0; k < 40; ++k) {
    const size_t n = k < 4 ? (size_t)1 << 20 : 300 << 10;
    burst3[k] = malloc(n);
    if (burst3[k] == NULL) return fail("malloc failed");
    memset(burst3[k], k, n);
  }
  for (int k = 0; k < 40; ++k) free(burst3[k]);
  if (check_reuse(824 << 10, 400, 2000, &faults3)) return 1;
  // 4. What is kept is bounded: blocks of 120 sizes (1-15 MiB) written and freed in turn,
  // then 48 blocks of 4 MiB live at once (192 MiB) and freed: at most 64 MiB of them kept.
  for (int k = 0; k < 120; ++k) {
    const size_t n = ((size_t)1 << 20) + (size_t)k * (120 << 10);
    char* p = malloc(n);
    if (p == NULL) return fail("malloc failed");
    memset(p, k, n);
    ESCAPE(p);
    free(p);
  }
  static char* burst[48];
  for (int k = 0; k < 48; ++k) {
    burst[k] = malloc(4 << 20);
    if (burst[k] == NULL) return fail("malloc failed");
    memset(burst[k], k, 4 << 20);
  }
  for (int k = 0; k < 48; ++k) free(burst[k]);
  const long resident = resident_mib();
  if (resident < 0 || resident > 120) {
    fprintf(stderr, "big_reuse: %ld MiB resident after freeing every block\n", resident);
    return 1;
  }
  printf("faults %ld %ld %ld resident %ld MiB\n", faults, faults3, faults3b, resident);
  return 0;
}
