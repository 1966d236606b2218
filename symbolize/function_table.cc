// GUID -> function table from DWARF (libdw) and ELF symbols (libelf).
#include "symbolize/function_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "format/memprof/records.h"

namespace profkit::symbolize {
namespace {

const char* die_linkage_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (unsigned name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
    if (dwarf_attr_integrate(die, name, &attr) != nullptr) {
      const char* s = dwarf_formstring(&attr);
      if (s != nullptr) return s;
    }
  }
  return nullptr;
}

void add_function(FunctionTable& table, std::string_view raw_name, const char* file, int line) {
  const std::string_view canonical = memprof::canonical_function_name(raw_name);
  if (canonical.empty()) return;
  FunctionInfo& info = table[memprof::function_guid(canonical)];
  if (info.name.empty()) info.name = canonical;
  if (info.decl_line == 0 && line > 0) {
    info.decl_line = static_cast<uint32_t>(line);
    info.decl_file = file != nullptr ? file : "";
  }
}

// DW_AT_decl_file through the CU's file table (dwarf_decl_file gives up on some DWARF 5
// units, whose file index 0 is valid).
const char* decl_file(Dwarf_Die* die, Dwarf_Files* files, size_t nfiles) {
  Dwarf_Attribute attr;
  Dwarf_Word index = 0;
  if (files == nullptr || dwarf_attr_integrate(die, DW_AT_decl_file, &attr) == nullptr ||
      dwarf_formudata(&attr, &index) != 0 || index >= nfiles)
    return nullptr;
  return dwarf_filesrc(files, index, nullptr, nullptr);
}

// Every subprogram in the DIE tree under `parent` (classes, namespaces and function bodies
// hold nested ones). Depth-limited: the input may be hostile.
void walk_dies(Dwarf_Die* parent, FunctionTable& table, int depth, Dwarf_Files* files,
               size_t nfiles) {
  if (depth > 64) return;
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    if (dwarf_tag(&child) == DW_TAG_subprogram) {
      const char* name = die_linkage_name(&child);
      if (name != nullptr) {
        int line = 0;
        if (dwarf_decl_line(&child, &line) != 0) line = 0;
        add_function(table, name, line > 0 ? decl_file(&child, files, nfiles) : nullptr, line);
      }
    }
    if (dwarf_haschildren(&child) > 0) walk_dies(&child, table, depth + 1, files, nfiles);
  } while (dwarf_siblingof(&child, &child) == 0);
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
      if (name != nullptr) add_function(table, name, nullptr, 0);
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
  if (Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr); dwarf != nullptr) {
    Dwarf_Off off = 0, next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf, off, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf, off + header_size, &cu) != nullptr) {
        Dwarf_Files* files = nullptr;
        size_t nfiles = 0;
        if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0) files = nullptr;
        walk_dies(&cu, table, 0, files, nfiles);
      }
      off = next;
    }
    dwarf_end(dwarf);
  }
  add_symbols(elf, table);
  elf_end(elf);
  close(fd);
  return true;
}

}  // namespace

Expected<FunctionTable> read_function_table(const std::vector<std::string>& paths) {
  elf_version(EV_CURRENT);
  FunctionTable table;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      if (!add_file(path, table))
        return make_error(ErrorCode::invalid_argument, kNoOffset,
                          "cannot read the profiled binary " + path + " as an ELF file");
      continue;
    }
    for (auto it = std::filesystem::recursive_directory_iterator(
             path, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) add_file(it->path().string(), table);
    }
  }
  return table;
}

}  // namespace profkit::symbolize
