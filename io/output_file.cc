// Temp-file-and-rename output.
#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace profkit {

namespace {
Unexpected os_error(const std::string& what) {
  return make_error(ErrorCode::io, kNoOffset, what + ": " + std::strerror(errno));
}
}  // namespace

// The file a path's last component finally names, its symlinks followed (rename() would
// replace a link itself, not the file it points to). A relative link is resolved from the
// link's directory. The result need not exist (a dangling link names the file to create).
Expected<std::string> follow_symlinks(const std::string& path) {
  std::string at = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    if (hops == 40) {
      errno = ELOOP;
      return os_error("cannot create output");
    }
    // Not st_size: /proc's links (/proc/self/fd/1) report a size unrelated to the target's.
    std::vector<char> buf(4096);
    ssize_t n;
    while ((n = ::readlink(at.c_str(), buf.data(), buf.size())) >= 0 &&
           static_cast<size_t>(n) == buf.size() && buf.size() < (size_t{1} << 20))
      buf.resize(buf.size() * 2);
    if (n < 0) return os_error("cannot create output");
    if (static_cast<size_t>(n) == buf.size()) {
      errno = ENAMETOOLONG;
      return os_error("cannot create output");
    }
    std::string target(buf.data(), static_cast<size_t>(n));
    if (target.empty() || target.front() != '/') {
      const size_t slash = at.rfind('/');
      if (slash != std::string::npos) target = at.substr(0, slash + 1) + target;
    }
    at = std::move(target);
  }
}

Expected<OutputFile> OutputFile::create(const std::string& path) {
  OutputFile out;
  out.path_ = path;
  if (is_stdout_path(path)) {
    out.fd_ = STDOUT_FILENO;
    out.is_stdout_ = true;
    return out;
  }
  // stat() follows links: a link to a device, a FIFO or a pipe (/dev/stdout ->
  // /proc/self/fd/1 -> pipe:[...]) is written in place, as the device itself is.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return os_error("cannot open output");
    out.fd_ = fd;
    out.direct_ = true;
    return out;
  }
  PROFKIT_TRY_ASSIGN(out.target_path_, follow_symlinks(path));
  std::string templ = out.target_path_ + ".tmp.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const int fd = mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) return os_error("cannot create output");
  fchmod(fd, 0644);
  out.fd_ = fd;
  out.temp_path_.assign(buf.data());
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_path_(std::move(other.target_path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(other.fd_),
      is_stdout_(other.is_stdout_),
      direct_(other.direct_),
      committed_(other.committed_) {
  other.fd_ = -1;
  other.temp_path_.clear();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && !is_stdout_) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

Expected<void> OutputFile::write(std::string_view data) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("cannot write output");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return {};
}

Expected<void> OutputFile::commit() {
  if (is_stdout_) {
    committed_ = true;
    return {};
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    return os_error("cannot write output");
  }
  fd_ = -1;
  if (direct_) {
    committed_ = true;
    return {};
  }
  if (::rename(temp_path_.c_str(), target_path_.c_str()) != 0) return os_error("cannot rename output");
  committed_ = true;
  return {};
}

Expected<void> write_file_atomically(const std::string& path, std::string_view data) {
  PROFKIT_TRY_ASSIGN(OutputFile out, OutputFile::create(path));
  PROFKIT_TRY(out.write(data));
  return out.commit();
}

}  // namespace profkit
