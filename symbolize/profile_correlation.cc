// Correlation data from a binary's sections or from its DWARF (libdw).
#include "symbolize/profile_correlation.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "format/bytes/hash.h"
#include "format/bytes/number_text.h"
#include "format/elf/elf_file.h"

namespace profkit::symbolize {

namespace {

// The DWARF tag LLVM gives `annotation` metadata (DW_TAG_LLVM_annotation, not in dwarf.h).
constexpr int kTagLlvmAnnotation = 0x6000;
// The names of the annotations clang's -profile-correlate=debug-info puts under each
// __profc_ variable, and the prefix of those variables.
constexpr std::string_view kFunctionNameAnnotation = "Function Name";
constexpr std::string_view kCfgHashAnnotation = "CFG Hash";
constexpr std::string_view kNumCountersAnnotation = "Num Counters";
constexpr std::string_view kCountersVarPrefix = "__profc_";
// Deeper DIE trees than this are not walked (clang's are a few levels deep).
constexpr int kMaxDieDepth = 512;

Error correlation_error(std::string message) {
  return Error{ErrorCode::malformed, kNoOffset, "unable to correlate profile: " + std::move(message)};
}

std::string hex(uint64_t v) {
  std::string s = "0x";
  append_hex(s, v);
  return s;
}

// A read-only mapping of a whole file.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() {
    if (data_ != nullptr) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  Expected<void> open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return make_error(ErrorCode::io, kNoOffset, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return make_error(ErrorCode::io, kNoOffset, std::strerror(errno));
    if (!S_ISREG(st.st_mode))
      return make_error(ErrorCode::io, kNoOffset, "not a regular file");
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) return make_error(ErrorCode::io, kNoOffset, std::strerror(errno));
      data_ = p;
    }
    return {};
  }
  Bytes bytes() const { return Bytes(static_cast<const uint8_t*>(data_), size_); }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

// The first address a location expression names (DW_OP_addr or DW_OP_addrx), if any.
std::optional<uint64_t> variable_address(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, DW_AT_location, &attr) == nullptr) return std::nullopt;
  Dwarf_Addr base = 0, start = 0, end = 0;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  ptrdiff_t offset = 0;
  while ((offset = dwarf_getlocations(&attr, offset, &base, &start, &end, &ops, &nops)) > 0) {
    for (size_t i = 0; i < nops; ++i) {
      if (ops[i].atom == DW_OP_addr) return ops[i].number;
      if (ops[i].atom == DW_OP_addrx || ops[i].atom == DW_OP_GNU_addr_index) {
        Dwarf_Attribute result;
        Dwarf_Addr addr = 0;
        if (dwarf_getlocation_attr(&attr, &ops[i], &result) == 0 &&
            dwarf_formaddr(&result, &addr) == 0)
          return addr;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> string_attr(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, name, &attr) == nullptr) return std::nullopt;
  const char* s = dwarf_formstring(&attr);
  if (s == nullptr) return std::nullopt;
  return std::string_view(s);
}

std::optional<uint64_t> unsigned_attr(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  Dwarf_Word v = 0;
  if (dwarf_attr(die, name, &attr) == nullptr || dwarf_formudata(&attr, &v) != 0)
    return std::nullopt;
  return v;
}

template <class T>
std::string or_none(const std::optional<T>& v) {
  if (!v) return "none";
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string(*v);
  } else {
    return hex(*v);
  }
}

struct ProbeWalk {
  uint64_t counters_begin = 0;
  uint64_t counters_end = 0;
  instrprof::CorrelationWarnings* warnings = nullptr;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  std::string comp_dir;
  std::vector<DebugInfoProbe>* out = nullptr;

  // The subprogram's declaration file as its line table names it, relative to the
  // compilation directory when it lies inside it.
  std::string decl_file(Dwarf_Die* fn) const {
    const auto index = unsigned_attr(fn, DW_AT_decl_file);
    if (!index || files == nullptr || *index >= nfiles) return "";
    const char* path = dwarf_filesrc(files, *index, nullptr, nullptr);
    if (path == nullptr) return "";
    std::string_view p(path);
    if (!comp_dir.empty() && p.size() > comp_dir.size() + 1 && p.starts_with(comp_dir) &&
        p[comp_dir.size()] == '/')
      p.remove_prefix(comp_dir.size() + 1);
    return std::string(p);
  }

