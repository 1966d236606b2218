#include "hdr.h"
__attribute__((noinline)) int cpp2(int x) { return shared_inl(x + 3) - 1; }
