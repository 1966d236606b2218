// ELF files through libelf (segments, build ids, debug links); their DWARF through
// SourceMap (symbolize/source_map.h), as llvm-symbolizer reports frames: line and column
// from the line table (innermost level) and from DW_AT_call_line / DW_AT_call_column (outer
// levels).
#include "symbolize/memprof_symbolizer.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "format/bytes/number_text.h"
#include "format/elf/elf_file.h"
#include "symbolize/source_map.h"

namespace profkit::symbolize {

struct MemProfSymbolizer::Binary {
  std::string path;
  int fd = -1;
  Elf* elf = nullptr;
  bool dwarf_tried = false;
  // The separate debug file found for a binary without DWARF (see open_debug_file).
  int debug_fd = -1;
  Elf* debug_elf = nullptr;
  // The DWARF of `elf`, or of `debug_elf` when the binary has none; null when neither has
  // any (or it cannot be read).
  std::unique_ptr<dwarf::ElfDwarf> debug_info;
  std::vector<dwarf::SourceFrame> scratch;
  std::vector<uint8_t> build_id;
  struct ExecLoad {
    uint64_t vaddr, memsz, offset;
  };
  std::vector<ExecLoad> exec_loads;
  // What a frame needs from its function (by name; a function's PCs share it): D.4's
  // canonical name and its MD5.
  struct FunctionInfo {
    std::string canonical_name;
    uint64_t guid = 0;
  };
  std::unordered_map<std::string_view, FunctionInfo> functions;
  bool matched = false;
  // Function symbols by address (read on first use, for MemProfSymbolizerOptions::symbol_tables).
  struct Symbol {
    uint64_t address, size;
    std::string name;
  };
  std::vector<Symbol> symbols;
  bool symbols_read = false;
  std::set<std::string> names;  // the names symbol_frame gave (`functions` keeps views of them)

  ~Binary() {
    if (debug_elf != nullptr) elf_end(debug_elf);
    if (debug_fd >= 0) close(debug_fd);
    if (elf != nullptr) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

namespace {

using Binary = MemProfSymbolizer::Binary;

Unexpected fail(std::string message) {
  return make_error(ErrorCode::invalid_argument, kNoOffset, std::move(message));
}

// Opens an ELF file and reads its build id and executable PT_LOADs. DWARF is indexed
// lazily (only binaries that match a segment need it).
Expected<std::unique_ptr<Binary>> open_binary(const std::string& path) {
  auto b = std::make_unique<Binary>();
  b->path = path;
  b->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (b->fd < 0) return fail("cannot open profiled binary " + path + ": " + std::strerror(errno));
  b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, nullptr);
  if (b->elf == nullptr || elf_kind(b->elf) != ELF_K_ELF)
    return fail("Not an ELF file: " + path);
  GElf_Ehdr ehdr;
  if (gelf_getehdr(b->elf, &ehdr) == nullptr) return fail("Not an ELF file: " + path);
  if (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_386)
    return fail("Unsupported target (not x86) in " + path);
  size_t phnum = 0;
  if (elf_getphdrnum(b->elf, &phnum) != 0) return fail("cannot read program headers of " + path);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(b->elf, static_cast<int>(i), &ph) == nullptr) continue;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) != 0)
      b->exec_loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset});
  }
  const void* id = nullptr;
  const ssize_t id_size = dwelf_elf_gnu_build_id(b->elf, &id);
  if (id_size > 0) {
    const auto* p = static_cast<const uint8_t*>(id);
    b->build_id.assign(p, p + id_size);
  }
  return b;
}

// Uses `path` as b's separate debug file if it is an ELF file and, when `crc` is given,
// its CRC-32 (zlib's, as .gnu_debuglink stores it) matches.
bool use_debug_file(Binary& b, const std::string& path, const GElf_Word* crc) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  bool ok = elf != nullptr && elf_kind(elf) == ELF_K_ELF;
  if (ok && crc != nullptr) {
    size_t size = 0;
    const char* bytes = elf_rawfile(elf, &size);
    uLong sum = crc32(0, nullptr, 0);
    for (size_t at = 0; bytes != nullptr && at < size;) {  // crc32 takes a uInt length
      const size_t n = std::min<size_t>(size - at, 1u << 30);
      sum = crc32(sum, reinterpret_cast<const Bytef*>(bytes + at), static_cast<uInt>(n));
      at += n;
    }
    ok = bytes != nullptr && sum == *crc;
  }
  if (!ok) {
    if (elf != nullptr) elf_end(elf);
    close(fd);
    return false;
  }
  b.debug_fd = fd;
  b.debug_elf = elf;
  return true;
}

