// Dumps: collect every context's MIB (freed blocks from each thread's table, live blocks
// "as if freed now"), then write raw memprof v5 (spec B) or text (A.13). The writer sizes
// every section first, maps one buffer, fills it, and writes it to a temporary name that
// is renamed over the target, so a profile file is always whole.
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/abi.h"
#include "runtime/rt.h"

namespace profkit::rt {
namespace {

SpinLock g_dump_lock;
uint32_t g_epoch = 0;           // default mode: bumped by reset, names the next file
bool g_compat_appending = false;  // llvm_compat: this process already wrote the target
bool g_final_dump_done = false;

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

// ---- buffer writer -------------------------------------------------------------------
struct Buffer {
  uint8_t* data;
  uint64_t size;
  uint64_t pos;
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) data[pos++] = static_cast<uint8_t>(v >> (8 * i));
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) data[pos++] = static_cast<uint8_t>(v >> (8 * i));
  }
  void u16(uint16_t v) {
    data[pos++] = static_cast<uint8_t>(v);
    data[pos++] = static_cast<uint8_t>(v >> 8);
  }
  void bytes(const uint8_t* p, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) data[pos++] = p[i];
  }
  void pad8() {
    while (pos % 8) data[pos++] = 0;
  }
  void field(uint32_t v) { u32(v); }
  void field(uint64_t v) { u64(v); }
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

// Returns the fd to write to directly (stdout/stderr), or -1 with `path` filled.
int target(Path* path) {
  const int pid = getpid();
  if (g.options.output.value[0] != '\0') {
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
    path->add(base);
    if (g.options.log_exe_name.value) {
      char exe[4096];
      const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
      if (n > 0) {
        exe[n] = '\0';
        const char* name = exe;
        for (const char* p = exe; *p; ++p)
          if (*p == '/') name = p + 1;
        path->add(".").add(name);
      }
    }
    path->add(".").add_num(static_cast<uint64_t>(pid)).add(g.options.log_suffix.value);
  }
  if (g_epoch > 0) path->add(".").add_num(g_epoch);
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
    case EIO: return "input/output error";
    case ENOMEM: return "out of memory";
    default: return "system error";
  }
}