  // A probe is a DW_TAG_variable named __profc_* with children, directly in a subprogram.
  void visit_variable(Dwarf_Die* var, Dwarf_Die* fn) {
    if (dwarf_haschildren(var) <= 0) return;
    const char* name = dwarf_diename(var);
    if (name == nullptr || !std::string_view(name).starts_with(kCountersVarPrefix)) return;
    std::optional<std::string_view> function_name;
    std::optional<uint64_t> cfg_hash, num_counters;
    const std::optional<uint64_t> counter_ptr = variable_address(var);
    std::optional<uint64_t> function_ptr;
    {
      Dwarf_Attribute attr;
      Dwarf_Addr a = 0;
      if (dwarf_attr(fn, DW_AT_low_pc, &attr) != nullptr && dwarf_formaddr(&attr, &a) == 0)
        function_ptr = a;
    }
    Dwarf_Die child;
    if (dwarf_child(var, &child) == 0) {
      do {
        if (dwarf_tag(&child) != kTagLlvmAnnotation) continue;
        const auto key = string_attr(&child, DW_AT_name);
        if (!key) continue;
        Dwarf_Attribute value;
        if (dwarf_attr(&child, DW_AT_const_value, &value) == nullptr) continue;
        if (*key == kFunctionNameAnnotation) {
          function_name = string_attr(&child, DW_AT_const_value);
        } else if (*key == kCfgHashAnnotation) {
          cfg_hash = unsigned_attr(&child, DW_AT_const_value);
        } else if (*key == kNumCountersAnnotation) {
          num_counters = unsigned_attr(&child, DW_AT_const_value);
        }
      } while (dwarf_siblingof(&child, &child) == 0);
    }
    // Neither code nor counters: the linker dropped the function.
    if (!function_ptr && !counter_ptr) return;
    if (!function_name || !cfg_hash || !counter_ptr || !num_counters) {
      warnings->warn("incomplete DIE for function " + or_none(function_name) +
                     ": CFG Hash=" + or_none(cfg_hash) + ", counter address=" +
                     or_none(counter_ptr) + ", Num Counters=" + or_none(num_counters));
      return;
    }
    if (*counter_ptr < counters_begin || *counter_ptr >= counters_end) {
      warnings->warn("counter address " + hex(*counter_ptr) + " of function " +
                     std::string(*function_name) + " is outside __llvm_prf_cnts [" +
                     hex(counters_begin) + ", " + hex(counters_end) + ")");
      return;
    }
    if (!function_ptr)
      warnings->warn("could not find the address of function " + std::string(*function_name));
    DebugInfoProbe p;
    p.function_name.assign(*function_name);
    if (const char* linkage = dwarf_diename(fn); linkage != nullptr) p.linkage_name = linkage;
    for (unsigned at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
      if (auto l = string_attr(fn, at)) {
        p.linkage_name.assign(*l);
        break;
      }
    }
    p.cfg_hash = *cfg_hash;
    p.counter_offset = *counter_ptr - counters_begin;
    p.function_ptr = function_ptr.value_or(0);
    p.num_counters = static_cast<uint32_t>(*num_counters);
    p.decl_file = decl_file(fn);
    if (auto line = unsigned_attr(fn, DW_AT_decl_line)) p.decl_line = static_cast<uint32_t>(*line);
    out->push_back(std::move(p));
  }

  // Pre-order over the children of `parent` (DIE order, as LLVM walks a unit's DIEs).
  void walk(Dwarf_Die* parent, bool parent_is_subprogram, int depth) {
    if (depth > kMaxDieDepth) return;
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      const int tag = dwarf_tag(&child);
      if (tag == DW_TAG_variable && parent_is_subprogram) visit_variable(&child, parent);
      if (dwarf_haschildren(&child) > 0) walk(&child, tag == DW_TAG_subprogram, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
  }
};

// The address range of __llvm_prf_cnts.
Expected<std::pair<uint64_t, uint64_t>> counter_section(Bytes file) {
  PROFKIT_TRY_ASSIGN(const elf::ElfFile elf, elf::ElfFile::parse(file));
  const elf::SectionHeader* s = elf.find_section(instrprof::kCountersSection);
  if (s == nullptr)
    return Unexpected{correlation_error("could not find section (" +
                                        std::string(instrprof::kCountersSection) + ")")};
  return std::pair<uint64_t, uint64_t>(s->address, s->address + s->size);
}

Expected<std::vector<DebugInfoProbe>> probes_of(const FileBytes& file,
                                                instrprof::CorrelationWarnings& warnings) {
  PROFKIT_TRY_ASSIGN(const auto range, counter_section(file.bytes()));
  std::vector<DebugInfoProbe> probes;
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.bytes().data())),
                        file.bytes().size());
  if (elf == nullptr) return Unexpected{correlation_error("not an object file")};
  Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (dwarf != nullptr) {
    Dwarf_Off off = 0, next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf, off, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf, off + header_size, &cu) != nullptr) {
        ProbeWalk w;
        w.counters_begin = range.first;
        w.counters_end = range.second;
        w.warnings = &warnings;
        w.out = &probes;
        if (dwarf_getsrcfiles(&cu, &w.files, &w.nfiles) != 0) w.files = nullptr;
        if (auto dir = string_attr(&cu, DW_AT_comp_dir)) w.comp_dir.assign(*dir);
        w.walk(&cu, false, 0);
      }
      off = next;
    }
    dwarf_end(dwarf);
  }
  elf_end(elf);
  warnings.finish();
  return probes;
}

}  // namespace

Expected<std::vector<DebugInfoProbe>> read_debug_info_probes(
    const std::string& path, instrprof::CorrelationWarnings& warnings) {
  FileBytes file;
  PROFKIT_TRY(file.open(path));
  return probes_of(file, warnings);
}

Expected<instrprof::Correlation> load_correlation(const std::string& path,
                                                  CorrelationSource source,
                                                  instrprof::CorrelationWarnings& warnings) {
  FileBytes file;
  PROFKIT_TRY(file.open(path));
  if (source == CorrelationSource::binary) return instrprof::correlate_binary(file.bytes(), warnings);
  PROFKIT_TRY_ASSIGN(std::vector<DebugInfoProbe> probes, probes_of(file, warnings));
  instrprof::Correlation c;
  std::unordered_set<uint64_t> seen;
  std::vector<std::string> names;
  names.reserve(probes.size());
  for (const DebugInfoProbe& p : probes) {
    instrprof::CorrelatedFunction f;
    f.name_ref = md5_name_ref(p.function_name);
    f.hash = p.cfg_hash;
    f.counter_offset = p.counter_offset;
    f.function_ptr = p.function_ptr;
    f.num_counters = p.num_counters;
    instrprof::add_correlated_function(c, f, seen);
    names.push_back(p.function_name);
  }
  if (c.functions.empty())
    return Unexpected{
        correlation_error("could not find any profile data metadata in correlated file")};
  c.names_blob = instrprof::encode_names_blob(names);
  return c;
}

}  // namespace profkit::symbolize
