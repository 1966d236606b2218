// Read-only input files, memory-mapped (or read, for pipes and empty files).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "format/bytes/cursor.h"

namespace profkit {

class MappedFile {
 public:
  // Inputs that cannot be mapped (pipes, FIFOs, devices such as /dev/zero) are read into
  // memory up to this size, then refused: memory stays bounded and endless inputs end.
  static constexpr uint64_t kMaxStreamedInput = uint64_t{256} << 20;
  // The error for an input that went past kMaxStreamedInput.
  static Unexpected stream_limit_error();
  // Regular files up to this size are made resident at once for Access::whole.
  static constexpr uint64_t kMaxPopulate = uint64_t{256} << 20;

  // How the caller will read the file.
  enum class Access {
    some,   // parts of it (an ELF binary): pages are mapped as they are touched
    whole,  // all of it, once (a profile): mapped up front (MAP_POPULATE), sparing a page
            // fault per 4 KiB, which is most of the cost of reading a file on a VM
  };
  // Opens `path` ("-" is not special here: the CLI decides what "-" means).
  static Expected<MappedFile> open(const std::string& path, Access access = Access::some);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  Bytes bytes() const { return Bytes(data_, size_); }
  // Drops the whole pages inside [offset, offset + size) from the resident set (a reader
  // done with them lowers the peak memory of a large input); touching them again reads
  // the file again. No-op for files that were read rather than mapped.
  void drop_pages(uint64_t offset, uint64_t size) const;
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