void report_write_error(const char* what, const char* path, int e) {
  LineWriter().str("profkit-memprof: error: ").str(what).str(" '").str(path).str("': ")
      .str(errno_name(e)).str(" (errno ").num(static_cast<uint64_t>(e)).str("); profile not written")
      .flush_to(2);
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

void emit(const uint8_t* data, uint64_t size) {
  Path path;
  const int direct = target(&path);
  if (direct >= 0) {
    if (!write_all(direct, data, size))
      report_write_error("cannot write profile to", direct == 1 ? "stdout" : "stderr", errno);
    return;
  }
  make_parent_dirs(path);
  Path temp;
  temp.add(path.bytes).add(".tmp.").add_num(static_cast<uint64_t>(getpid()));
  const int fd = open(temp.bytes, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0660);
  if (fd < 0) {
    report_write_error("cannot create", temp.bytes, errno);
    return;
  }
  bool ok = true;
  int error = 0;
  if (g.compat && g_compat_appending) {
    ok = copy_existing(path.bytes, fd);
    if (!ok) error = errno;
  }
  if (ok && !write_all(fd, data, size)) {
    ok = false;
    error = errno;
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && rename(temp.bytes, path.bytes) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    unlink(temp.bytes);
    report_write_error("cannot write profile", path.bytes, error);
    return;
  }
  if (g.compat) g_compat_appending = true;
}

// ---- text output (A.13) ----------------------------------------------------------------
struct TextOut {
  char* data;
  uint64_t capacity, size;
  void str(const char* s) {
    while (*s && size < capacity) data[size++] = *s++;
  }
  void num(uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (n > 0 && size < capacity) data[size++] = digits[--n];
  }
  void hex(uint64_t v) {
    char digits[16];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (n > 0 && size < capacity) data[size++] = digits[--n];
  }
  void average(uint64_t total, uint64_t count) {  // total / count with 2 decimals
    const uint64_t scaled = count ? total * 100 / count : 0;
    num(scaled / 100);
    str(".");
    if (scaled % 100 < 10) str("0");
    num(scaled % 100);
  }
};

void write_text(const MibTable& table) {
  const bool terse = g.options.print_terse.value;
  uint64_t capacity = 64 + uint64_t{table.size} * (600 + 40 * 256);
  for (uint32_t i = 0; i < table.capacity; ++i)
    if (table.entries[i].context_id) capacity += 12ull * table.entries[i].mib.AccessHistogramSize;
  const uint64_t mapped = (capacity + 4095) & ~uint64_t{4095};
  auto* data = static_cast<char*>(os_map(mapped));
  if (data == nullptr) {
    report_write_error("cannot allocate the text profile for", "output", ENOMEM);
    return;
  }
  TextOut out{data, capacity, 0};
  if (!terse) out.str("Recorded MIBs (incl. live on exit):\n");
  for (uint32_t i = 0; i < table.capacity; ++i) {
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
  emit(reinterpret_cast<const uint8_t*>(data), out.size);
  os_unmap(data, mapped);
}

// ---- raw output (B) ------------------------------------------------------------------
void write_raw(const MibTable& table, const SegmentList& segments) {
  uint64_t mib_count = 0, histogram_entries = 0, stack_bytes = 8;
  for (uint32_t i = 0; i < table.capacity; ++i) {
    const MibEntry& e = table.entries[i];
    uint32_t n = 0;
    if (e.context_id == 0 || depot_stack(e.context_id, &n) == nullptr) continue;
    ++mib_count;
    histogram_entries += e.mib.AccessHistogramSize;
    stack_bytes += 16 + 8 * uint64_t{n};
  }
  constexpr uint64_t kMibSize = memprof::raw_mib_size(5);
  const uint64_t segment_bytes = round8(8 + segments.count * memprof::kSegmentEntrySizeV3);
  const uint64_t mib_bytes = round8(8 + mib_count * (8 + kMibSize) + 2 * histogram_entries);
  const uint64_t total = round8(memprof::kRawHeaderSize + segment_bytes + mib_bytes + round8(stack_bytes));
  const uint64_t mapped = (total + 4095) & ~uint64_t{4095};
  auto* data = static_cast<uint8_t*>(os_map(mapped));
  if (data == nullptr) {
    LineWriter().str("profkit-memprof: error: cannot map ").num(total)
        .str(" bytes for the profile; profile not written").flush_to(2);
    return;
  }
  Buffer out{data, total, 0};
  out.u64(memprof::kRawMagic);
  out.u64(5);
  out.u64(total);
  out.u64(memprof::kRawHeaderSize);
  out.u64(memprof::kRawHeaderSize + segment_bytes);
  out.u64(memprof::kRawHeaderSize + segment_bytes + mib_bytes);
  out.u64(segments.count);
  for (uint32_t i = 0; i < segments.count; ++i) {
    const Segment& s = segments.items[i];
    out.u64(s.start);
    out.u64(s.end);
    out.u64(s.offset);
    out.u64(s.build_id_size);
    out.bytes(s.build_id, 32);
  }
  out.pad8();
  out.u64(mib_count);
  for (uint32_t i = 0; i < table.capacity; ++i) {
    const MibEntry& e = table.entries[i];
    uint32_t n = 0;
    if (e.context_id == 0 || depot_stack(e.context_id, &n) == nullptr) continue;
    out.u64(e.context_id);
    MemInfoBlock m = e.mib;
    m.AccessHistogram = 0;  // a runtime pointer in LLVM's files; readers ignore it
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First) out.field(static_cast<Type>(m.Name));
#include "format/memprof/mib_fields.def"
    const auto* h = reinterpret_cast<const uint64_t*>(e.mib.AccessHistogram);
    for (uint32_t k = 0; k < e.mib.AccessHistogramSize; ++k)
      out.u16(memprof::encode_histogram_count(h[k]));
  }
  out.pad8();
  out.u64(mib_count);
  for (uint32_t i = 0; i < table.capacity; ++i) {
    const MibEntry& e = table.entries[i];
    uint32_t n = 0;
    const uintptr_t* pcs = e.context_id ? depot_stack(e.context_id, &n) : nullptr;
    if (pcs == nullptr) continue;
    out.u64(e.context_id);
    out.u64(n);
    for (uint32_t k = 0; k < n; ++k) out.u64(pcs[k] - 1);  // return address - 1 (A.10)
  }
  out.pad8();
  while (out.pos < total) out.data[out.pos++] = 0;
  emit(data, total);
  os_unmap(data, mapped);
}

}  // namespace

