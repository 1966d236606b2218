/* libc functions on every kind of tracked block: the runtime's own small blocks (header in
   front, and detached), over-aligned, large and mmapped blocks from glibc, and a block made
   on another thread. The runtime counts libc's accesses only in memory that may hold a
   block; copies from a literal and from the stack count on the block's side only. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
char *volatile sink;
const char *volatile text = "0123456789abcdef0123456789abcde"; /* 32 bytes with its NUL */
__attribute__((noinline, disable_tail_calls)) char *inline_header(void) {
  char *p = malloc(96);
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *detached(void) {
  char *p = malloc(64);
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *over_aligned(void) {
  char *p = aligned_alloc(256, 256);
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *large(void) {
  char *p = malloc(65536);
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *mapped(void) {
  char *p = malloc(4 << 20);
  sink = p;
  return p;
}
static void *make(void *arg) {
  (void)arg;
  return inline_header();
}
int main(void) {
  char stack[64];
  memset(stack, 'x', sizeof stack); /* not a block: counted nowhere */
  char *a = inline_header();
  memset(a, 0, 96);               /* 12 accesses */
  strcpy(a, text);                /* 4 more; the literal's 4 reads count nowhere */
  char *b = detached();
  memcpy(b, stack, 64);           /* 8 */
  char *c = over_aligned();
  memset(c, 1, 256);              /* 32 */
  char *d = large();
  memset(d, 2, 65536);            /* 8192 */
  char *e = mapped();
  memset(e, 3, 4 << 20);          /* 524288 */
  pthread_t t;
  void *made = 0;
  pthread_create(&t, 0, make, 0);
  pthread_join(t, &made);
  char *f = made;
  memset(f, 4, 96);               /* 12 */
  int r = strlen(a) == 31 ? 0 : 1; /* 4 more on a */
  free(a), free(b), free(c), free(d), free(e), free(f);
  return r;
}
