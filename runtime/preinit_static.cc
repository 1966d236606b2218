// Static library only: runs the runtime before any ELF constructor of the executable, as
// compiler-rt does (spec A.1 item 3). .preinit_array is not allowed in shared objects.
#include "runtime/abi.h"

__attribute__((section(".preinit_array"), used)) static void (*profkit_memprof_preinit)(void) =
    __memprof_preinit;
