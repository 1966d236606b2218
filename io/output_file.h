// Output that appears whole or not at all: written to a temporary file beside the target,
// flushed, then renamed over it. A failed or abandoned write leaves no partial file.
#pragma once

#include <string>
#include <string_view>

#include "format/bytes/expected.h"

namespace profkit {

// True for the path that means standard output: "-", or no path at all. The one place that
// decides it; commands and writers ask here.
inline bool is_stdout_path(std::string_view path) { return path.empty() || path == "-"; }

class OutputFile {
 public:
  // Creates TARGET.tmp.XXXXXX in the target's directory, TARGET being `path` with its
  // symlinks followed (a link given as output stays a link; the file it names is replaced).
  // "-" means standard output, and an existing target that is not a regular file
  // (/dev/null, a FIFO, a terminal, a link to one or to /proc/self/fd/1) is opened and
  // written directly: renaming over it would replace the device with a regular file.
  static Expected<OutputFile> create(const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();  // removes the temporary file unless commit() succeeded

  Expected<void> write(std::string_view data);
  // Flushes, fsyncs nothing (speed; rename is atomic for readers), renames into place.
  Expected<void> commit();
  const std::string& path() const { return path_; }

 private:
  OutputFile() = default;

  std::string path_;         // as given (messages)
  std::string target_path_;  // path_ with its symlinks followed: what the rename replaces
  std::string temp_path_;
  int fd_ = -1;
  bool is_stdout_ = false;
  bool direct_ = false;  // a device or FIFO written in place (no temporary file)
  bool committed_ = false;
};

// Writes `data` to `path` atomically. Convenience for small outputs.
Expected<void> write_file_atomically(const std::string& path, std::string_view data);

}  // namespace profkit
