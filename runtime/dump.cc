// Dumps: collect every context's MIB (freed blocks from each thread's table, live blocks
// "as if freed now"), then write raw memprof v5 (docs/formats/memprof.md B) or text (A.13). The writer sizes
// every section first, maps one buffer, fills it, and writes it to a temporary name that
// is renamed over the target, so a profile file is always whole (a device or FIFO as the
// target is written in place; a symlink is followed to the file it names). With dump_interval a
// thread of the runtime writes interval profiles (freed blocks only, then the tables start
// empty) to `<file>.i<n>`.
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <regex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/abi.h"
#include "runtime/arena.h"
#include "runtime/base.h"
#include "runtime/clock.h"
#include "runtime/dump.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/line_writer.h"
#include "runtime/live.h"
#include "runtime/mib_table.h"
#include "runtime/spin_lock.h"
#include "runtime/stack_depot.h"
#include "runtime/thread_state.h"

namespace profkit::rt {
namespace {

SpinLock g_dump_lock;
uint32_t g_epoch = 0;           // default mode: bumped by reset, names the next file
bool g_compat_appending = false;  // llvm_compat: this process already wrote the target
bool g_final_dump_done = false;
uint32_t g_interval_seq = 1;    // dump_interval: the number of the next interval file
// An interval dump's tables: each thread's freed-block table, swapped with the empty one
// here (by thread index; under g_dump_lock). Both keep their capacity, so the swaps cost no
// memory after the first ones.
MibTable g_taken[kMaxThreads];

// ---- segments (B.3) ------------------------------------------------------------------
struct Segment {
  uint64_t start, end, offset, build_id_size;
  uint8_t build_id[32];
};
constexpr uint32_t kMaxSegments = 4096;

struct SegmentList {
  Segment* items;
  uint32_t count;
};

int collect_segment(dl_phdr_info* info, size_t, void* arg) {
  auto* list = static_cast<SegmentList*>(arg);
  uint8_t build_id[32] = {};
  uint64_t build_id_size = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    const uint8_t* end = p + ph.p_memsz;
    const uint64_t align = ph.p_align == 8 ? 8 : 4;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const uint64_t name_size = (note->n_namesz + align - 1) & ~(align - 1);
      const uint64_t desc_size = (note->n_descsz + align - 1) & ~(align - 1);
      const uint8_t* name = p + sizeof(ElfW(Nhdr));
      const uint8_t* desc = name + name_size;
      if (desc + desc_size > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && name[0] == 'G' &&
          name[1] == 'N' && name[2] == 'U' && name[3] == 0) {
        build_id_size = note->n_descsz > 32 ? 32 : note->n_descsz;
        for (uint64_t k = 0; k < build_id_size; ++k) build_id[k] = desc[k];
        break;
      }
      p = desc + desc_size;
    }
    if (build_id_size) break;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || list->count >= kMaxSegments) continue;
    Segment& s = list->items[list->count++];
    s.start = info->dlpi_addr + ph.p_vaddr;
    s.end = s.start + ph.p_memsz;
    s.offset = info->dlpi_addr;
    s.build_id_size = build_id_size;
    for (int k = 0; k < 32; ++k) s.build_id[k] = build_id[k];
  }
  return 0;
}

// ---- output sink ---------------------------------------------------------------------
// Little-endian words into memory the caller has room for (Sink::room).
struct Fields {
  uint8_t* p;
  template <class T>
  void field(T v) {
    __builtin_memcpy(p, &v, sizeof(T));
    p += sizeof(T);
  }
};

