/* A coroutine (makecontext/swapcontext, on a malloc'd 256 KiB stack) that allocates and
 * frees 2 M small blocks two frames below its entry, yielding to main every 1,024: the
 * shape of a server or interpreter running its work on fiber stacks (docs/runtime.md,
 * "Coroutine and fiber stacks"). Built and compared as the run.sh workloads are:
 *   clang-22 -O2 -g -fno-omit-frame-pointer [-fmemory-profile] coroutine.c ...
 * then plain / compiler-rt / profkit runs (compiler-rt records none of the coroutine's
 * allocations: its walk stops at the thread's stack bounds). */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

enum { kBlocks = 2000000, kYieldEvery = 1024 };
static ucontext_t main_context, coroutine_context;
static void *volatile sink;
static volatile int finished;

__attribute__((noinline)) static void leaf_alloc(int i) {
  sink = malloc(32 + (size_t)(i & 7));
  free(sink);
}
__attribute__((noinline)) static void mid(int i) { leaf_alloc(i); }
static void coroutine(void) {
  for (int i = 0; i < kBlocks; ++i) {
    mid(i);
    if (i % kYieldEvery == 0) swapcontext(&coroutine_context, &main_context);
  }
  finished = 1;  /* returns to main_context through uc_link */
}

int main(void) {
  const size_t size = 256 * 1024;
  char *stack = malloc(size);
  if (stack == NULL) return 1;
  getcontext(&coroutine_context);
  coroutine_context.uc_stack.ss_sp = stack;
  coroutine_context.uc_stack.ss_size = size;
  coroutine_context.uc_link = &main_context;
  makecontext(&coroutine_context, coroutine, 0);
  int switches = 0;
  while (!finished) {
    swapcontext(&main_context, &coroutine_context);
    ++switches;
    mid(switches);
  }
  printf("%d switches\n", switches);
  free(stack);
  return 0;
}