// A binary without DWARF may have it in a separate debug file. Looked for where GDB and
// llvm-symbolizer look: by build id under /usr/lib/debug/.build-id/, then by the
// .gnu_debuglink name (whose CRC must match) in the binary's directory, its .debug/
// subdirectory and /usr/lib/debug/ followed by that directory.
void open_debug_file(Binary& b) {
  if (b.build_id.size() >= 2) {
    const std::string hex = build_id_hex(b.build_id);
    if (use_debug_file(b, "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) +
                              ".debug",
                       nullptr))
      return;
  }
  GElf_Word crc = 0;
  const char* link = dwelf_elf_gnu_debuglink(b.elf, &crc);
  if (link == nullptr || *link == '\0') return;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(b.path, ec).parent_path();
  if (ec) return;
  for (const std::filesystem::path& candidate :
       {dir / link, dir / ".debug" / link,
        std::filesystem::path("/usr/lib/debug") / dir.relative_path() / link}) {
    if (use_debug_file(b, candidate.string(), &crc)) return;
  }
}

// The DWARF sections of an opened ELF file, or nothing when it has no .debug_info or they
// cannot be read (such a binary's PCs count as having no debug information).
bool read_dwarf(Binary& b, Elf* elf) {
  size_t size = 0;
  const char* bytes = elf_rawfile(elf, &size);
  if (bytes == nullptr) return false;
  auto found = dwarf::read_elf_dwarf(Bytes(reinterpret_cast<const uint8_t*>(bytes), size));
  if (!found || *found == nullptr) return false;
  b.debug_info = std::move(*found);
  return true;
}

void index_dwarf(Binary& b) {
  if (b.dwarf_tried) return;
  b.dwarf_tried = true;
  if (read_dwarf(b, b.elf)) return;
  open_debug_file(b);
  if (b.debug_elf != nullptr) read_dwarf(b, b.debug_elf);
}

std::string_view basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const Binary::FunctionInfo& function_info(Binary& b, std::string_view name) {
  auto [it, fresh] = b.functions.try_emplace(name);
  if (fresh) {
    it->second.canonical_name = memprof::canonical_function_name(name);
    it->second.guid = memprof::function_guid(it->second.canonical_name);
  }
  return it->second;
}

// The function symbols of the binary's .symtab, or of its .dynsym when it has none
// (stripped), sorted by address; read with format/elf's reader (none where it fails).
void read_symbols(Binary& b) {
  if (b.symbols_read) return;
  b.symbols_read = true;
  size_t size = 0;
  const char* bytes = elf_rawfile(b.elf, &size);
  if (bytes == nullptr) return;
  auto file = elf::ElfFile::parse(Bytes(reinterpret_cast<const uint8_t*>(bytes), size));
  if (!file) return;
  for (auto table : {&elf::ElfFile::static_symbols, &elf::ElfFile::dynamic_symbols}) {
    auto symbols = ((*file).*table)();
    if (!symbols) continue;
    for (const elf::Symbol& sym : *symbols)
      if ((sym.type == elf::kSttFunc || sym.type == elf::kSttGnuIfunc) &&
          sym.is_defined_in_section() && sym.value != 0 && !sym.name.empty())
        b.symbols.push_back({sym.value, sym.size, std::string(sym.name)});
    if (!b.symbols.empty()) break;
  }
  std::stable_sort(b.symbols.begin(), b.symbols.end(),
                   [](const Binary::Symbol& x, const Binary::Symbol& y) {
                     return x.address < y.address;
                   });
}

// One frame for `addr` from the binary's symbol table: the function symbol covering it (a
// symbol of size 0 covers up to the next one), else "<file>+0x<addr>".
void symbol_frame(Binary& b, uint64_t addr, memprof::SymbolizedPc& out) {
  read_symbols(b);
  auto after = std::upper_bound(
      b.symbols.begin(), b.symbols.end(), addr,
      [](uint64_t a, const Binary::Symbol& sym) { return a < sym.address; });
  std::string name;
  if (after != b.symbols.begin()) {
    const Binary::Symbol& sym = *(after - 1);
    const bool next_starts_later = after == b.symbols.end() || after->address > addr;
    if (addr - sym.address < sym.size || (sym.size == 0 && next_starts_later)) name = sym.name;
  }
  if (name.empty()) {
    char hex[32];
    snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(addr));
    name = std::string(basename_of(b.path)) + hex;
  }
  const std::string& kept = *b.names.insert(std::move(name)).first;  // functions keys views
  const Binary::FunctionInfo& fn = function_info(b, kept);
  memprof::Frame f;
  f.function = fn.guid;
  out.frames.push_back(f);
  out.names.push_back(fn.canonical_name);
  out.sources.push_back(memprof::SourceLocation{std::string(), 0, 0});
}

