// Pointer chasing: a linked list of 2 million 24-byte nodes, each inserted at the head or
// right after one of 64 recently made nodes, then traversed 30 times. The list's order is
// the allocation order perturbed within about a thousand nodes, so how many nodes share a
// cache line (glibc: two per 64-byte line; both runtimes' 64-byte granules: one) decides
// whether a traversal's working window fits the L1 cache.
#include <stdio.h>
#include <stdlib.h>

struct node {
  struct node* next;
  long value;
  long pad;
};

static unsigned s = 7;
static unsigned rnd(unsigned b) {
  s = s * 1103515245u + 12345u;
  return (s >> 8) % b;
}

int main(void) {
  struct node* head = NULL;
  struct node* recent[64] = {0};
  for (int i = 0; i < 2000000; i++) {
    struct node* n = malloc(sizeof *n);
    if (n == NULL) return 1;
    n->value = i;
    struct node* after = recent[rnd(64)];
    if (after && rnd(2)) {
      n->next = after->next;
      after->next = n;
    } else {
      n->next = head;
      head = n;
    }
    recent[rnd(64)] = n;
  }
  long sum = 0;
  for (int r = 0; r < 30; r++)
    for (struct node* p = head; p; p = p->next) sum += p->value;
  while (head) {
    struct node* n = head->next;
    free(head);
    head = n;
  }
  printf("%ld\n", sum);
  return 0;
}
