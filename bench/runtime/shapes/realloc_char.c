// A naive C string builder: 20 000 strings of 1-3 000 bytes, each grown by realloc one byte
// at a time (as code appending a character to a malloc'd string does), plus a dynamic array
// of pointers doubled by realloc; every string freed at the end of its round.
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  unsigned long x = 88172645463325252ul, sum = 0;
  for (int round = 0; round < 10; ++round) {
    size_t cap = 1, count = 0;
    char** all = malloc(cap * sizeof *all);
    for (int s = 0; s < 2000; ++s) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const size_t len = 1 + x % 3000;
      char* str = NULL;
      for (size_t i = 0; i < len; ++i) {
        str = realloc(str, i + 2);
        str[i] = (char)('a' + i % 26);
        str[i + 1] = 0;
      }
      if (count == cap) all = realloc(all, (cap *= 2) * sizeof *all);
      all[count++] = str;
    }
    for (size_t i = 0; i < count; ++i) { sum += (unsigned char)all[i][0]; free(all[i]); }
    free(all);
  }
  printf("%lu\n", sum);
  return 0;
}
