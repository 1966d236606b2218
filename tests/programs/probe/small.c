/* small.c: compact example for hand decoding */
extern int ext(int);
static int g(int x) { return ext(x) + 1; }          /* inlined into h: has a direct call */
static int h(int x) { return x > 0 ? g(x) : 0; }    /* inlined into entry */
int entry(int x, int (*fp)(int)) { return h(x) + fp(x); } /* indirect call */
