/* A plugin for plugin_host.c, built twice with -fomit-frame-pointer and two frame sizes
 * (-DFRAME=4096, 8192): the same code at the same addresses, with the same return
 * address in entry() under two different frame rules (CFA = rsp + FRAME + 16). */
#include <stdlib.h>

void *volatile sink;
__attribute__((noinline)) static void *g(char *buf) {
  sink = buf;
  void *p = malloc(24);
  sink = p;
  return p;
}
__attribute__((noinline)) void *entry(void) {
  char buf[FRAME];
  buf[0] = 1;
  void *p = g(buf);
  sink = buf;
  return p;
}
