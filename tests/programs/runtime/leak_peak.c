/* Known leaks and a known peak (tests/leak_peak_e2e_test.cc). Phase X: 100 blocks of 1000
   bytes from x_block, all freed. Phase Y, larger: 200 x 1500 bytes from y_big and 50 x 2000
   from y_small (400,000 bytes), all freed: the heap's peak, exactly Y. Then leaks, never
   freed: 3 x 1000 from leak_a, 5 x 200 from leak_b, 1 x 7000 from leak_c (11,000 bytes).
   With an argument, phase Y runs on two threads (y_big on one, y_small on the other) and
   the main thread frees their blocks after joining them; with the argument "3", single-
   threaded, a phase W (150 x 1000 bytes from x_block, all freed) between X and Y makes
   three rises, so the runtime takes Y's snapshot into the cells X's was taken into. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *volatile sink;
static char *xs[100], *ybig[200], *ysmall[50];

__attribute__((noinline)) char *x_block(void) { return malloc(1000); }
__attribute__((noinline)) char *y_big(void) { return malloc(1500); }
__attribute__((noinline)) char *y_small(void) { return malloc(2000); }
__attribute__((noinline)) void *leak_a(void) { return malloc(1000); }
__attribute__((noinline)) void *leak_b(void) { return malloc(200); }
__attribute__((noinline)) void *leak_c(void) { return malloc(7000); }

static void *make_big(void *arg) {
  (void)arg;
  for (int i = 0; i < 200; i++) memset(ybig[i] = y_big(), 1, 1500);
  return NULL;
}
static void *make_small(void *arg) {
  (void)arg;
  for (int i = 0; i < 50; i++) memset(ysmall[i] = y_small(), 2, 2000);
  return NULL;
}

int main(int argc, char **argv) {
  for (int i = 0; i < 100; i++) memset(xs[i] = x_block(), 3, 1000);
  for (int i = 0; i < 100; i++) free(xs[i]);
  const int three = argc > 1 && strcmp(argv[1], "3") == 0;
  if (three) {
    static char *ws[150];
    for (int i = 0; i < 150; i++) memset(ws[i] = x_block(), 4, 1000);
    for (int i = 0; i < 150; i++) free(ws[i]);
  }
  if (argc > 1 && !three) {
    pthread_t a, b;
    pthread_create(&a, NULL, make_big, NULL);
    pthread_create(&b, NULL, make_small, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
  } else {
    make_big(NULL);
    make_small(NULL);
  }
  for (int i = 0; i < 200; i++) free(ybig[i]);
  for (int i = 0; i < 50; i++) free(ysmall[i]);
  static void *leaks[9];
  for (int i = 0; i < 3; i++) leaks[i] = leak_a();
  for (int i = 0; i < 5; i++) leaks[3 + i] = leak_b();
  leaks[8] = leak_c();
  sink = leaks;
  return 0;
}
