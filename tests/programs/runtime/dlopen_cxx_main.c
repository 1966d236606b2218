/* A C program (no libstdc++ of its own) that loads a C++ plugin with RTLD_LOCAL and has it
 * fail an operator new: prints how many times the plugin's new-handler ran before
 * std::bad_alloc reached it. Usage: dlopen_cxx_main PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 3;
  }
  int (*try_huge)(void) = (int (*)(void))dlsym(lib, "try_huge");
  if (try_huge == NULL) return 4;
  printf("bad_alloc after %d handler calls\n", try_huge());
  return 0;
}
