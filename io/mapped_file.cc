// mmap-backed input; falls back to read(2) for non-regular files.
#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace profkit {

namespace {
Unexpected os_error(const std::string& what) {
  return make_error(ErrorCode::io, kNoOffset, what + ": " + std::strerror(errno));
}
}  // namespace

Unexpected MappedFile::stream_limit_error() {
  return make_error(ErrorCode::io, kMaxStreamedInput,
                    "read " + std::to_string(kMaxStreamedInput >> 20) +
                        " MiB from a pipe or device without reaching its end: expected a "
                        "profile (copy larger inputs to a regular file, which is mapped)");
}

Expected<MappedFile> MappedFile::open(const std::string& path, Access access) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open for reading");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    auto e = os_error("cannot stat");
    ::close(fd);
    return e;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::io, kNoOffset, "expected a file but found a directory");
  }
  MappedFile file;
  file.path_ = path;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    // Populating up front saves page faults, but not for huge files: a profile padded to
    // gigabytes would be made resident whole although readers stop at its first error.
    const int populate =
        access == Access::whole && static_cast<uint64_t>(st.st_size) <= kMaxPopulate ? MAP_POPULATE : 0;
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | populate,
                   fd, 0);
    if (p == MAP_FAILED) {
      auto e = os_error("cannot map");
      ::close(fd);
      return e;
    }
    ::close(fd);
    madvise(p, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
    file.data_ = static_cast<const uint8_t*>(p);
    file.size_ = static_cast<uint64_t>(st.st_size);
    file.mapped_ = true;
    return file;
  }
  std::vector<uint8_t> data;
  uint8_t chunk[65536];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto e = os_error("cannot read");
      ::close(fd);
      return e;
    }
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > kMaxStreamedInput) {
      ::close(fd);
      return stream_limit_error();
    }
    data.insert(data.end(), chunk, chunk + n);
  }
  ::close(fd);
  file.buffer_ = std::make_unique<uint8_t[]>(data.size() + 1);
  if (!data.empty()) std::memcpy(file.buffer_.get(), data.data(), data.size());
  file.data_ = file.buffer_.get();
  file.size_ = data.size();
  return file;
}

void MappedFile::drop_pages(uint64_t offset, uint64_t size) const {
  if (!mapped_ || offset >= size_) return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t begin = (offset + page - 1) / page * page;
  const uint64_t end = std::min(offset + size, size_) / page * page;
  // The mapping is private and read-only: MADV_DONTNEED only forgets pages, which are
  // read from the file again if touched.
  if (begin < end) madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = other.data_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    buffer_ = std::move(other.buffer_);
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (mapped_ && data_) munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  buffer_.reset();
}

}  // namespace profkit
