// Frame and call-stack ids (BLAKE3 of their bytes), function GUIDs, and the stack table.
#include "format/memprof/frames.h"

#include "format/blake3/blake3.h"
#include "format/bytes/cursor.h"
#include "format/bytes/hash.h"

namespace profkit::memprof {

void append_frame_bytes(std::vector<uint8_t>& out, const Frame& f, bool with_inline) {
  uint8_t buf[17];
  store_le<uint64_t>(buf, f.function);
  store_le<uint32_t>(buf + 8, f.line_offset);
  store_le<uint32_t>(buf + 12, f.column);
  buf[16] = f.is_inline ? 1 : 0;
  out.insert(out.end(), buf, buf + (with_inline ? 17 : 16));
}

std::string_view canonical_function_name(std::string_view name) {
  for (std::string_view suffix : {std::string_view(".llvm."), std::string_view(".part.")}) {
    const size_t it = name.rfind(suffix);
    if (it == std::string_view::npos) continue;
    const size_t last_dot = name.rfind('.');
    if (last_dot == it || last_dot == it + suffix.size() - 1) name = name.substr(0, it);
  }
  return name;
}

uint64_t function_guid(std::string_view name) {
  return md5_name_ref(canonical_function_name(name));
}

uint64_t frame_id(const Frame& frame) {
  uint8_t buf[17];
  store_le<uint64_t>(buf, frame.function);
  store_le<uint32_t>(buf + 8, frame.line_offset);
  store_le<uint32_t>(buf + 12, frame.column);
  buf[16] = frame.is_inline ? 1 : 0;
  return blake3::hash64(buf);
}

uint64_t call_stack_id_from_frame_ids(std::span<const uint64_t> frame_ids) {
  uint8_t small[64 * 8];
  std::vector<uint8_t> large;
  uint8_t* bytes = small;
  if (frame_ids.size() > 64) {
    large.resize(frame_ids.size() * 8);
    bytes = large.data();
  }
  for (size_t i = 0; i < frame_ids.size(); ++i) store_le<uint64_t>(bytes + 8 * i, frame_ids[i]);
  return blake3::hash64(std::span<const uint8_t>(bytes, frame_ids.size() * 8));
}

uint64_t call_stack_id(std::span<const Frame> frames) {
  std::vector<uint64_t> ids;
  ids.reserve(frames.size());
  for (const Frame& f : frames) ids.push_back(frame_id(f));
  return call_stack_id_from_frame_ids(ids);
}

uint32_t StackTable::add_frame(const Frame& frame) {
  return add_frame(frame, memprof::frame_id(frame));
}

uint32_t StackTable::add_frame(const Frame& frame, uint64_t id) {
  if (lookup_dropped_) rebuild_lookup();
  const auto fresh = static_cast<uint32_t>(frames_.size());
  const uint32_t index = frame_by_id_.insert(id, fresh);
  if (index == fresh) {
    frames_.push_back(frame);
    frame_ids_.push_back(id);
  }
  return index;
}

uint32_t StackTable::add_stack(std::span<const uint32_t> frame_indices) {
  if (lookup_dropped_) rebuild_lookup();
  scratch_ids_.clear();
  for (uint32_t f : frame_indices) scratch_ids_.push_back(frame_ids_[f]);
  const uint64_t id = call_stack_id_from_frame_ids(scratch_ids_);
  const auto fresh = static_cast<uint32_t>(stack_ids_.size());
  const uint32_t index = stack_by_id_.insert(id, fresh);
  if (index == fresh) {
    pool_.insert(pool_.end(), frame_indices.begin(), frame_indices.end());
    stack_begin_.push_back(pool_.size());
    stack_ids_.push_back(id);
  }
  return index;
}

uint32_t StackTable::add_stack(std::span<const Frame> frames) {
  std::vector<uint32_t> indices;
  indices.reserve(frames.size());
  for (const Frame& f : frames) indices.push_back(add_frame(f));
  return add_stack(indices);
}

void StackTable::reserve(size_t stacks, size_t frames) {
  pool_.reserve(pool_.size() + frames);
  stack_begin_.reserve(stack_begin_.size() + stacks);
  stack_ids_.reserve(stack_ids_.size() + stacks);
  stack_by_id_.reserve(stack_ids_.size() + stacks);
}

void StackTable::drop_lookup() {
  frame_by_id_ = {};
  stack_by_id_ = {};
  std::vector<uint64_t>().swap(scratch_ids_);
  lookup_dropped_ = true;
}

void StackTable::rebuild_lookup() {
  lookup_dropped_ = false;
  frame_by_id_.reserve(frame_ids_.size());
  for (size_t f = 0; f < frame_ids_.size(); ++f)
    frame_by_id_.insert(frame_ids_[f], static_cast<uint32_t>(f));
  stack_by_id_.reserve(stack_ids_.size());
  for (size_t s = 0; s < stack_ids_.size(); ++s)
    stack_by_id_.insert(stack_ids_[s], static_cast<uint32_t>(s));
}

}  // namespace profkit::memprof
