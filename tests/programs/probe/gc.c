/* gc.c: an unused function to be garbage-collected with --gc-sections */
__attribute__((noinline)) int unused_fn(int x) { return x * 13 + 1; }
__attribute__((noinline)) int used_fn(int x) { return x * 7 + 3; }
int main(int argc, char **argv) { (void)argv; return used_fn(argc); }
