// Terminal and JSON views of a heap profile (`profkit report`): a summary with what LLVM 22
// would hint, then the top contexts ranked by a metric, each with its symbolized chain,
// metrics and verdict. Also the small formatting helpers the diff view shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "report/frame_filter.h"
#include "report/heap_profile.h"

namespace profkit::report {

// contexts: every context ranked by `sort`; leaks: those with bytes live at exit, by live
// bytes; peak: those with bytes live at the heap's peak, by those bytes (both need
// HeapProfile::live_peak, which only profkit's runtime writes).
enum class HeapViewKind { contexts, leaks, peak };
bool parse_view_kind(std::string_view text, HeapViewKind& kind);

struct ViewOptions {
  HeapViewKind view = HeapViewKind::contexts;
  SortKey sort = SortKey::bytes;
  size_t top = 10;             // contexts shown; 0 = all
  int width = 80;              // terminal columns the text must fit
  bool color = false;          // ANSI colours (only when the output is a terminal)
  memprof::ClassifyOptions thresholds;  // what the verdicts were computed with (for headers)
  FrameFilter frames = FrameFilter::defaults();  // runs of frames folded into one line
};

std::string_view sort_key_name(SortKey key);

// Empty when `profile` has what the view and sort need; otherwise the one line saying what
// is missing and which runtime writes it.
std::string live_peak_missing(const HeapProfile& profile, const ViewOptions& options);

// Human text, every line at most `width` columns (colour escapes not counted).
std::string render_report_text(const HeapProfile& profile, const ViewOptions& options);
// The same data as JSON (one object, pretty-printed, ends with a newline), handed to `emit`
// a context at a time: a whole profile's document at once took eight times its text (a
// 96 MB raw profile: 2 GB of JSON, 16 GB of memory).
void render_report_json(const HeapProfile& profile, const ViewOptions& options,
                        const std::function<void(std::string_view)>& emit);
std::string render_report_json(const HeapProfile& profile, const ViewOptions& options);

// "1.5 MiB", "980 B".
std::string human_bytes(double bytes);
// "1,234,567".
std::string grouped(uint64_t value);
std::string hex_id(uint64_t id);
// "(inlined) " + the function's short name (short_function_name) for inlined frames, else
// the short name.
std::string frame_name(const HeapFrame& frame);
// One frame as "function  file:line:column" in `width` columns, the function padded or cut
// to `name_column` (0: half the width); long paths keep their last component.
std::string frame_line(const HeapFrame& frame, int width, int name_column = 0);
// A context's chain as text lines indented by `indent`, runs of folded frames as one line
// ("... 4 allocator/library frames folded"), in `width` columns.
std::string chain_lines(const std::vector<HeapFrame>& frames, const FrameFilter& filter,
                        int width, const std::string& indent);

}  // namespace profkit::report