int dump_profile(bool at_exit) {
  RuntimeScope scope;
  g_dump_lock.lock();
  if (g_final_dump_done) {  // nothing after the exit dump (its data is already written)
    g_dump_lock.unlock();
    return 0;
  }
  SegmentList segments{static_cast<Segment*>(os_map(sizeof(Segment) * kMaxSegments)), 0};
  if (segments.items != nullptr) dl_iterate_phdr(collect_segment, &segments);
  const uint32_t ts = now_ms();
  const uint32_t cpu = current_cpu();
  MibTable table;
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    state->lock.lock();
    for (uint32_t i = 0; i < state->mibs.capacity; ++i) {
      const MibEntry& e = state->mibs.entries[i];
      if (e.context_id != 0) merge_aggregate(&table, e.context_id, e.mib);
    }
    // llvm_compat: each dump takes the freed data out of the tables (A.11); by default
    // every dump is a complete snapshot that replaces the previous file.
    if (g.compat) table_clear(&state->mibs);
    for (uint32_t s = 0; s < state->slots_used; ++s) {
      const uintptr_t v = state->slots[s];
      if (v == 0 || (v & 1)) continue;
      const auto* header = reinterpret_cast<const ChunkHeader*>(v);
      record_block(&table, header, v + sizeof(ChunkHeader), ts, cpu);
    }
    state->lock.unlock();
  }
  if (g.options.print_text.value || g.options.print_terse.value)
    write_text(table);
  else if (segments.items != nullptr)
    write_raw(table, segments);
  if (segments.items != nullptr) os_unmap(segments.items, sizeof(Segment) * kMaxSegments);
  table_release(&table);
  if (at_exit) g_final_dump_done = true;
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
  dump_profile(false);
  g_dump_lock.lock();
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    state->lock.lock();
    table_clear(&state->mibs);
    state->lock.unlock();
  }
  ++g_epoch;
  g_dump_lock.unlock();
}

void dump_lock_for_fork() { g_dump_lock.lock(); }
void dump_unlock_after_fork(bool child) {
  if (child)
    g_dump_lock.reset();
  else
    g_dump_lock.unlock();
}

void after_fork_child_tables() {
  g_epoch = 0;
  g_compat_appending = false;
  if (g.compat) return;  // compiler-rt's child inherits everything
  // The parent reports what it freed before the fork; the child starts empty.
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) table_clear(&thread_state_at(t)->mibs);
}

}  // namespace profkit::rt

void __memprof_print_accumulated_stats(void) {
  using namespace profkit::rt;
  RuntimeScope scope;
  uint64_t allocs = 0, frees = 0, live = 0;
  const uint32_t threads = thread_state_count();
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadState* state = thread_state_at(t);
    allocs += state->allocs;
    frees += state->frees;
    live += state->live_count;
  }
  LineWriter().str("profkit-memprof: ").num(allocs).str(" tracked allocations, ").num(frees)
      .str(" frees, ").num(live).str(" live, ").num(depot_size() - 1).str(" stacks, ")
      .num(threads).str(" thread states").flush_to(2);
}
