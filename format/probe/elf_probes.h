// Decodes the pseudo probes of an ELF file: gathers every `.pseudo_probe_desc` and
// `.pseudo_probe` section, applies LLVM 14's relocations in relocatable objects, and builds
// the symbol map LLVM 22 records are re-based on.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "format/elf/elf_file.h"
#include "format/probe/pseudo_probe.h"

namespace profkit::probe {

// MD5(name) -> [st_value, st_value + st_size) for every .symtab symbol with a name; a later
// symbol with the same name hash replaces an earlier one (as llvm-profgen does).
std::unordered_map<uint64_t, SymbolRange> build_symbol_map(
    const std::vector<elf::Symbol>& symbols);

struct ElfProbes {
  ProbeMap map;
  bool has_descriptor_section = false;
  bool has_probe_section = false;
  bool has_symbol_table = false;
};

struct ElfDecodeOptions {
  bool llvm22_global_chain = false;  // see DecodeOptions
};

// Decodes the probe sections of `file`. Fails on malformed sections, and when LLVM 22
// records cannot be placed because the file has no .symtab (a stripped binary).
Expected<ElfProbes> decode_elf_probes(const elf::ElfFile& file,
                                      const std::vector<elf::Symbol>& symbols,
                                      const ElfDecodeOptions& options = {});

}  // namespace profkit::probe
