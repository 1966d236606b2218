// A log reader: getline over 400 000 generated lines (an in-memory stream), each split with
// strtok_r and its fields strdup'd into a chained hash table of counts; the table freed at
// the end.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct Entry { char* key; long count; struct Entry* next; };
int main(void) {
  const long lines = 400000;
  size_t text_size = 0;
  char* text = NULL;
  FILE* out = open_memstream(&text, &text_size);
  unsigned long x = 0x1234567887654321ul;
  static const char* const words[] = {"GET", "POST", "/index", "/api/v1/items", "200", "404", "500", "user", "admin", "ok"};
  for (long i = 0; i < lines; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    fprintf(out, "%lu %s %s %s%lu\n", x % 100000, words[x % 10], words[(x >> 8) % 10], words[(x >> 16) % 10], (x >> 24) % 500);
  }
  fclose(out);
  enum { kBuckets = 1 << 16 };
  struct Entry** table = calloc(kBuckets, sizeof *table);
  FILE* in = fmemopen(text, text_size, "r");
  char* line = NULL;
  size_t cap = 0;
  long fields = 0, distinct = 0;
  while (getline(&line, &cap, in) > 0) {
    char* save = NULL;
    for (char* tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
      unsigned h = 2166136261u;
      for (const char* c = tok; *c; ++c) h = (h ^ (unsigned char)*c) * 16777619u;
      struct Entry** e = &table[h % kBuckets];
      while (*e && strcmp((*e)->key, tok) != 0) e = &(*e)->next;
      if (!*e) {
        *e = malloc(sizeof **e);
        (*e)->key = strdup(tok);
        (*e)->count = 0;
        (*e)->next = NULL;
        ++distinct;
      }
      ++(*e)->count;
      ++fields;
    }
  }
  fclose(in);
  free(line);
  for (int b = 0; b < kBuckets; ++b)
    for (struct Entry* e = table[b]; e;) { struct Entry* n = e->next; free(e->key); free(e); e = n; }
  free(table);
  free(text);
  printf("%ld %ld\n", fields, distinct);
  return 0;
}
