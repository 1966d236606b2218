#include "io/profile_merge.h"

#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "format/instrprof/raw_reader.h"
#include "format/instrprof/reader.h"
#include "format/instrprof/text_reader.h"
#include "format/instrprof/indexed_header.h"

namespace profkit {

namespace {

// One input's bytes, reused from input to input. Anonymous memory that the kernel may back
// with 2 MiB pages (MADV_HUGEPAGE): a 3 MB raw profile then costs a few page faults instead
// of ~700, and nothing is zero-filled before read(2) overwrites it (std::vector's resize did;
// on the benchmark machine those faults were a tenth of the merge).
class InputBuffer {
 public:
  InputBuffer() = default;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer() {
    if (data_ != nullptr) ::munmap(data_, capacity_);
  }
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void set_size(size_t n) { size_ = n; }
  // Makes room for n bytes, keeping the first size() bytes.
  bool reserve(size_t n) {
    if (n <= capacity_) return true;
    constexpr size_t kHuge = size_t{2} << 20;
    const size_t want = (n + n / 4 + kHuge - 1) / kHuge * kHuge;
    void* p = data_ == nullptr ? ::mmap(nullptr, want, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                               : ::mremap(data_, capacity_, want, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) return false;
    ::madvise(p, want, MADV_HUGEPAGE);  // advice only: fine if THP is off
    data_ = static_cast<uint8_t*>(p);
    capacity_ = want;
    return true;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Whether an input starting with these 8 bytes can be an IR-PGO profile: read_profile
// decides from them alone (a magic, or text in the first 8 bytes as LLVM checks), so an
// input that fails here gets its bad-magic error from these bytes, the rest unread.
bool may_be_profile(Bytes head) {
  return instrprof::has_raw_magic(head) || instrprof::has_indexed_magic(head) ||
         instrprof::looks_like_text_profile(as_string_view(head));
}
constexpr size_t kHead = 8;

// Reads a whole file into `buf`; only its first 8 bytes when they show it is no profile (a
// 20 GB sparse file or /dev/zero costs no memory, and its error is the same).
Expected<void> read_into(const std::string& path, InputBuffer& buf) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorCode::io, kNoOffset,
                      std::string("cannot open for reading: ") + std::strerror(errno));
  auto fail = [&](uint64_t at, const char* what) {
    const int e = errno;
    ::close(fd);
    return make_error(ErrorCode::io, at, std::string(what) + std::strerror(e));
  };
  struct stat st {};
  size_t size = 0;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular) size = static_cast<size_t>(st.st_size);
  buf.set_size(0);
  if (regular && size >= kHead) {  // before the buffer for the whole file is allocated
    uint8_t head[kHead];
    ssize_t n;
    do n = ::pread(fd, head, kHead, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) return fail(0, "read failed: ");
    if (n == static_cast<ssize_t>(kHead) && !may_be_profile(Bytes(head, kHead))) {
      if (!buf.reserve(1 << 16)) return fail(0, "cannot allocate the input buffer: ");
      std::memcpy(buf.data(), head, kHead);
      buf.set_size(kHead);
      ::close(fd);
      return {};
    }
  }
  if (!buf.reserve(std::max<size_t>(size + 1, 1 << 16)))  // +1: EOF shows without growing
    return fail(0, "cannot allocate the input buffer: ");
  size_t got = 0;
  bool head_checked = regular;
  for (;;) {
    if (got == buf.capacity() && !buf.reserve(buf.capacity() * 2))
      return fail(got, "cannot allocate the input buffer: ");
    const ssize_t n = ::read(fd, buf.data() + got, buf.capacity() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(got, "read failed: ");
    if (n == 0) break;
    got += static_cast<size_t>(n);
    buf.set_size(got);
    if (!head_checked && got >= kHead) {  // a pipe or device: stop at its first 8 bytes
      head_checked = true;
      if (!may_be_profile(Bytes(buf.data(), kHead))) {
        buf.set_size(kHead);
        ::close(fd);
        return {};
      }
    }
    if (!regular && got > MappedFile::kMaxStreamedInput) {  // the same bound as MappedFile
      ::close(fd);
      return MappedFile::stream_limit_error();
    }
  }
  ::close(fd);
  return {};
}

}  // namespace

Expected<instrprof::Profile> read_instrprof_file(const std::string& path) {
  PROFKIT_TRY_ASSIGN(MappedFile file, MappedFile::open(path, MappedFile::Access::whole));
  // llvm-profdata: "empty raw profile file", exit 1 (a text profile has at least a line end).
  if (file.bytes().empty())
    return Unexpected{Error{ErrorCode::truncated, 0,
                            "empty profile file: expected a raw, indexed or text IR-PGO profile"}};
  return instrprof::read_profile(file.bytes());
}

Expected<instrprof::Merger> merge_profile_files(std::span<const WeightedPath> inputs,
                                                const FileMergeOptions& options,
                                                const FileMergeWarning& warn,
                                                std::string* failed_path) {
  const instrprof::MergeOptions& merge_options = options.merge;
  const bool fail_any = options.fail_any;
  instrprof::Merger merger(merge_options, [&](std::string_view source, std::string_view function,
                                              std::string_view message) {
    warn(source, std::string(function.empty() ? "<unknown>" : function) + ": " +
                     std::string(message));
  });

  unsigned threads = options.threads;
  if (threads == 0) {
    threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                              static_cast<unsigned>((inputs.size() + 1) / 2)));
  }
  threads = std::min<unsigned>(threads, static_cast<unsigned>(inputs.size()));

