// Static library only: runs the runtime before any ELF constructor of the executable, as
// compiler-rt does (docs/formats/memprof.md A.1 item 3). .preinit_array is not allowed in shared objects.
// glibc calls these with (argc, argv, envp) before libc has set `environ`.
#include "runtime/abi.h"
#include "runtime/base.h"
#include "runtime/globals.h"

static void profkit_memprof_preinit(int, char**, char** envp) {
  profkit::rt::g_start_envp = envp;
  __memprof_preinit();
}

__attribute__((section(".preinit_array"), used)) static void (*profkit_memprof_preinit_entry)(
    int, char**, char**) = profkit_memprof_preinit;
