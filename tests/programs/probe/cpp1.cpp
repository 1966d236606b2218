#include "hdr.h"
int cpp2(int);
__attribute__((noinline)) int cpp1(int x) { return shared_inl(x) + 1; }
int main(int argc, char **) { return (cpp1(argc) + cpp2(argc)) & 0xff; }
