// Glue between the ELF reader and the probe decoder.
#include "format/probe/elf_probes.h"

#include <string>

#include "format/bytes/hash.h"

namespace profkit::probe {

std::unordered_map<uint64_t, SymbolRange> build_symbol_map(
    const std::vector<elf::Symbol>& symbols) {
  std::unordered_map<uint64_t, SymbolRange> out;
  out.reserve(symbols.size());
  for (const auto& s : symbols) {
    if (s.name.empty()) continue;
    out[md5_name_ref(s.name)] = SymbolRange{s.value, s.value + s.size};
  }
  return out;
}

namespace {

// LLVM 14 relocatable objects store 0 in the first address of each sub-stream and carry an
// R_X86_64_64 relocation (S + A) for it. Returns a patched copy of the section.
Expected<std::vector<uint8_t>> relocate(const elf::ElfFile& file,
                                        const elf::SectionHeader& section, Bytes data) {
  std::vector<uint8_t> copy(data.begin(), data.end());
  for (const elf::SectionHeader* rel : file.relocation_sections_for(section)) {
    PROFKIT_TRY_ASSIGN(auto relocations, file.relocations(*rel));
    if (rel->link >= file.sections().size())
      return make_error(ErrorCode::malformed, rel->header_offset,
                        "relocation section links to a missing symbol table");
    PROFKIT_TRY_ASSIGN(auto symbols, file.symbols(file.sections()[rel->link]));
    for (const auto& r : relocations) {
      if (r.type != elf::kRX86_64_64)
        return make_error(ErrorCode::malformed, rel->offset,
                          "expected R_X86_64_64 relocations in " + std::string(rel->name) +
                              ", found type " + std::to_string(r.type));
      if (r.symbol >= symbols.size() || r.offset > copy.size() || copy.size() - r.offset < 8)
        return make_error(ErrorCode::malformed, rel->offset,
                          "relocation at section offset " + std::to_string(r.offset) +
                              " is outside the probe section or names a missing symbol");
      store_le<uint64_t>(copy.data() + r.offset,
                         symbols[r.symbol].value + static_cast<uint64_t>(r.addend));
    }
  }
  return copy;
}

}  // namespace

Expected<ElfProbes> decode_elf_probes(const elf::ElfFile& file,
                                      const std::vector<elf::Symbol>& symbols,
                                      const ElfDecodeOptions& options) {
  ElfProbes out;
  std::vector<SectionBytes> descs, probes;
  // Moving a std::vector keeps its buffer, so spans into these copies stay valid.
  std::vector<std::vector<uint8_t>> relocated;
  uint64_t first_probe_offset = kNoOffset;
  for (const auto& s : file.sections()) {
    if (s.name == ".pseudo_probe_desc") {
      PROFKIT_TRY_ASSIGN(Bytes b, file.section_data(s));
      descs.push_back(SectionBytes{b, s.offset});
      out.has_descriptor_section = true;
    } else if (s.name == ".pseudo_probe") {
      PROFKIT_TRY_ASSIGN(Bytes b, file.section_data(s));
      if (first_probe_offset == kNoOffset) first_probe_offset = s.offset;
      if (file.type() == elf::kEtRel && !file.relocation_sections_for(s).empty()) {
        PROFKIT_TRY_ASSIGN(auto copy, relocate(file, s, b));
        relocated.push_back(std::move(copy));
        b = Bytes(relocated.back().data(), relocated.back().size());
      }
      probes.push_back(SectionBytes{b, s.offset});
      out.has_probe_section = true;
    }
  }
  out.has_symbol_table = file.find_section_by_type(elf::kShtSymtab) != nullptr;
  const auto symbol_map = build_symbol_map(symbols);
  DecodeOptions decode_options;
  decode_options.symbols = &symbol_map;
  decode_options.llvm22_global_chain = options.llvm22_global_chain;
  PROFKIT_TRY_ASSIGN(out.map, ProbeMap::decode(descs, probes, decode_options));
  if (!out.has_symbol_table && out.map.unplaced_records() > 0)
    return make_error(ErrorCode::malformed, first_probe_offset,
                      "the file has no .symtab (stripped?): " +
                          std::to_string(out.map.unplaced_records()) +
                          " probe records are addressed relative to function symbols and "
                          "cannot be placed");
  return out;
}

}  // namespace profkit::probe
