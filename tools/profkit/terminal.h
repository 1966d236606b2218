// Terminal facts for the human-facing commands (report, diff): width, whether to colour,
// and a progress bar on stderr that draws only when stderr is a terminal.
#pragma once

#include <cstdint>
#include <string>

namespace profkit::cli {

enum class ColorMode { automatic, always, never };

// Parses "auto|always|never".
bool parse_color_mode(const std::string& text, ColorMode& mode);
// Colour on stdout: always/never, or auto = stdout is a terminal and NO_COLOR is unset.
bool use_color(ColorMode mode);
// Columns for stdout: `requested` if > 0, else $COLUMNS, else the terminal's width, else 100
// (output to a file or pipe is read in editors and logs, where 80 cuts paths needlessly).
int output_width(int requested);

// A one-line progress bar on stderr, redrawn at most every 1% (a no-op off a terminal).
class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // clears the line
  void update(uint64_t done, uint64_t total);

 private:
  std::string label_;
  bool enabled_;
  int last_percent_ = -1;
  bool drawn_ = false;
};

}  // namespace profkit::cli