// Streams the profile through one fixed buffer to the target file, so a dump needs no
// memory proportional to the profile (the size is computed first and written in the
// header; the file only becomes visible, by rename, once every byte is written).
struct Sink {
  static constexpr uint64_t kCapacity = uint64_t{1} << 20;
  uint8_t* data = nullptr;
  uint64_t used = 0;
  uint64_t pos = 0;  // bytes produced so far
  int fd = -1;
  int error = 0;
  void flush() {
    if (used != 0 && error == 0 && !write_all(fd, data, used)) error = errno ? errno : EIO;
    used = 0;
  }
  void byte(uint8_t v) {
    if (used == kCapacity) flush();
    data[used++] = v;
    ++pos;
  }
  // Little-endian words: one store while the buffer has room (x86-64 is little-endian),
  // bytes at the buffer's end. A large profile is mostly these (tree: 86 MB).
  template <class T>
  void word(T v) {
    if (PROFKIT_RT_LIKELY(kCapacity - used >= sizeof(T))) {
      __builtin_memcpy(data + used, &v, sizeof(T));
      used += sizeof(T);
      pos += sizeof(T);
      return;
    }
    for (size_t i = 0; i < sizeof(T); ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  // The next `bytes` bytes of the buffer, to be filled by the caller (at most kCapacity).
  uint8_t* room(uint64_t bytes) {
    if (PROFKIT_RT_UNLIKELY(kCapacity - used < bytes)) flush();
    uint8_t* p = data + used;
    used += bytes;
    pos += bytes;
    return p;
  }
  void u64(uint64_t v) { word(v); }
  void u32(uint32_t v) { word(v); }
  void u16(uint16_t v) { word(v); }
  void bytes(const uint8_t* p, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) byte(p[i]);
  }
  void pad8() {
    while (pos % 8) byte(0);
  }
  void field(uint32_t v) { u32(v); }
  void field(uint64_t v) { u64(v); }
  void str(const char* s) {
    while (*s) byte(static_cast<uint8_t>(*s++));
  }
  void num(uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (n > 0) byte(static_cast<uint8_t>(digits[--n]));
  }
  void hex(uint64_t v) {
    char digits[16];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (n > 0) byte(static_cast<uint8_t>(digits[--n]));
  }
  void average(uint64_t total, uint64_t count) {  // total / count with 2 decimals
    const uint64_t scaled = count ? total * 100 / count : 0;
    num(scaled / 100);
    str(".");
    if (scaled % 100 < 10) str("0");
    num(scaled % 100);
  }
};

constexpr uint64_t round8(uint64_t x) { return (x + 7) & ~uint64_t{7}; }

// ---- file naming (A.11) ----------------------------------------------------------------
struct Path {
  char bytes[4096 + 128];
  size_t size = 0;
  Path& add(const char* s) {
    while (*s && size < sizeof bytes - 1) bytes[size++] = *s++;
    bytes[size] = '\0';
    return *this;
  }
  Path& add_num(uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (n > 0 && size < sizeof bytes - 1) bytes[size++] = digits[--n];
    bytes[size] = '\0';
    return *this;
  }
};

bool same_string(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// The file name of this process's executable (after the last '/'), in `buf`.
const char* exe_name(char* buf, size_t size) {
  const ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  const char* name = buf;
  for (const char* p = buf; *p; ++p)
    if (*p == '/') name = p + 1;
  return name;
}

bool has_pattern(const char* s) {
  for (; *s; ++s)
    if (s[0] == '%' && (s[1] == 'p' || s[1] == 'e')) return true;
  return false;
}

// Returns the fd to write to directly (stdout/stderr), or -1 with `path` filled; an
// interval profile (`interval` > 0) is `<file>.i<interval>`.
int target(Path* path, uint32_t interval) {
  const int pid = getpid();
  // Under `profkit run`, relative names are taken from the directory it started in.
  auto from_start_dir = [path](const char* name) {
    if (name[0] != '/' && g.options.start_dir.value[0] == '/')
      path->add(g.options.start_dir.value).add("/");
  };
  if (g.options.output.value[0] != '\0') from_start_dir(g.options.output.value);
  if (g.options.output.value[0] != '\0' && has_pattern(g.options.output.value)) {
    // A pattern: %p is the pid, %e the program name, %% a '%'.
    char exe[4096];
    for (const char* s = g.options.output.value; *s; ++s) {
      if (s[0] == '%' && s[1] == 'p') {
        path->add_num(static_cast<uint64_t>(pid));
        ++s;
      } else if (s[0] == '%' && s[1] == 'e') {
        path->add(exe_name(exe, sizeof exe));
        ++s;
      } else if (s[0] == '%' && s[1] == '%') {
        path->add("%");
        ++s;
      } else {
        const char one[2] = {*s, '\0'};
        path->add(one);
      }
    }
  } else if (g.options.output.value[0] != '\0') {
    path->add(g.options.output.value);
    if (!g.exact_output || pid != g.init_pid) path->add(".").add_num(static_cast<uint64_t>(pid));
  } else {
    const char* base = g.options.log_path.value;
    if (base[0] == '\0') {
      const char* compiled = __memprof_profile_filename;
      asm("" : "+r"(compiled));
      base = compiled[0] ? compiled : "memprof.profraw";
    }
    if (same_string(base, "stdout")) return 1;
    if (same_string(base, "stderr")) return 2;
    from_start_dir(base);
    path->add(base);
    if (g.options.log_exe_name.value) {
      char exe[4096];
      const char* name = exe_name(exe, sizeof exe);
      if (name[0] != '\0') path->add(".").add(name);
    }
    path->add(".").add_num(static_cast<uint64_t>(pid)).add(g.options.log_suffix.value);
  }
  if (g_epoch > 0) path->add(".").add_num(g_epoch);
  if (interval > 0) path->add(".i").add_num(interval);
  return -1;
}

void make_parent_dirs(const Path& path) {
  char dir[sizeof path.bytes];
  for (size_t i = 0; i < path.size; ++i) {
    dir[i] = path.bytes[i];
    if (path.bytes[i] == '/' && i > 0) {
      dir[i] = '\0';
      mkdir(dir, 0777);
      dir[i] = '/';
    }
  }
}

const char* errno_name(int e) {
  switch (e) {
    case ENOSPC: return "no space left on device";
    case EACCES: return "permission denied";
    case ENOENT: return "no such file or directory";
    case EROFS: return "read-only file system";
    case EDQUOT: return "disk quota exceeded";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "not a directory";
    case EFBIG: return "file too large";
    case EPIPE: return "broken pipe";
    case EIO: return "input/output error";
    case ENOMEM: return "out of memory";
    case ENXIO: return "no such device or address (a FIFO without a reader)";
    default: return "system error";
  }
}

// Interval profiles: only the first failure is reported (a full disk would otherwise give
// a line per interval); their data goes into the next profile written.
bool g_interval_dump = false;          // the dump in progress is an interval profile
bool g_interval_error_reported = false;

void report_write_error(const char* what, const char* path, int e) {
  if (g_interval_dump && g_interval_error_reported) return;
  LineWriter().str("profkit-memprof: error: ").str(what).str(" '").str(path).str("': ")
      .str(errno_name(e)).str(" (errno ").num(static_cast<uint64_t>(e))
      .str(g_interval_dump ? "); interval profile not written, its data goes into the next "
                             "one (later failures of interval profiles are not reported)"
                           : "); profile not written")
      .flush_to(2);
  if (g_interval_dump) g_interval_error_reported = true;
}

// Copies the current contents of `from` to `to_fd` (llvm_compat appends profiles).
bool copy_existing(const char* from, int to_fd) {
  const int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return errno == ENOENT;
  char chunk[16384];
  for (;;) {
    const ssize_t n = read(in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(in);
      return false;
    }
    if (n == 0) break;
    if (!write_all(to_fd, chunk, static_cast<size_t>(n))) {
      close(in);
      return false;
    }
  }
  close(in);
  return true;
}

// An output in progress: a direct stream, or a temporary file renamed at the end.
struct Target {
  Path path;
  Path temp;
  bool direct = false;
  bool owned = false;  // direct: a device or FIFO the runtime opened (closed at the end)
};

// The name at the end of the chain of symlinks at `path` (a relative link read from its
// link's directory), without realpath (glibc's may allocate). False when the chain loops
// or a name does not fit (`path` is then part way along it: the caller keeps the given
// one). `*through_proc` tells a link into /proc (/proc/self/fd/1: the file stdout is,
// which renaming over would take from the program).
bool follow_symlinks(Path* path, bool* through_proc) {
  *through_proc = false;
  Path next;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (lstat(path->bytes, &st) != 0 || !S_ISLNK(st.st_mode)) return true;
    char link[4096];
    const ssize_t n = readlink(path->bytes, link, sizeof link - 1);
    if (n <= 0) return false;
    link[n] = '\0';
    next.size = 0;
    next.bytes[0] = '\0';
    if (link[0] != '/') {
      size_t dir = path->size;
      while (dir > 0 && path->bytes[dir - 1] != '/') --dir;
      for (size_t i = 0; i < dir; ++i) next.bytes[i] = path->bytes[i];
      next.size = dir;
      next.bytes[dir] = '\0';
    }
    next.add(link);
    if (link[0] == '/' && link[1] == 'p' && link[2] == 'r' && link[3] == 'o' && link[4] == 'c' &&
        link[5] == '/')
      *through_proc = true;
    if (next.size >= sizeof next.bytes - 1) return false;
    *path = next;
  }
  return false;
}

// An existing output that is not a regular file (a character or block device, a FIFO) is
// written in place: renamed over, it would become a regular file. A FIFO is opened without
// waiting for a reader (none: ENXIO, reported), then written blocking. Returns the fd, -1
// when the output is not such a file, -2 when it is and cannot be opened (errno).
int open_special(const char* path) {
  struct stat st {};
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return -1;
  const int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -2;
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

bool open_target(Target* t, Sink* sink, uint32_t interval) {
  sink->data = static_cast<uint8_t*>(os_map(Sink::kCapacity));
  if (sink->data == nullptr) {
    report_write_error("cannot allocate the output buffer for", "profile", ENOMEM);
    return false;
  }
  const int direct = target(&t->path, interval);
  if (direct >= 0) {
    t->direct = true;
    sink->fd = direct;
    return true;
  }
  const int special = open_special(t->path.bytes);
  if (special != -1) {
    if (special < 0) {
      report_write_error("cannot open", t->path.bytes, errno);
      os_unmap(sink->data, Sink::kCapacity);
      return false;
    }
    t->direct = true;
    t->owned = true;
    sink->fd = special;
    return true;
  }
  // A symlink stays: the file at its end is replaced, by a temporary file beside it. One
  // into /proc names a file a process has open: appended to, in place.
  bool through_proc = false;
  const Path given = t->path;
  if (!follow_symlinks(&t->path, &through_proc)) t->path = given;  // a loop: as before
  if (through_proc) {
    t->path = given;
    sink->fd = open(t->path.bytes, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (sink->fd < 0) {
      report_write_error("cannot open", t->path.bytes, errno);
      os_unmap(sink->data, Sink::kCapacity);
      return false;
    }
    t->direct = true;
    t->owned = true;
    return true;
  }
  make_parent_dirs(t->path);
  t->temp.add(t->path.bytes).add(".tmp.").add_num(static_cast<uint64_t>(getpid()));
  sink->fd = open(t->temp.bytes, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0660);
  if (sink->fd < 0) {
    report_write_error("cannot create", t->temp.bytes, errno);
    os_unmap(sink->data, Sink::kCapacity);
    return false;
  }
  if (g.compat && g_compat_appending && interval == 0 && !copy_existing(t->path.bytes, sink->fd))
    sink->error = errno ? errno : EIO;
  return true;
}

// A profile not written because another runtime's was there (profile_left_as_it_was).
char g_left_as_it_was[sizeof(Path::bytes)];

// The last profile this process wrote while g.foreign_malloc: its own, replaced by its
// next dump to that name (a dump_signal or reset dump, then the exit profile).
char g_own_profile[sizeof(Path::bytes)];

// rename, except that with another runtime's malloc in the program (g.foreign_malloc) an
// existing file is that runtime's profile and is never replaced: EEXIST then.
int rename_target(const char* from, const char* to) {
  if (g.foreign_malloc == nullptr || same_string(to, g_own_profile)) return rename(from, to);
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) return -1;
    // A file system without RENAME_NOREPLACE: link() never replaces either.
    if (link(from, to) != 0) return -1;
    unlink(from);
  }
  size_t i = 0;
  for (; to[i] != '\0' && i + 1 < sizeof g_own_profile; ++i) g_own_profile[i] = to[i];
  g_own_profile[i] = '\0';
  return 0;
}

// True when the profile was written whole.
bool close_target(Target* t, Sink* sink) {
  sink->flush();
  os_unmap(sink->data, Sink::kCapacity);
  if (t->direct) {
    if (t->owned && close(sink->fd) != 0 && sink->error == 0 && errno != EINTR) sink->error = errno;
    if (sink->error)
      report_write_error("cannot write profile to",
                         t->owned ? t->path.bytes : sink->fd == 1 ? "stdout" : "stderr", sink->error);
    return sink->error == 0;
  }
  if (close(sink->fd) != 0 && sink->error == 0) sink->error = errno;
  if (sink->error == 0 && rename_target(t->temp.bytes, t->path.bytes) != 0) sink->error = errno;
  if (sink->error == EEXIST && g.foreign_malloc != nullptr) {
    unlink(t->temp.bytes);
    for (size_t i = 0; i <= t->path.size; ++i) g_left_as_it_was[i] = t->path.bytes[i];
    return false;  // said at exit, in the one line about the other malloc (init.cc)
  }
  if (sink->error != 0) {
    unlink(t->temp.bytes);
    report_write_error("cannot write profile", t->path.bytes, sink->error);
    return false;
  }
  if (g.compat) g_compat_appending = true;
  return true;
}

// ---- text output (A.13) ----------------------------------------------------------------
bool write_text(const MibTable& table, uint32_t interval) {
  const bool terse = g.options.print_terse.value;
  Target target_file;
  Sink out;
  if (!open_target(&target_file, &out, interval)) return false;
  if (!terse) out.str("Recorded MIBs (incl. live on exit):\n");
  for (uint32_t i = 0; i < table.size; ++i) {
    const MibEntry& e = table.entries[i];
    if (e.context_id == 0) continue;
    const MemInfoBlock& m = e.mib;
    if (terse) {
      out.str("MIB:");
      out.num(e.context_id); out.str("/"); out.num(m.AllocCount); out.str("/");
      out.average(m.TotalSize, m.AllocCount); out.str("/"); out.num(m.MinSize); out.str("/");
      out.num(m.MaxSize); out.str("/"); out.average(m.TotalAccessCount, m.AllocCount); out.str("/");
      out.num(m.MinAccessCount); out.str("/"); out.num(m.MaxAccessCount); out.str("/");
      out.average(m.TotalLifetime, m.AllocCount); out.str("/"); out.num(m.MinLifetime); out.str("/");
      out.num(m.MaxLifetime); out.str("/"); out.num(m.NumMigratedCpu); out.str("/");
      out.num(m.NumLifetimeOverlaps); out.str("/"); out.num(m.NumSameAllocCpu); out.str("/");
      out.num(m.NumSameDeallocCpu); out.str("\n");
      continue;
    }
    out.str("Memory allocation stack id = "); out.num(e.context_id); out.str("\n");
    out.str("\talloc_count "); out.num(m.AllocCount); out.str(", size (ave/min/max) ");
    out.average(m.TotalSize, m.AllocCount); out.str(" / "); out.num(m.MinSize); out.str(" / ");
    out.num(m.MaxSize); out.str("\n\taccess_count (ave/min/max): ");
    out.average(m.TotalAccessCount, m.AllocCount); out.str(" / "); out.num(m.MinAccessCount);
    out.str(" / "); out.num(m.MaxAccessCount); out.str("\n\tlifetime (ave/min/max): ");
    out.average(m.TotalLifetime, m.AllocCount); out.str(" / "); out.num(m.MinLifetime);
    out.str(" / "); out.num(m.MaxLifetime); out.str("\n\tnum migrated: "); out.num(m.NumMigratedCpu);
    out.str(", num lifetime overlaps: "); out.num(m.NumLifetimeOverlaps);
    out.str(", num same alloc cpu: "); out.num(m.NumSameAllocCpu);
    out.str(", num same dealloc_cpu: "); out.num(m.NumSameDeallocCpu); out.str("\n");
    if (m.AccessHistogramSize) {
      out.str("AccessCountHistogram["); out.num(m.AccessHistogramSize); out.str("]: ");
      const auto* h = reinterpret_cast<const uint64_t*>(m.AccessHistogram);
      for (uint32_t k = 0; k < m.AccessHistogramSize && k < 32; ++k) {
        out.num(h[k]);
        out.str(" ");
      }
      out.str("\n");
    }
    uint32_t n = 0;
    const uintptr_t* pcs = depot_stack(e.context_id, &n);
    out.str("Stack for id "); out.num(e.context_id); out.str(":\n");
    for (uint32_t k = 0; pcs && k < n; ++k) {
      out.str("    #"); out.num(k); out.str(" 0x"); out.hex(pcs[k] - 1); out.str("\n");
    }
  }
  return close_target(&target_file, &out);
}

// ---- profkit's live/peak extension (docs/formats/profkit-heap.md) ------------------------
// What one context had live at the dump (from the table of live blocks) and at the peak.
struct LivePeak {
  uint64_t live_blocks, live_bytes, peak_blocks, peak_bytes;
};
LivePeak live_peak_of(const MibTable& live, uint32_t id) {
  LivePeak r{};
  if (live.index != nullptr && live.index[id >> kIndexChunkBits] != nullptr) {
    const uint32_t at = live.index[id >> kIndexChunkBits][id & ((1u << kIndexChunkBits) - 1)];
    if (at != 0) {
      r.live_blocks = live.entries[at - 1].mib.AllocCount;
      r.live_bytes = live.entries[at - 1].mib.TotalSize;
    }
  }
  peak_of(id, &r.peak_blocks, &r.peak_bytes);
  return r;
}
bool any(const LivePeak& r) { return (r.live_blocks | r.peak_blocks) != 0; }

// ---- raw output (B) ------------------------------------------------------------------
// Writes the MIBs of several tables (every thread's freed-block table and the table of
// live blocks) without merging them first: a context id may appear in more than one MIB
// record, which llvm-profdata merges by id (docs/formats/memprof.md D.5; checked with llvm-profdata-22), so a
// dump needs no copy of the tables. Each id's stack is written once. Not for histograms
// (dump_profile merges those first: llvm-profdata 22 crashes on their duplicates).
// Given `live` (the table of live blocks; the peak data locked), it then writes profkit's
// live/peak extension for the contexts whose stacks it wrote. An interval profile
// (`interval` > 0) goes to `<file>.i<interval>`. True when the file was written whole.
bool write_raw(const MibTable* const* tables, uint32_t count, const SegmentList& segments,
               const MibTable* live, bool at_exit, uint32_t interval) {
  const uint32_t ids = depot_size();
  const uint64_t bitmap_bytes = (uint64_t{ids} + 64) / 8;
  auto* seen = static_cast<uint64_t*>(arena_alloc(bitmap_bytes));
  if (seen == nullptr) {
    report_write_error("cannot allocate the stack bitmap for", "profile", ENOMEM);
    return false;
  }
  auto first_time = [seen](uint32_t id) {
    const bool fresh = !(seen[id / 64] >> (id % 64) & 1);
    seen[id / 64] |= uint64_t{1} << (id % 64);
    return fresh;
  };
  // Each entry's stack depth (kNoStack: not written), so the MIB pass needs no depot lookup;
  // the depot's nodes are far apart, so lookups run a few entries ahead with a prefetch.
  constexpr uint32_t kNoStack = ~uint32_t{0};
  constexpr uint32_t kAhead = 8;
  uint64_t entry_count = 0;
  for (uint32_t t = 0; t < count; ++t) entry_count += tables[t]->size;
  const uint64_t depth_bytes = sizeof(uint32_t) * (entry_count + 1);
  auto* depth = static_cast<uint32_t*>(arena_alloc(depth_bytes));
  if (depth == nullptr) {
    report_write_error("cannot allocate the stack depths for", "profile", ENOMEM);
    arena_free(seen, bitmap_bytes);
    return false;
  }
  uint64_t mib_count = 0, histogram_entries = 0, stack_bytes = 8, stack_count = 0;
  for (uint64_t t = 0, at = 0; t < count; ++t)
    for (uint32_t i = 0; i < tables[t]->size; ++i, ++at) {
      const MibEntry& e = tables[t]->entries[i];
      if (i + kAhead < tables[t]->size) depot_prefetch(tables[t]->entries[i + kAhead].context_id);
      uint32_t n = 0;
      depth[at] = kNoStack;
      if (e.context_id == 0 || depot_stack(e.context_id, &n) == nullptr) continue;
      depth[at] = n;
      ++mib_count;
      histogram_entries += e.mib.AccessHistogramSize;
      if (first_time(e.context_id)) {
        stack_bytes += 16 + 8 * uint64_t{n};
        ++stack_count;
      }
    }
  // `seen` now holds exactly the ids whose stacks are written.
  uint64_t extension_entries = 0;
  if (live != nullptr)
    for (uint32_t id = 1; id < ids; ++id)
      if ((seen[id / 64] >> (id % 64) & 1) && any(live_peak_of(*live, id))) ++extension_entries;
  const uint64_t extension_bytes =
      live == nullptr ? 0 : memprof::kHeapExtHeaderSize + memprof::kHeapExtEntrySize * extension_entries;
  constexpr uint64_t kMibSize = memprof::raw_mib_size(5);
  const uint64_t segment_bytes = round8(8 + segments.count * memprof::kSegmentEntrySizeV3);
  const uint64_t mib_bytes = round8(8 + mib_count * (8 + kMibSize) + 2 * histogram_entries);
  const uint64_t total = round8(memprof::kRawHeaderSize + segment_bytes + mib_bytes + round8(stack_bytes)) +
                         extension_bytes;
  Target target_file;
  Sink out;
  if (!open_target(&target_file, &out, interval)) {
    arena_free(depth, depth_bytes);
    arena_free(seen, bitmap_bytes);
    return false;
  }
  out.u64(memprof::kRawMagic);
  out.u64(5);
  out.u64(total);
  out.u64(memprof::kRawHeaderSize);
  out.u64(memprof::kRawHeaderSize + segment_bytes);
  out.u64(memprof::kRawHeaderSize + segment_bytes + mib_bytes);
  out.u64(segments.count);
  for (uint32_t i = 0; i < segments.count; ++i) {
    const Segment& seg = segments.items[i];
    out.u64(seg.start);
    out.u64(seg.end);
    out.u64(seg.offset);
    out.u64(seg.build_id_size);
    out.bytes(seg.build_id, 32);
  }
  out.pad8();
  out.u64(mib_count);
  for (uint64_t t = 0, at = 0; t < count; ++t)
    for (uint32_t i = 0; i < tables[t]->size; ++i, ++at) {
      const MibEntry& e = tables[t]->entries[i];
      if (depth[at] == kNoStack) continue;
      MemInfoBlock m = e.mib;
      m.AccessHistogram = 0;  // a runtime pointer in LLVM's files; readers ignore it
      // The id and the fields, little-endian, straight into the buffer.
      Fields f{out.room(8 + kMibSize)};
      f.field(uint64_t{e.context_id});
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) f.field(static_cast<Type>(m.Name));
#include "format/memprof/mib_fields.def"
      const auto* h = reinterpret_cast<const uint64_t*>(e.mib.AccessHistogram);
      for (uint32_t k = 0; k < e.mib.AccessHistogramSize; ++k)
        out.u16(memprof::encode_histogram_count(h[k]));
    }
  out.pad8();
  out.u64(stack_count);
  for (uint64_t w = 0; w < bitmap_bytes / 8; ++w) seen[w] = 0;
  for (uint64_t t = 0, at = 0; t < count; ++t)
    for (uint32_t i = 0; i < tables[t]->size; ++i, ++at) {
      const MibEntry& e = tables[t]->entries[i];
      if (i + kAhead < tables[t]->size) depot_prefetch(tables[t]->entries[i + kAhead].context_id);
      if (depth[at] == kNoStack || !first_time(e.context_id)) continue;
      uint32_t n = 0;
      const uintptr_t* pcs = depot_stack(e.context_id, &n);
      Fields f{out.room(16 + 8 * uint64_t{n})};
      f.field(uint64_t{e.context_id});
      f.field(uint64_t{n});
      for (uint32_t k = 0; k < n; ++k) f.field(uint64_t{pcs[k] - 1});  // return address - 1 (A.10)
    }
  out.pad8();
  if (live != nullptr) {
    const PeakSummary peak = peak_summary();
    out.u64(memprof::kHeapExtMagic);
    out.u64(extension_bytes);
    out.u64(memprof::kHeapExtVersion);
    out.u64(at_exit ? memprof::kHeapExtAtExit : 0);
    out.u64(now_ms());
    out.u64(peak.time_ms);
    out.u64(peak.bytes);
    out.u64(peak.blocks);
    out.u64(extension_entries);
    for (uint32_t id = 1; id < ids; ++id) {
      if (!(seen[id / 64] >> (id % 64) & 1)) continue;
      const LivePeak r = live_peak_of(*live, id);
      if (!any(r)) continue;
      Fields f{out.room(memprof::kHeapExtEntrySize)};
      f.field(uint64_t{id});
      f.field(r.live_blocks);
      f.field(r.live_bytes);
      f.field(r.peak_blocks);
      f.field(r.peak_bytes);
    }
  }
  while (out.pos < total) out.byte(0);
  const bool written = close_target(&target_file, &out);
  arena_free(depth, depth_bytes);
  arena_free(seen, bitmap_bytes);
  return written;
}

}  // namespace

