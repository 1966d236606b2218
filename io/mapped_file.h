// Read-only input files, memory-mapped (or read, for pipes and empty files).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "format/bytes/cursor.h"

namespace profkit {

class MappedFile {
 public:
  // Opens `path` ("-" is not special here: the CLI decides what "-" means).
  static Expected<MappedFile> open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  Bytes bytes() const { return Bytes(data_, size_); }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  void release();

  std::string path_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  bool mapped_ = false;          // true: munmap; false: data_ points into buffer_
  std::unique_ptr<uint8_t[]> buffer_;
};

}  // namespace profkit
