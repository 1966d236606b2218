/* libc string functions on heap memory: their accesses are counted like compiler-rt's
   interceptors count them. */
#include <stdlib.h>
#include <string.h>
char *volatile sink;
const char *volatile text = "a heap string of 31 characters.";
__attribute__((noinline, disable_tail_calls)) char *copy_text(void) {
  char *p = strdup(text);    /* strdup site */
  sink = p;
  return p;
}
__attribute__((noinline, disable_tail_calls)) char *buffer(void) {
  char *p = malloc(64);
  sink = p;
  return p;
}
int main(void) {
  char *s = copy_text();
  size_t n = strlen(s);      /* 32 bytes read: 4 accesses */
  char *b = buffer();
  strcpy(b, s);              /* 32 bytes written into b: 4 accesses */
  int r = (int)n + (strlen(b) == n ? 0 : 1);  /* 4 more on b */
  free(s);
  free(b);
  return r == 31 ? 0 : 1;
}