namespace {

// Writing a profile must not kill the program: a write past `ulimit -f` raises SIGXFSZ and
// a write to a closed pipe SIGPIPE, both fatal by default. While the dump writes, this
// thread blocks them, so the write fails with EFBIG or EPIPE instead (reported once, the
// partial file removed); a signal our writes left pending is taken back before the mask is
// restored. A pending signal the program raised itself before stays pending.
class WriteSignalGuard {
 public:
  WriteSignalGuard() {
    sigemptyset(&ours_);
    sigaddset(&ours_, SIGPIPE);
    sigaddset(&ours_, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &ours_, &saved_);
    sigpending(&before_);
  }
  ~WriteSignalGuard() {
    sigset_t after;
    sigpending(&after);
    for (int sig : {SIGPIPE, SIGXFSZ}) {
      if (!sigismember(&after, sig) || sigismember(&before_, sig)) continue;
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      const timespec zero{0, 0};
      while (sigtimedwait(&one, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }

 private:
  sigset_t ours_, saved_, before_;
};

}  // namespace

namespace {

// profkit run --follow-children: whether this process writes a profile. The process profkit
// run started always does; a descendant per the option: all, none, or a POSIX extended
// regex its program name must match. The match is made once, from the constructor (so a
// forked child inherits it): regcomp allocates, which a dump on a crash inside glibc's
// malloc must not.
int g_follow_verdict = -1;  // the regex matched (1) or not (0); -1: not decided yet

void decide_follow_verdict() {
  const char* rule = g.options.follow_children.value;
  if (g_follow_verdict >= 0 || g.root_pid == 0 || same_string(rule, "all") ||
      same_string(rule, "none"))
    return;
  char exe[4096];
  regex_t re;
  if (regcomp(&re, rule, REG_EXTENDED | REG_NOSUB) != 0) {
    g_follow_verdict = 1;  // an invalid pattern was refused by profkit run; write rather than lose
  } else {
    g_follow_verdict = regexec(&re, exe_name(exe, sizeof exe), 0, nullptr, 0) == 0 ? 1 : 0;
    regfree(&re);
  }
}

bool follows_this_process() {
  if (g.root_pid == 0 || getpid() == g.root_pid) return true;
  const char* rule = g.options.follow_children.value;
  if (same_string(rule, "all")) return true;
  if (same_string(rule, "none")) return false;
  decide_follow_verdict();  // when the constructor did not run first
  return g_follow_verdict == 1;
}

}  // namespace

// With dump_interval (not under llvm_compat, which keeps compiler-rt's dumps), a dump the
// process outlives is an interval profile: the blocks freed since the previous one, no live
// blocks, and the tables start empty after it is written. The profile at the end of the
// process (exit, a signal that ends it) holds what no interval profile did: the blocks
// freed since the last one and the blocks still live. So every allocation is in exactly
// one of the files, and merging them all gives one exit profile's totals.
// log_path=stdout/stderr: at exit, the program's own stdio output still in the stream's
// buffer goes first (exit() flushes it only after the atexit handlers, the runtime's among
// them: behind a profile, `| head` or `ulimit -f` ended the program's flush with SIGPIPE or
// SIGXFSZ). Never waits: a stream another thread holds is left to exit(). Only here, at the
// exit dump, never on the allocation path; the flush is the program's own write, with the
// program's signal dispositions.
void flush_program_stream_before_exit_dump() {
  if (g.options.output.value[0] != '\0') return;
  const char* base = g.options.log_path.value;
  FILE* stream = same_string(base, "stdout") ? stdout : same_string(base, "stderr") ? stderr : nullptr;
  if (stream == nullptr || ftrylockfile(stream) != 0) return;
  fflush_unlocked(stream);
  funlockfile(stream);
}

int dump_profile(DumpReason reason) {
  RuntimeScope scope;
  if (!follows_this_process()) return 0;
  if (reason == DumpReason::kExit) flush_program_stream_before_exit_dump();
  const bool last = reason == DumpReason::kExit || reason == DumpReason::kProcessEnd;
  const bool at_exit = last;  // the live blocks of the extension are those the process ended with
  const bool interval = !last && g.options.dump_interval.value > 0 && !g.compat;
  WriteSignalGuard signals;
  g_dump_lock.lock();
  if (g_final_dump_done) {  // nothing after the exit dump (its data is already written)
    g_dump_lock.unlock();
    return 0;
  }
  SegmentList segments{static_cast<Segment*>(os_map(sizeof(Segment) * kMaxSegments)), 0};
  if (segments.items != nullptr) dl_iterate_phdr(collect_segment, &segments);
  const uint32_t ts = now_ms();
  const uint32_t cpu = current_cpu();
  const bool text = g.options.print_text.value || g.options.print_terse.value;
  // Every thread state stays locked for the whole dump (as compiler-rt locks its allocator),
  // so the sizes computed first still hold while the file is written. An interval profile
  // has no live blocks to keep consistent with the tables: each thread's table is swapped
  // for an empty one under that thread's lock alone, and written with no lock held, so the
  // program allocates and frees on while the file is written (holding every lock, a dump
  // every 50 ms made the tree workload, 262 144 contexts, 2.2x slower).
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    state->lock.lock_other();
    if (!interval) continue;
    const MibTable mine = state->mibs;
    state->mibs = g_taken[t];
    g_taken[t] = mine;
    state->lock.unlock_other();
  }
  auto table_of = [interval](uint32_t t) -> MibTable& {
    return interval ? g_taken[t] : thread_state_at(t)->mibs;
  };
  // profkit's live/peak extension (raw output, not llvm_compat; not in interval profiles,
  // which hold no live blocks): the peak data stays locked while the file is written.
  const bool extension = !g.compat && !text && !interval;
  if (extension) peak_lock_for_dump();
  MibTable live;    // live blocks "as if freed now" (A.9)
  MibTable merged;  // text and histogram output: one block per context, as compiler-rt writes
  // Live tracked blocks: each was counted where it was made and, once freed, where it was
  // freed (a free the runtime could not record leaves it counted: never too few). The span
  // walk stops when it has found the small ones, at once when everything was freed.
  uint64_t allocs = 0, frees = 0, glibc_live = 0, freed_entries = 0;
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    allocs += state->allocs;
    frees += state->frees;
    freed_entries += table_of(t).size;
    for (uint32_t s = 0; s < state->slots_used && !interval; ++s) {
      const uintptr_t v = state->slots[s];
      if (v == 0 || (v & 1)) continue;
      const auto* header = reinterpret_cast<const ChunkHeader*>(v);
      if (own_block(header, g.fork_generation))  // not one inherited at fork (the parent's)
        record_block(&live, header, v + sizeof(ChunkHeader), ts, cpu);
      ++glibc_live;
    }
  }
  if (!interval) {
    const uint64_t tracked_live = allocs > frees ? allocs - frees : 0;
    heap_record_live(&live, ts, cpu, tracked_live > glibc_live ? tracked_live - glibc_live : 0);
  }
  // Histogram profiles are merged here too: llvm-profdata 22 merges two MIBs of one id
  // whose histograms have the same length by freeing the histogram it keeps (a double
  // free: it crashes), so a raw file with histograms must list each id once.
  const bool merge = text || g.histogram;
  if (merge) {
    for (uint32_t t = 0; t <= threads; ++t) {
      const MibTable& source = t < threads ? table_of(t) : live;
      for (uint32_t i = 0; i < source.size; ++i)
        if (source.entries[i].context_id != 0)
          merge_aggregate(&merged, source.entries[i].context_id, source.entries[i].mib);
    }
  }
  const uint32_t file = interval ? g_interval_seq : 0;
  g_interval_dump = interval;
  bool written = false;
  if (interval && freed_entries == 0) {
    // An interval in which nothing was freed writes no file (an idle process makes none).
  } else if (text) {
    written = write_text(merged, file);
  } else if (segments.items != nullptr && merge) {
    const MibTable* one = &merged;
    written = write_raw(&one, 1, segments, extension ? &live : nullptr, at_exit, file);
  } else if (segments.items != nullptr) {
    const size_t bytes = sizeof(MibTable*) * (threads + 1);
    auto* tables = static_cast<const MibTable**>(arena_alloc(bytes));
    if (tables != nullptr) {
      for (uint32_t t = 0; t < threads; ++t) tables[t] = &table_of(t);
      tables[threads] = &live;
      written = write_raw(tables, threads + 1, segments, extension ? &live : nullptr, at_exit, file);
      arena_free(tables, bytes);
    }
  }
  if (extension) peak_unlock_after_dump();
  // llvm_compat: each dump takes the freed data out of the tables (A.11); by default every
  // dump is a complete snapshot that replaces the previous file; an interval profile's data
  // is out of the threads' tables already, and goes back into them when the write failed
  // (for the next profile).
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    if (interval) {
      MibTable& taken = g_taken[t];
      if (!written && taken.size != 0) {
        state->lock.lock_other();
        for (uint32_t i = 0; i < taken.size; ++i)
          if (taken.entries[i].context_id != 0)
            merge_aggregate(&state->mibs, taken.entries[i].context_id, taken.entries[i].mib);
        state->lock.unlock_other();
      }
      table_clear(&taken);
      continue;
    }
    if (g.compat) table_clear(&state->mibs);
    state->lock.unlock_other();
  }
  if (interval && written) ++g_interval_seq;
  if (segments.items != nullptr) os_unmap(segments.items, sizeof(Segment) * kMaxSegments);
  table_release(&live);
  table_release(&merged);
  if (last) g_final_dump_done = true;
  if (written && g.options.verbosity.value >= 2) {
    // The runtime's own memory after each dump, for the soak test (tests/soak_test.py).
    uint64_t in_use = 0, chunks = 0;
    arena_usage(&in_use, &chunks);
    LineWriter line;
    line.str("profkit-memprof: ");
    if (interval) line.str("interval profile ").num(file);
    else line.str("profile");
    line.str(" written; runtime memory: arena ").num(in_use).str(" bytes in use of ").num(chunks)
        .str(" mapped, MIB tables ").num(table_bytes()).str(" bytes").flush_to(2);
  }
  g_dump_lock.unlock();
  return 0;
}