enum class Drop { none, no_debug_info, runtime };

// Symbolizes a binary address. Returns the reason when dropped.
Drop lookup(Binary& b, uint64_t addr, memprof::SymbolizedPc& out) {
  index_dwarf(b);
  if (b.debug_info == nullptr) return Drop::no_debug_info;
  dwarf::SourceMap& sources = b.debug_info->map;
  std::vector<dwarf::SourceFrame>& frames = b.scratch;
  if (!sources.frames(addr, frames) || frames.empty()) return Drop::no_debug_info;
  if (frames.front().function.empty() || !frames.front().has_row)
    return Drop::no_debug_info;
  std::string file = sources.file_path(frames.front());
  if (file.empty()) return Drop::no_debug_info;
  static constexpr std::string_view kRuntimeFiles[] = {
      "memprof_malloc_linux.cpp", "memprof_interceptors.cpp", "memprof_new_delete.cpp"};
  const std::string_view base = basename_of(file);
  for (std::string_view r : kRuntimeFiles)
    if (base == r) return Drop::runtime;

  // Innermost first; an outer frame's line is the call site of the frame inside it.
  for (size_t k = 0; k < frames.size(); ++k) {
    const dwarf::SourceFrame& sf = frames[k];
    const Binary::FunctionInfo& fn = function_info(b, sf.function);
    if (k != 0) file = sources.file_path(sf);
    memprof::Frame f;
    f.function = fn.guid;
    f.line_offset = sf.line - sf.start_line;
    f.column = sf.column;
    f.is_inline = k + 1 != frames.size();
    out.frames.push_back(f);
    out.names.push_back(fn.canonical_name);
    out.sources.push_back(memprof::SourceLocation{std::move(file), sf.line, sf.column});
  }
  return Drop::none;
}

// LLVM's words, then the build id the binary has and the one the profile needs (its
// executable's: the first segment with a build id), so a wrong binary is seen at once.
std::string no_matching_segments(const std::string& path, const std::vector<uint8_t>& has,
                                 std::span<const memprof::Segment> segments) {
  std::string needed;
  for (const auto& seg : segments)
    if (!seg.build_id.empty()) {
      needed = build_id_hex(seg.build_id);
      break;
    }
  return "No matching executable segments found in binary " + path + ": its build id is " +
         build_id_hex(has) + ", the profile needs " +
         (needed.empty() ? std::string("a binary it names by build id (it names none)")
                         : needed + " (the profiled executable)");
}

void collect_files(const std::string& path, std::vector<std::string>& files) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    files.push_back(path);
    return;
  }
  for (auto it = std::filesystem::recursive_directory_iterator(
           path, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  }
}

}  // namespace

std::string build_id_hex(std::span<const uint8_t> id) { return hex_bytes(id); }

std::map<std::string, std::string> find_system_objects(const std::set<std::string>& ids) {
  elf_version(EV_CURRENT);
  std::map<std::string, std::string> found;
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                          "/usr/lib64", "/usr/local/lib"}) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator() && found.size() < ids.size();
         it.increment(ec)) {
      const std::string path = it->path().string();
      if (path.find(".so") == std::string::npos || !it->is_regular_file(ec)) continue;
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr); elf != nullptr) {
        const void* id = nullptr;
        const ssize_t n = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &id) : -1;
        if (n > 0) {
          const std::string hex = build_id_hex({static_cast<const uint8_t*>(id), static_cast<size_t>(n)});
          if (ids.count(hex) != 0) found.try_emplace(hex, path);
        }
        elf_end(elf);
      }
      close(fd);
    }
  }
  return found;
}

MemProfSymbolizer::~MemProfSymbolizer() = default;

