// Property: ElfFile::parse and every table reader (sections, symbols, relocations, groups,
// notes, build id) and the probe decoder on top never crash, hang or read past the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/elf/elf_file.h"
#include "format/probe/elf_probes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace profkit;
  auto elf = elf::ElfFile::parse(Bytes(data, size));
  if (!elf) return 0;
  for (const auto& s : elf->sections()) {
    auto bytes = elf->section_data(s);
    // NOBITS and NULL sections occupy no file bytes whatever their sh_size says.
    if (bytes && bytes->size() != s.size && s.type != elf::kShtNobits && s.type != elf::kShtNull)
      std::abort();
    if (s.type == elf::kShtRela || s.type == elf::kShtRel) (void)elf->relocations(s);
  }
  (void)elf->section_groups();
  (void)elf->build_id();
  (void)elf->preferred_base_address();
  auto symbols = elf->static_symbols();
  (void)elf->dynamic_symbols();
  if (symbols) (void)probe::decode_elf_probes(*elf, *symbols);
  return 0;
}
