/* 4096 allocation sites, each in a function of its own, called in turn 20 times over: more
 * return addresses than a thread's frame-rule cache holds, so each walk meets a rule the
 * cache has dropped since the site's last call. Each site's context is f<its number in
 * base 4, six digits> > main, with 20 allocations of 16 bytes. */
#include <stdlib.h>

void *volatile sink;
#define F(n) \
  __attribute__((noinline, disable_tail_calls)) static void f##n(void) { sink = malloc(16); free(sink); }
#define F4(n) F(n##0) F(n##1) F(n##2) F(n##3)
#define F16(n) F4(n##0) F4(n##1) F4(n##2) F4(n##3)
#define F64(n) F16(n##0) F16(n##1) F16(n##2) F16(n##3)
#define F256(n) F64(n##0) F64(n##1) F64(n##2) F64(n##3)
#define F1024(n) F256(n##0) F256(n##1) F256(n##2) F256(n##3)
F1024(0) F1024(1) F1024(2) F1024(3)

#define T(n) f##n,
#define T4(n) T(n##0) T(n##1) T(n##2) T(n##3)
#define T16(n) T4(n##0) T4(n##1) T4(n##2) T4(n##3)
#define T64(n) T16(n##0) T16(n##1) T16(n##2) T16(n##3)
#define T256(n) T64(n##0) T64(n##1) T64(n##2) T64(n##3)
#define T1024(n) T256(n##0) T256(n##1) T256(n##2) T256(n##3)
static void (*const sites[])(void) = {T1024(0) T1024(1) T1024(2) T1024(3)};

int main(void) {
  for (int round = 0; round < 20; round++)
    for (unsigned i = 0; i < sizeof sites / sizeof sites[0]; i++) sites[i]();
  return 0;
}
