// The two pieces of state a sampling branch tracer keeps between samples: the last N taken
// branches (what an LBR holds) and the call stack as calls and returns built it.
#pragma once

#include <cstdint>
#include <vector>

#include "symbolize/insn_kind.h"

namespace profkit::branch_trace {

using symbolize::Insn;
using symbolize::InsnKind;
using symbolize::branch_type_name;
using symbolize::condition_holds;
using symbolize::decode_insn;
using symbolize::is_call;

struct BranchEntry {
  uint64_t from = 0;  // address of the branch instruction
  uint64_t to = 0;    // address executed next
  InsnKind kind = InsnKind::other;
};

// The last `depth` taken branches, like the LBR's ring of from/to registers.
class BranchRing {
 public:
  explicit BranchRing(size_t depth) : slots_(depth) {}

  void push(const BranchEntry& e) {
    if (slots_.empty()) return;
    slots_[next_] = e;
    next_ = (next_ + 1) % slots_.size();
    if (size_ < slots_.size()) ++size_;
  }
  size_t size() const { return size_; }
  // i = 0 is the most recent branch.
  const BranchEntry& newest(size_t i) const {
    return slots_[(next_ + slots_.size() - 1 - i) % slots_.size()];
  }

 private:
  std::vector<BranchEntry> slots_;
  size_t next_ = 0;  // slot the next branch goes to
  size_t size_ = 0;  // filled slots, at most slots_.size()
};

// Return addresses of the calls that have not returned yet, each with the stack slot the
// call stored it in. A frame is live while the stack pointer is at or below its slot, so
// a return, a longjmp or an exception unwinding past frames drops exactly those frames,
// whatever instruction moved the stack pointer.
class ShadowStack {
 public:
  struct Frame {
    uint64_t return_address = 0;
    uint64_t slot = 0;  // stack pointer right after the call
  };

  void on_call(uint64_t return_address, uint64_t sp) {
    drop_dead(sp);
    frames_.push_back({return_address, sp});
  }
  // Frames whose slot lies below `sp` have been popped.
  void drop_dead(uint64_t sp) {
    while (!frames_.empty() && frames_.back().slot < sp) frames_.pop_back();
  }
  const std::vector<Frame>& frames() const { return frames_; }  // outermost first

 private:
  std::vector<Frame> frames_;
};

}  // namespace profkit::branch_trace
