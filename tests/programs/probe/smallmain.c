int entry(int, int (*)(int));
__attribute__((noinline)) int ext(int v) { return v ^ 0x55; }
static int twice(int v) { return v * 2; }
int main(int argc, char **argv) { (void)argv; return entry(argc, twice) & 0x7f; }