void reset_profile() {
  if (g.compat) {
    g_dump_lock.lock();
    g_compat_appending = false;  // compiler-rt: the next dump truncates the file (A.11)
    g_dump_lock.unlock();
    return;
  }
  // Ends the current round: its file receives a final, complete snapshot, then the tables
  // start empty and later dumps go to a new file (".<round>" appended), so no earlier
  // profile is overwritten and no freed allocation is counted in two files.
  dump_profile(DumpReason::kRequest);
  g_dump_lock.lock();
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    state->lock.lock_other();
    table_clear(&state->mibs);
    state->lock.unlock_other();
  }
  ++g_epoch;
  g_dump_lock.unlock();
}

namespace {

// ---- interval dumps -------------------------------------------------------------------
// A thread of the runtime, not a clock check on the allocation path: a process that stops
// allocating still gets its profiles, and a dump never runs inside a malloc the dynamic
// loader makes while its link map is half updated (the dump reads it). The thread blocks
// every signal (process-directed signals go to the program's threads), is detached, and is
// started again in a forked child, which has only the forking thread.
void* interval_thread(void*) {
  ++tls_in_runtime;  // for its whole life: what it allocates (pthread internals) is untracked
  const int64_t period_ns = g.options.dump_interval.value * 1'000'000;
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    const int64_t at = next.tv_nsec + period_ns;
    next.tv_sec += at / 1'000'000'000;
    next.tv_nsec = at % 1'000'000'000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) == EINTR) {
    }
    dump_profile(DumpReason::kInterval);
    // A dump longer than the period: the next one a period after it, not at once.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
      next = now;
  }
  return nullptr;
}

}  // namespace

