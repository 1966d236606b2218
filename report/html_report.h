// `profkit report --html`: one self-contained HTML page (inline CSS and script, no network
// access when opened) with the summary, a sortable and searchable table of allocation
// contexts, and an icicle graph of the contexts (outermost frame at the top) weighted by a
// selectable metric; clicking a frame zooms to it and filters the table to the contexts
// through it.
#pragma once

#include <string>

#include "report/frame_filter.h"
#include "report/heap_profile.h"

namespace profkit::report {

// The data the page embeds, as JSON: summary, interned frames and one object per context.
// Every '<' is written as \u003c, so no string can close the <script> element holding it.
// Frames `frames` folds are left out of each context's chain (counted in folded_frames).
std::string html_report_data(const HeapProfile& profile,
                             const FrameFilter& frames = FrameFilter::defaults());

// The whole page.
std::string html_report(const HeapProfile& profile,
                        const FrameFilter& frames = FrameFilter::defaults());

}  // namespace profkit::report
