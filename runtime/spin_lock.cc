// The spin lock's slow path (spin a little with pause, then sleep on a futex) and the owner
// lock's other side.
#include "runtime/spin_lock.h"

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace profkit::rt {

namespace {
// One step of waiting for another thread: spin a little with pause, then yield.
void wait_step(int spins) {
  if (spins < 64)
    __builtin_ia32_pause();
  else
    sched_yield();
}

long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }
}  // namespace

void SpinLock::lock_slow() {
  for (int spins = 0; spins < 64; ++spins) {
    int expected = 0;
    if (state_.load(std::memory_order_relaxed) == 0 &&
        state_.compare_exchange_strong(expected, 1, std::memory_order_acquire))
      return;
    __builtin_ia32_pause();
  }
  // Held as 2 from here on, so its unlock wakes a sleeper.
  while (state_.exchange(2, std::memory_order_acquire) != 0)
    syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
}

void SpinLock::wake() {
  syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

bool g_owner_lock_asymmetric = false;

void owner_lock_init() {
  g_owner_lock_asymmetric = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void OwnerLock::lock_slow() {
  for (;;) {
    held_.store(0, std::memory_order_release);
    for (int spins = 0; request_.load(std::memory_order_acquire) != 0; ++spins) wait_step(spins);
    enter();
    if (request_.load(std::memory_order_acquire) == 0) return;
  }
}

void OwnerLock::lock_other() {
  for (int spins = 0; request_.exchange(1, std::memory_order_seq_cst) != 0; ++spins)
    wait_step(spins);
  // After the barrier, an owner that had not yet seen the request has its `held_` store
  // visible here; one that loads the request later sees it.
  if (g_owner_lock_asymmetric && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);  // lost (never seen): register again
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  }
  for (int spins = 0; held_.load(std::memory_order_acquire) != 0; ++spins) wait_step(spins);
}

}  // namespace profkit::rt
