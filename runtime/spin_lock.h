// The runtime's lock types: a spin lock, and the owner lock of a thread state.
#pragma once

#include <atomic>

#include "runtime/base.h"

namespace profkit::rt {

// The runtime's lock for shared slow paths (the thread registry, the arena, spans, dumps):
// never on a thread's own fast path. Waiters spin a little, then sleep on a futex: a lock
// that yielded instead made thousands of threads starting at once (a thread-per-connection
// server) queue behind a holder the scheduler had put off, 64% of their time in
// sched_yield. States: 0 free, 1 held, 2 held with sleepers (the unlock wakes one).
class SpinLock {
 public:
  void lock() {
    int expected = 0;
    if (PROFKIT_RT_LIKELY(state_.compare_exchange_strong(expected, 1, std::memory_order_acquire)))
      return;
    lock_slow();
  }
  // For work another thread may do instead (a peak snapshot): never waits.
  bool try_lock() {
    int expected = 0;
    return state_.load(std::memory_order_relaxed) == 0 &&
           state_.compare_exchange_strong(expected, 1, std::memory_order_acquire);
  }
  void unlock() {
    if (PROFKIT_RT_UNLIKELY(state_.exchange(0, std::memory_order_release) == 2)) wake();
  }
  void reset() { state_.store(0, std::memory_order_relaxed); }
  // After fork (the lock taken in the prepare handler): the child, alone now, starts it
  // free; the parent releases it.
  void unlock_after_fork(bool child) {
    if (child)
      reset();
    else
      unlock();
  }

 private:
  PROFKIT_RT_NOINLINE void lock_slow();
  PROFKIT_RT_NOINLINE void wake();
  std::atomic<int> state_{0};
};

// True once this process is registered for membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
// OwnerLock's fast path relies on it (init: owner_lock_init, again in a fork child).
extern bool g_owner_lock_asymmetric;
void owner_lock_init();

// A thread state's lock: taken on every allocation and free by the thread that owns the
// state, and by other threads only for a dump or a fork. The owner's side is a plain store
// and a load (no locked instruction: the xchg of a SpinLock drained the store buffer and
// was a third of allocate_small's time); the rare other side pays for both with a
// membarrier system call, which runs a full barrier on every CPU running this process's
// threads (Dekker's algorithm with the owner's fence moved to the other side). Without
// membarrier (an old kernel, a seccomp filter) the owner's store is an xchg instead.
class OwnerLock {
 public:
  // By the state's owner thread only.
  void lock() {
    enter();
    if (PROFKIT_RT_UNLIKELY(request_.load(std::memory_order_acquire) != 0)) lock_slow();
  }
  void unlock() { held_.store(0, std::memory_order_release); }
  // By any thread (a dump, fork): waits for the owner to leave its critical section; the
  // owner then waits in lock() until unlock_other.
  void lock_other();
  void unlock_other() { request_.store(0, std::memory_order_release); }
  void reset() {
    held_.store(0, std::memory_order_relaxed);
    request_.store(0, std::memory_order_relaxed);
  }

 private:
  // Marks the owner inside, ordered before its next load of request_.
  void enter() {
    if (PROFKIT_RT_LIKELY(g_owner_lock_asymmetric)) {
      held_.store(1, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the fence is the other side's
    } else {
      held_.exchange(1, std::memory_order_seq_cst);
    }
  }
  PROFKIT_RT_NOINLINE void lock_slow();
  std::atomic<int> held_{0};     // the owner is inside (written by the owner only)
  std::atomic<int> request_{0};  // another thread holds or wants the lock
};

}  // namespace profkit::rt
