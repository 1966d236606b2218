// Source-level frames and call stacks of the MemProf model: their function GUIDs, their
// content-hash ids, and the table of distinct frames and stacks that records refer to
// (docs/formats/memprof.md C.3, C.9, D.4).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "format/bytes/flat_map.h"

namespace profkit::memprof {

// One source-level frame (C.3). Serialized as u64, u32, u32, u8 (17 bytes).
struct Frame {
  uint64_t function = 0;     // GUID of the canonical linkage name
  uint32_t line_offset = 0;  // line - DW_AT_decl_line, u32 wrap-around
  uint32_t column = 0;
  bool is_inline = false;
  friend bool operator==(const Frame&, const Frame&) = default;
};
using CallStack = std::vector<Frame>;  // leaf first

// Canonical function name (D.4): strips ".llvm." and ".part." suffixes, keeps ".__uniq.".
std::string_view canonical_function_name(std::string_view name);
// GUID = low 64 bits of MD5(canonical name).
uint64_t function_guid(std::string_view name);

// BLAKE3 content hashes, truncated to 64 bits (C.3).
uint64_t frame_id(const Frame& frame);
uint64_t call_stack_id(std::span<const Frame> frames);
// The same id from already computed frame ids (leaf first).
uint64_t call_stack_id_from_frame_ids(std::span<const uint64_t> frame_ids);

// Distinct frames and call stacks, in first-insertion order, keyed as llvm-profdata keys
// its Frames and CallStacks maps (C.9): by FrameId and by CallStackId, so a second frame or
// stack with an id already present maps to the first one. Sites refer to stacks by index:
// a context costs 4 bytes per frame, once, instead of a 24-byte Frame per frame per site,
// and the indexed writer uses these tables as they are (the insertion order of stacks is
// what decides the v2 call-stack table's chain order; of frames, the v2 frame table's).
class StackTable {
 public:
  // A stack's frames, leaf first, as a range of `const Frame&`.
  class View {
   public:
    class iterator {
     public:
      using value_type = Frame;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      iterator(const uint32_t* at, const Frame* frames) : at_(at), frames_(frames) {}
      const Frame& operator*() const { return frames_[*at_]; }
      const Frame* operator->() const { return &frames_[*at_]; }
      iterator& operator++() {
        ++at_;
        return *this;
      }
      iterator operator++(int) {
        iterator old = *this;
        ++at_;
        return old;
      }
      friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }

     private:
      const uint32_t* at_ = nullptr;
      const Frame* frames_ = nullptr;
    };
    View(std::span<const uint32_t> indices, const Frame* frames)
        : indices_(indices), frames_(frames) {}
    size_t size() const { return indices_.size(); }
    bool empty() const { return indices_.empty(); }
    const Frame& operator[](size_t i) const { return frames_[indices_[i]]; }
    const Frame& front() const { return frames_[indices_.front()]; }
    iterator begin() const { return {indices_.data(), frames_}; }
    iterator end() const { return {indices_.data() + indices_.size(), frames_}; }
    CallStack to_vector() const { return CallStack(begin(), end()); }

   private:
    std::span<const uint32_t> indices_;
    const Frame* frames_;
  };

  // Interns a frame; returns its dense index. `id` must be frame_id(frame).
  uint32_t add_frame(const Frame& frame);
  uint32_t add_frame(const Frame& frame, uint64_t id);
  // Interns a stack given as frame indices (leaf first); returns its dense index.
  uint32_t add_stack(std::span<const uint32_t> frame_indices);
  uint32_t add_stack(std::span<const Frame> frames);

  size_t num_frames() const { return frames_.size(); }
  size_t num_stacks() const { return stack_ids_.size(); }
  size_t num_stack_frames() const { return pool_.size(); }  // total over all stacks
  const Frame& frame(uint32_t f) const { return frames_[f]; }
  uint64_t frame_id(uint32_t f) const { return frame_ids_[f]; }
  uint64_t stack_id(uint32_t s) const { return stack_ids_[s]; }
  // Offset of stack s's first frame index in the concatenation of all stacks.
  uint64_t stack_begin(uint32_t s) const { return stack_begin_[s]; }
  std::span<const uint32_t> frame_indices(uint32_t s) const {
    return {pool_.data() + stack_begin_[s], pool_.data() + stack_begin_[s + 1]};
  }
  View stack(uint32_t s) const { return View(frame_indices(s), frames_.data()); }

  // Room for `stacks` more stacks of `frames` frames in all.
  void reserve(size_t stacks, size_t frames);
  // Frees the lookup maps once every stack is in (the next add rebuilds them).
  void drop_lookup();

 private:
  void rebuild_lookup();

  std::vector<Frame> frames_;                // dense frame index -> frame
  std::vector<uint64_t> frame_ids_;          // dense frame index -> FrameId
  FlatMap64 frame_by_id_;
  std::vector<uint32_t> pool_;               // frame indices of every stack, concatenated
  std::vector<uint64_t> stack_begin_{0};     // stack s is pool_[begin[s], begin[s + 1])
  std::vector<uint64_t> stack_ids_;          // dense stack index -> CallStackId
  FlatMap64 stack_by_id_;
  bool lookup_dropped_ = false;
  std::vector<uint64_t> scratch_ids_;
};

// Appends a frame's 17 serialized bytes (16 without the inline flag), as the ids hash them.
void append_frame_bytes(std::vector<uint8_t>& out, const Frame& frame, bool with_inline);

}  // namespace profkit::memprof
