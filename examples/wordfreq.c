/* wordfreq: counts the words of a text and prints the most frequent ones.
 *
 * The example program of `make demo`: small, but with the shapes PGO cares about: a
 * character classifier (switch), a hash table with collisions (loops, branches), qsort with
 * a comparator chosen at run time (indirect calls), and a per-word normalizer picked from a
 * table by command-line option (more indirect calls).
 *
 * usage: wordfreq [-n TOP] [-m lower|upper|stem] [-s count|alpha|length] FILE...
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum char_class { CC_LETTER, CC_DIGIT, CC_APOSTROPHE, CC_HYPHEN, CC_SPACE, CC_OTHER };

static enum char_class classify(int c) {
  switch (c) {
  case '\'':
    return CC_APOSTROPHE;
  case '-':
    return CC_HYPHEN;
  case ' ': case '\t': case '\n': case '\r':
    return CC_SPACE;
  default:
    if (isalpha(c)) return CC_LETTER;
    if (isdigit(c)) return CC_DIGIT;
    return CC_OTHER;
  }
}

struct entry {
  char *word;
  long count;
  struct entry *next;
};

#define BUCKETS 1024
static struct entry *table[BUCKETS];
static size_t distinct;

static unsigned hash_word(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

__attribute__((noinline)) static void add_word(const char *w) {
  unsigned b = hash_word(w) % BUCKETS;
  for (struct entry *e = table[b]; e; e = e->next) {
    if (strcmp(e->word, w) == 0) {
      e->count++;
      return;
    }
  }
  struct entry *e = malloc(sizeof *e);
  size_t len = strlen(w) + 1;
  e->word = malloc(len);
  memcpy(e->word, w, len);
  e->count = 1;
  e->next = table[b];
  table[b] = e;
  distinct++;
}

/* Normalizers: rewrite a word in place. */
static void to_lower(char *w) { for (; *w; w++) *w = (char)tolower((unsigned char)*w); }
static void to_upper(char *w) { for (; *w; w++) *w = (char)toupper((unsigned char)*w); }
static void stem(char *w) {
  to_lower(w);
  size_t n = strlen(w);
  if (n > 4 && strcmp(w + n - 3, "ing") == 0)
    w[n - 3] = 0;
  else if (n > 3 && strcmp(w + n - 2, "ed") == 0)
    w[n - 2] = 0;
  else if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
    w[n - 1] = 0;
}

struct named_fn {
  const char *name;
  void (*fn)(char *);
};
static const struct named_fn normalizers[] = {{"lower", to_lower}, {"upper", to_upper}, {"stem", stem}};

/* Orders for the report. */
static int by_count(const void *a, const void *b) {
  const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return strcmp(x->word, y->word);
}
static int by_alpha(const void *a, const void *b) {
  return strcmp((*(const struct entry *const *)a)->word, (*(const struct entry *const *)b)->word);
}
static int by_length(const void *a, const void *b) {
  size_t x = strlen((*(const struct entry *const *)a)->word);
  size_t y = strlen((*(const struct entry *const *)b)->word);
  if (x != y) return x < y ? 1 : -1;
  return by_count(a, b);
}

__attribute__((noinline)) static long count_file(FILE *f, void (*normalize)(char *)) {
  char word[64];
  size_t len = 0;
  long words = 0;
  for (int c;;) {
    c = getc(f);
    enum char_class cc = c == EOF ? CC_SPACE : classify(c);
    if (cc == CC_LETTER || cc == CC_DIGIT || ((cc == CC_APOSTROPHE || cc == CC_HYPHEN) && len > 0)) {
      if (len + 1 < sizeof word) word[len++] = (char)c;
    } else if (len > 0) {
      while (len > 0 && (word[len - 1] == '\'' || word[len - 1] == '-')) len--;
      word[len] = 0;
      if (len > 0) {
        normalize(word);
        add_word(word);
        words++;
      }
      len = 0;
    }
    if (c == EOF) break;
  }
  return words;
}

int main(int argc, char **argv) {
  long top = 10;
  void (*normalize)(char *) = to_lower;
  int (*order)(const void *, const void *) = by_count;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i += 2) {
    if (i + 1 >= argc) {
      fprintf(stderr, "wordfreq: option %s needs a value\n", argv[i]);
      return 2;
    }
    const char *v = argv[i + 1];
    if (strcmp(argv[i], "-n") == 0) {
      top = atol(v);
    } else if (strcmp(argv[i], "-m") == 0) {
      size_t k = 0;
      while (k < sizeof normalizers / sizeof *normalizers && strcmp(normalizers[k].name, v) != 0) k++;
      if (k == sizeof normalizers / sizeof *normalizers) {
        fprintf(stderr, "wordfreq: unknown mode %s\n", v);
        return 2;
      }
      normalize = normalizers[k].fn;
    } else if (strcmp(argv[i], "-s") == 0) {
      order = strcmp(v, "alpha") == 0 ? by_alpha : strcmp(v, "length") == 0 ? by_length : by_count;
    } else {
      fprintf(stderr, "wordfreq: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  long words = 0;
  for (; i < argc; i++) {
    FILE *f = fopen(argv[i], "r");
    if (!f) {
      perror(argv[i]);
      return 1;
    }
    words += count_file(f, normalize);
    fclose(f);
  }
  struct entry **all = malloc((distinct ? distinct : 1) * sizeof *all);
  size_t n = 0;
  for (size_t b = 0; b < BUCKETS; b++)
    for (struct entry *e = table[b]; e; e = e->next) all[n++] = e;
  qsort(all, n, sizeof *all, order);
  printf("%ld words, %zu distinct\n", words, distinct);
  for (size_t k = 0; k < n && (long)k < top; k++) printf("%7ld  %s\n", all[k]->count, all[k]->word);
  return 0;
}
