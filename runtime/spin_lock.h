// The runtime's one lock type.
#pragma once

#include <atomic>

#include "runtime/base.h"

namespace profkit::rt {

// A test-and-test-and-set spinlock that yields after a short spin. Only ever contended by
// a cross-thread free or a dump, never on a thread's own fast path.
class SpinLock {
 public:
  void lock() {
    if (PROFKIT_RT_LIKELY(!state_.exchange(1, std::memory_order_acquire))) return;
    lock_slow();
  }
  // For work another thread may do instead (a peak snapshot): never waits.
  bool try_lock() {
    return state_.load(std::memory_order_relaxed) == 0 &&
           !state_.exchange(1, std::memory_order_acquire);
  }
  void unlock() { state_.store(0, std::memory_order_release); }
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
  std::atomic<int> state_{0};
};

}  // namespace profkit::rt
