/* Loads a plugin, allocates through it 1000 times and unloads it, then loads another
 * (usually at the same address: the loader reuses the hole) and allocates through it 1000
 * times, keeping it loaded so that the profile's segments name it. "-" skips the first.
 * Prints where each plugin's entry() was. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    exit(2);
  }
  return h;
}
__attribute__((noinline)) static void use(void *h) {
  void *(*entry)(void) = (void *(*)(void))dlsym(h, "entry");
  fprintf(stderr, "entry at %p\n", (void *)entry);
  for (int i = 0; i < 1000; i++) free(entry());
}
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  if (argv[1][0] != '-') {
    void *h = load(argv[1]);
    use(h);
    if (dlclose(h) != 0) return 3;
  }
  use(load(argv[2]));
  return 0;
}
