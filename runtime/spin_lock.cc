// The spin lock's slow path: spin a little with pause, then yield.
#include "runtime/spin_lock.h"

#include <sched.h>

namespace profkit::rt {

void SpinLock::lock_slow() {
  for (int spins = 0;; ++spins) {
    if (state_.load(std::memory_order_relaxed) == 0 &&
        !state_.exchange(1, std::memory_order_acquire))
      return;
    if (spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}

}  // namespace profkit::rt
