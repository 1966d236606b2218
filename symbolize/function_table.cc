// GUID -> function table from DWARF (SourceMap) and ELF symbols (libelf).
#include "symbolize/function_table.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "format/memprof/records.h"
#include "symbolize/source_map.h"

namespace profkit::symbolize {
namespace {

void add_function(FunctionTable& table, std::string_view raw_name, std::string_view file,
                  uint32_t line) {
  const std::string_view canonical = memprof::canonical_function_name(raw_name);
  if (canonical.empty()) return;
  FunctionInfo& info = table[memprof::function_guid(canonical)];
  if (info.name.empty()) info.name = canonical;
  if (info.decl_line == 0 && line > 0) {
    info.decl_line = line;
    info.decl_file = file;
  }
}

void add_symbols(Elf* elf, FunctionTable& table) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name != nullptr) add_function(table, name, {}, 0);
    }
  }
}

// Adds the functions of one file; false if it is not an ELF file.
bool add_file(const std::string& path, FunctionTable& table) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    if (elf != nullptr) elf_end(elf);
    close(fd);
    return false;
  }
  // Every subprogram DIE, in unit and DIE order; DWARF that cannot be read adds nothing.
  size_t size = 0;
  const char* bytes = elf_rawfile(elf, &size);
  if (bytes != nullptr) {
    auto found = dwarf::read_elf_dwarf(Bytes(reinterpret_cast<const uint8_t*>(bytes), size));
    if (found && *found != nullptr) {
      (void)(*found)->map.for_each_subprogram(
          [&](std::string_view name, uint32_t line, const std::string& file) {
            add_function(table, name, file, line);
          });
    }
  }
  add_symbols(elf, table);
  elf_end(elf);
  close(fd);
  return true;
}

}  // namespace

Expected<FunctionTable> read_function_table(const std::vector<std::string>& paths,
                                            std::vector<std::string>* read) {
  elf_version(EV_CURRENT);
  FunctionTable table;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      if (!add_file(path, table))
        return make_error(ErrorCode::invalid_argument, kNoOffset,
                          "cannot read the profiled binary " + path + " as an ELF file");
      if (read != nullptr) read->push_back(path);
      continue;
    }
    for (auto it = std::filesystem::recursive_directory_iterator(
             path, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && add_file(it->path().string(), table) && read != nullptr)
        read->push_back(it->path().string());
    }
  }
  return table;
}

}  // namespace profkit::symbolize
