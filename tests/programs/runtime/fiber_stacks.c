/* Allocations on stacks that are not a thread's own, as coroutine and fiber libraries make
 * them (makecontext/swapcontext): one fiber on a malloc'd stack, one on an mmap'd stack
 * with a guard page below it, each allocating through a short recursion and yielding to
 * main between allocations; main allocates too. The walk of a fiber's stack ends at the
 * function makecontext returns to, which has no unwind entry for its return address. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

enum { kStack = 64 * 1024, kRounds = 3000 };
static ucontext_t main_context, fiber_context[2];
static void *volatile sink;

__attribute__((noinline, disable_tail_calls)) static void allocate(int fiber, int round) {
  void *p = malloc(16 + (size_t)(round % 5) + 8 * (size_t)fiber);
  sink = p;
  free(p);
}
__attribute__((noinline, disable_tail_calls)) static void descend(int fiber, int round, int depth) {
  if (depth == 0)
    allocate(fiber, round);
  else
    descend(fiber, round, depth - 1);
}
static void fiber_main(int fiber) {
  for (int round = 0; round < kRounds; round++) {
    descend(fiber, round, round % 4);
    swapcontext(&fiber_context[fiber], &main_context);
  }
}

int main(void) {
  void *heap_stack = malloc(kStack);
  char *mapped = mmap(NULL, kStack + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (heap_stack == NULL || mapped == MAP_FAILED || mprotect(mapped, 4096, PROT_NONE) != 0) return 1;
  void *stacks[2] = {heap_stack, mapped + 4096};
  for (int f = 0; f < 2; f++) {
    getcontext(&fiber_context[f]);
    fiber_context[f].uc_stack.ss_sp = stacks[f];
    fiber_context[f].uc_stack.ss_size = kStack;
    fiber_context[f].uc_link = &main_context;
    makecontext(&fiber_context[f], (void (*)(void))fiber_main, 1, f);
  }
  for (int round = 0; round < kRounds; round++) {
    for (int f = 0; f < 2; f++) swapcontext(&main_context, &fiber_context[f]);
    descend(2, round, 1);
  }
  return 0;
}
