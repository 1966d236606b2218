// Options and loading shared by the heap-report commands (`profkit report`, `profkit diff`):
// --profiled-binary, the clang -memprof-* thresholds, --color and --width.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "report/frame_filter.h"
#include "report/heap_profile.h"
#include "tools/profkit/terminal.h"

namespace profkit::cli {

struct HeapCliOptions {
  std::vector<std::string> profiled_binaries;  // --profiled-binary (repeatable; dirs too)
  memprof::ClassifyOptions thresholds;         // LLVM 22's defaults unless given
  std::string color = "auto";                  // --color=auto|always|never
  int width = 0;                               // --width (0: terminal, $COLUMNS or 100)
  std::string hide_frames;                     // --hide-frames=REGEX (empty: the default list)
  bool show_all_frames = false;                // --show-all-frames: fold nothing
};

// Adds the shared options to `sub`, with clang's spellings (-memprof- prefix) accepted too.
void add_heap_options(CLI::App* sub, HeapCliOptions& options);

// Loads `path` with a progress bar on a terminal. Prints `FILE:OFFSET: error: ...` and
// returns false on failure.
bool load_heap(const std::string& path, const HeapCliOptions& options,
               report::HeapProfile& profile);
// Loads every profile of `paths` and merges them into one (report::merge_heap_profiles);
// one path is load_heap.
bool load_heaps(const std::vector<std::string>& paths, const HeapCliOptions& options,
                report::HeapProfile& profile);

// Resolves --hide-frames / --show-all-frames; prints an error and returns false for a bad
// regex or both options.
bool resolve_frame_filter(const HeapCliOptions& options, report::FrameFilter& filter);

// Resolves --color; prints an error and returns false for an unknown value.
bool resolve_color(const HeapCliOptions& options, bool& color);

}  // namespace profkit::cli