void prepare_dump() { decide_follow_verdict(); }

const char* profile_left_as_it_was() {
  return g_left_as_it_was[0] != '\0' ? g_left_as_it_was : nullptr;
}

void start_interval_dumps() {
  if (g.options.dump_interval.value <= 0 || g.compat || !follows_this_process()) return;
  RuntimeScope scope;
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);  // the new thread inherits this mask
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, size_t{256} << 10);
  pthread_t thread;
  const int e = pthread_create(&thread, &attr, interval_thread, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (e != 0) {
    LineWriter().str("profkit-memprof: error: cannot start the dump_interval thread (errno ")
        .num(static_cast<uint64_t>(e)).str("); only the exit profile will be written").flush_to(2);
    return;
  }
  pthread_setname_np(thread, "profkit-dump");
}

void dump_lock_for_fork() { g_dump_lock.lock(); }
void dump_unlock_after_fork(bool child) {
  g_dump_lock.unlock_after_fork(child);
}

void after_fork_child_tables() {
  g_epoch = 0;
  g_interval_seq = 1;
  g_compat_appending = false;
  if (g.compat) return;  // compiler-rt's child inherits everything
  // The parent reports what it freed before the fork and the blocks live at the fork; the
  // child starts empty and reports only blocks it allocated (heap.h, own_block).
  ++g.fork_generation;
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) table_clear(&thread_state_at(t)->mibs);
  start_interval_dumps();
}

}  // namespace profkit::rt