Expected<std::unique_ptr<MemProfSymbolizer>> MemProfSymbolizer::create(
    const std::vector<std::string>& paths, std::span<const memprof::Segment> segments,
    uint64_t raw_version, const MemProfSymbolizerOptions& options) {
  elf_version(EV_CURRENT);
  std::unique_ptr<MemProfSymbolizer> s(new MemProfSymbolizer());
  s->llvm_compatible_ = options.llvm_compatible;
  s->symbol_tables_ = options.symbol_tables;
  if (paths.empty()) {
    std::string msg =
        "Path to profiled binary is empty, expected binary with one of the following build ids:";
    std::set<std::string> ids;
    for (const auto& seg : segments)
      if (!seg.build_id.empty()) ids.insert(build_id_hex(seg.build_id));
    for (const auto& id : ids) msg += " BuildId: " + id;
    return fail(msg);
  }
  std::vector<std::string> files;
  std::set<std::string> explicit_files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) explicit_files.insert(p);
    collect_files(p, files);
  }
  for (const auto& path : files) {
    auto opened = open_binary(path);
    if (!opened) {
      if (explicit_files.count(path) != 0) return Unexpected{std::move(opened).error()};
      continue;  // directory entries that are not x86 ELF files are skipped
    }
    std::unique_ptr<Binary> b = std::move(*opened);
    if (b->exec_loads.empty()) {
      if (explicit_files.count(path) != 0)
        return fail("no executable load segment in the binary " + path);
      continue;
    }
    if (raw_version < 3) {
      // v1/v2 segments carry no build ids: match the mapping that contains the executable
      // PT_LOAD's file offset (the first such mapping wins).
      if (explicit_files.count(path) == 0) continue;
      for (const auto& seg : segments) {
        const auto& load = b->exec_loads.front();
        const uint64_t page_off = load.offset & ~uint64_t{0xfff};
        if (seg.offset == page_off) {
          s->mappings_.push_back(
              {seg.start, seg.end, load.vaddr - (load.offset - page_off), b.get()});
          b->matched = true;
          break;
        }
      }
    } else {
      if (b->build_id.empty()) {
        if (explicit_files.count(path) != 0) return fail("No build id found in binary " + path);
        continue;
      }
      std::vector<const memprof::Segment*> matches;
      for (const auto& seg : segments)
        if (!seg.build_id.empty() && seg.build_id == b->build_id) matches.push_back(&seg);
      if (s->llvm_compatible_) {
        if (matches.empty()) return fail(no_matching_segments(path, b->build_id, segments));
        if (matches.size() > 1)
          return fail("We expect only one executable segment in the profiled binary " + path);
        if (b->exec_loads.size() != 1)
          return fail("Expect only one executable load segment in the binary " + path);
      }
      for (const memprof::Segment* seg : matches) {
        uint64_t vaddr = b->exec_loads.front().vaddr;
        if (b->exec_loads.size() > 1) {
          // Several executable PT_LOADs: pick the one at Start - load bias.
          for (const auto& load : b->exec_loads)
            if (load.vaddr == seg->start - seg->offset) vaddr = load.vaddr;
        }
        s->mappings_.push_back({seg->start, seg->end, vaddr, b.get()});
        b->matched = true;
      }
      if (matches.empty() && explicit_files.count(path) != 0 && paths.size() == 1)
        return fail(no_matching_segments(path, b->build_id, segments));
    }
    if (b->matched) s->binaries_.push_back(std::move(b));
  }
  if (s->mappings_.empty())
    return fail("no profiled binary matches a segment of the raw profile (by build id)");
  return s;
}

const memprof::SymbolizedPc* MemProfSymbolizer::symbolize(uint64_t pc) {
  auto [it, inserted] = cache_.try_emplace(pc);
  if (!inserted) return it->second.get();
  ++stats_.pcs;
  const Mapping* m = nullptr;
  for (const Mapping& map : mappings_)
    if (pc > map.start && pc <= map.end) m = &map;
  uint64_t addr = pc;
  Binary* b = nullptr;
  if (m != nullptr) {
    addr = pc - m->start + m->vaddr;
    b = m->binary;
  } else if (llvm_compatible_ && mappings_.size() == 1) {
    b = mappings_.front().binary;  // llvm-profdata looks such PCs up unchanged
  }
  if (b == nullptr) {
    ++stats_.outside_binaries;
    return nullptr;
  }
  auto result = std::make_unique<memprof::SymbolizedPc>();
  switch (lookup(*b, addr, *result)) {
    case Drop::none:
      ++stats_.symbolized;
      it->second = std::move(result);
      return it->second.get();
    case Drop::no_debug_info:
      if (m == nullptr) {
        ++stats_.outside_binaries;
      } else if (symbol_tables_ && b->debug_info == nullptr) {  // no DWARF at all: stripped
        ++stats_.from_symbol_tables;
        symbol_frame(*b, addr, *result);
        it->second = std::move(result);
        return it->second.get();
      } else {
        ++stats_.no_debug_info;
      }
      return nullptr;
    case Drop::runtime:
      ++stats_.runtime_frames;
      return nullptr;
  }
  return nullptr;
}

std::map<std::string, std::string> MemProfSymbolizer::matched_binaries_by_build_id() const {
  std::map<std::string, std::string> out;
  for (const auto& b : binaries_) out.try_emplace(build_id_hex(b->build_id), b->path);
  return out;
}

std::vector<std::string> MemProfSymbolizer::matched_binaries() const {
  std::vector<std::string> out;
  for (const auto& b : binaries_) out.push_back(b->path);
  return out;
}

}  // namespace profkit::symbolize
