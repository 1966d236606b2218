// What changed between two heap profiles of the same program (`profkit diff`): contexts are
// matched by their stable id (heap_profile.h context_id), so a rebuilt or rerun program
// matches as long as the lines inside the functions on a chain did not move.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/heap_profile.h"
#include "report/heap_view.h"

namespace profkit::report {

enum class ChangeKind { changed, added, vanished };
std::string_view change_kind_name(ChangeKind kind);  // "changed", "new", "vanished"

struct ContextChange {
  ChangeKind kind = ChangeKind::changed;
  uint64_t id = 0;
  const HeapContext* base = nullptr;  // null for added contexts
  const HeapContext* now = nullptr;   // null for vanished contexts
  int64_t bytes_delta = 0;            // Δ TotalSize
  int64_t count_delta = 0;            // Δ AllocCount
  int64_t accesses_delta = 0;         // Δ TotalAccessCount
  double lifetime_delta_ms = 0;       // Δ average lifetime
  bool verdict_flipped = false;       // both present, verdicts differ
  const HeapContext& any() const { return now != nullptr ? *now : *base; }
};

struct HeapDiff {
  // Ranked by the size of the change: |Δbytes|, then |Δcount|, |Δaccesses|, verdict flips,
  // |Δlifetime|; ties by id.
  std::vector<ContextChange> changes;
  uint64_t changed = 0, added = 0, vanished = 0, flipped = 0;
};

// A matched context counts as changed when its allocation count, bytes or accesses differ,
// its verdict flips, or its average lifetime moves by more than 10% and more than 1 ms
// (lifetimes are timings: they never repeat exactly between runs). Requires: both
// profiles outlive the result.
HeapDiff diff_heap_profiles(const HeapProfile& base, const HeapProfile& now);

std::string render_diff_text(const HeapProfile& base, const HeapProfile& now,
                             const HeapDiff& diff, const ViewOptions& options);
std::string render_diff_json(const HeapProfile& base, const HeapProfile& now,
                             const HeapDiff& diff, const ViewOptions& options);

}  // namespace profkit::report