  // Merges inputs [begin, end) into `m` in order. Returns false when the command must stop
  // (after reporting, when `report` is set).
  size_t failures = 0;
  std::optional<Error> fatal;
  auto merge_range = [&](instrprof::Merger& m, size_t begin, size_t end, bool report,
                         size_t& failed) -> bool {
    instrprof::RawReader reader;
    reader.set_correlation(options.correlation);
    InputBuffer buf;
    for (size_t i = begin; i < end; ++i) {
      const WeightedPath& in = inputs[i];
      Expected<void> added;
      if (auto r = read_into(in.path, buf); !r) {
        added = Unexpected{r.error()};
      } else if (buf.size() == 0) {
        continue;  // llvm-profdata skips empty inputs silently
      } else if (const Bytes bytes(buf.data(), buf.size()); instrprof::has_raw_magic(bytes)) {
        // Fast path: decode straight into the merge, no intermediate Profile.
        added = m.add_raw(bytes, in.weight, reader, in.path);
      } else {
        auto profile = instrprof::read_profile(bytes);
        added = profile ? m.add(*profile, in.weight, in.path) : Unexpected{profile.error()};
      }
      if (added) continue;
      // An input of another kind (IR-level vs front-end) is skipped like any invalid input
      // under --failure-mode=all, as llvm-profdata's one-thread merge does.
      if (fail_any) {
        if (report) {
          if (failed_path != nullptr) *failed_path = in.path;
          fatal = added.error();
        }
        return false;
      }
      ++failed;
      if (report) {
        const Error& e = added.error();
        warn(in.path, "skipped: " + e.message +
                          (e.has_offset() ? " at offset " + std::to_string(e.offset) : ""));
      }
    }
    return true;
  };

  bool merged_in_parallel = false;
  if (threads > 1) {
    // Contiguous chunks merged on their own threads, then folded in input order. When the
    // grouping could change the result (warnings, weights, truncated sites) or any input
    // failed, the merge is redone on one thread so that the output never depends on -j.
    std::vector<instrprof::Merger> parts;
    parts.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) parts.emplace_back(merge_options);
    std::vector<char> ok(threads, 0);
    std::vector<size_t> failed(threads, 0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      const size_t begin = inputs.size() * t / threads, end = inputs.size() * (t + 1) / threads;
      pool.emplace_back([&, t, begin, end] { ok[t] = merge_range(parts[t], begin, end, false, failed[t]); });
    }
    for (auto& th : pool) th.join();
    bool usable = std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; }) &&
                  std::all_of(failed.begin(), failed.end(), [](size_t f) { return f == 0; });
    for (unsigned t = 1; t < threads && usable; ++t) usable = parts[0].absorb(std::move(parts[t])).has_value();
    usable = usable && !parts[0].order_sensitive();
    if (usable) {
      merger = std::move(parts[0]);
      merged_in_parallel = true;
    }
  }
  if (!merged_in_parallel) {
    if (!merge_range(merger, 0, inputs.size(), true, failures)) return Unexpected{*fatal};
  }
  if (failures == inputs.size() && options.fail_all) {
    if (failed_path != nullptr) failed_path->clear();
    return make_error(ErrorCode::invalid_argument, kNoOffset,
                      "no profile can be merged (every input failed)");
  }
  return merger;

}

}  // namespace profkit