void __memprof_print_accumulated_stats(void) {
  using namespace profkit::rt;
  RuntimeScope scope;
  uint64_t allocs = 0, frees = 0, live = 0;
  WalkStats w;
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    allocs += state->allocs;
    frees += state->frees;
    w += state->walk_stats;
  }
  live = allocs > frees ? allocs - frees : 0;  // each block counts at its allocating and its freeing thread
  LineWriter().str("profkit-memprof: ").num(allocs).str(" tracked allocations, ").num(frees)
      .str(" frees, ").num(live).str(" live, ").num(depot_size() - 1).str(" stacks, ")
      .num(threads).str(" thread states, ").num(peak_snapshots()).str(" peak snapshots")
      .flush_to(2);
  LineWriter().str("profkit-memprof: stacks: ").num(w.captures).str(" walker captures, ")
      .num(w.exact_hits).str(" exact-cache hits (").num(w.exact_recent_hits).str(" at the call site's last two ways), ").num(w.exact_skipped).str(" not probed, ")
      .num(w.walks).str(" walks (").num(w.whole_replays).str(" whole replays, ").num(w.frames)
      .str(" frames, ").num(w.steps).str(" stepped), ").num(w.interned).str(" depot lookups (")
      .num(w.guess_hits).str(" guessed, ").num(w.inserted).str(" new), frame rules: ")
      .num(w.rules_shared).str(" from the shared table, ").num(w.rules_computed)
      .str(" rules computed; ").num(w.other_stacks).str(" walks on other stacks, ")
      .num(w.by_libunwind).str(" left to libunwind; ").num(w.fold_hits)
      .str(" folded ids from the fold cache").flush_to(2);
}
