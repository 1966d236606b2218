// Output that appears whole or not at all: written to a temporary file beside the target,
// flushed, then renamed over it. A failed or abandoned write leaves no partial file.
#pragma once

#include <string>
#include <string_view>

#include "format/bytes/expected.h"

namespace profkit {

class OutputFile {
 public:
  // Creates `path`.tmp.XXXXXX in the target's directory. "-" means standard output
  // (written directly; there is nothing to rename).
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

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool is_stdout_ = false;
  bool committed_ = false;
};

// Writes `data` to `path` atomically. Convenience for small outputs.
Expected<void> write_file_atomically(const std::string& path, std::string_view data);

}  // namespace profkit
