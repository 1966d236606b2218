// Symbolizes raw memprof PCs with the DWARF of the profiled binaries (symbolize/source_map.h),
// following llvm-profdata 22's rules (docs/formats/memprof.md D.1-D.4), and going further:
// PIE executables and shared libraries are matched to their segment by build id, several
// binaries (or directories searched by build id) may be given, and PCs that cannot be
// symbolized are counted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/bytes/expected.h"
#include "format/memprof/raw_reader.h"
#include "format/memprof/records.h"

namespace profkit::symbolize {

struct MemProfSymbolizerStats {
  uint64_t pcs = 0;              // distinct PCs looked up
  uint64_t symbolized = 0;       // PCs that gave frames
  uint64_t outside_binaries = 0; // PCs in no segment of a given binary (libc, vDSO, ...)
  uint64_t no_debug_info = 0;    // PCs inside a binary with no DWARF subprogram covering them
  uint64_t runtime_frames = 0;   // PCs whose innermost frame is in a memprof runtime file
  uint64_t from_symbol_tables = 0; // PCs named from a symbol table (symbol_tables option)
};

struct MemProfSymbolizerOptions {
  // llvm-profdata compatibility: exactly one binary, exactly one segment matching its build
  // id, PCs outside that segment are looked up unchanged. Off: every given binary (and
  // every ELF file under given directories) is matched to its own segments.
  bool llvm_compatible = true;
  // For people (reports), not for LLVM: a PC in a binary with no debug information at all
  // (a stripped program) gets one frame named from the binary's symbol table (.symtab, else
  // .dynsym), or "<file>+0x<address>" where no function symbol covers it, with no source
  // line. llvm-profdata drops such PCs.
  bool symbol_tables = false;
};

class MemProfSymbolizer {
 public:
  // `paths`: binaries, or directories searched (recursively) for ELF files whose build id
  // appears in `segments`. Errors name the binary (offset kNoOffset) or the expectation.
  static Expected<std::unique_ptr<MemProfSymbolizer>> create(
      const std::vector<std::string>& paths, std::span<const memprof::Segment> segments,
      uint64_t raw_version, const MemProfSymbolizerOptions& options = {});

  ~MemProfSymbolizer();
  MemProfSymbolizer(const MemProfSymbolizer&) = delete;
  MemProfSymbolizer& operator=(const MemProfSymbolizer&) = delete;

  // Frames of `pc` (innermost first) or nullptr if the PC is dropped. Cached per PC.
  const memprof::SymbolizedPc* symbolize(uint64_t pc);

  const MemProfSymbolizerStats& stats() const { return stats_; }
  // Binaries that were matched to at least one segment.
  std::vector<std::string> matched_binaries() const;
  // The same, by GNU build id (hex).
  std::map<std::string, std::string> matched_binaries_by_build_id() const;

  struct Binary;  // one opened ELF file with its DWARF index (internal)
  struct Mapping {
    uint64_t start, end;  // segment bounds (Start < pc <= End)
    uint64_t vaddr;       // binary address of Start
    Binary* binary;
  };

 private:
  MemProfSymbolizer() = default;
  std::vector<std::unique_ptr<Binary>> binaries_;
  std::vector<Mapping> mappings_;
  bool llvm_compatible_ = true;
  bool symbol_tables_ = false;
  std::unordered_map<uint64_t, std::unique_ptr<memprof::SymbolizedPc>> cache_;
  MemProfSymbolizerStats stats_;
};

// Hex of a build id (lowercase), as llvm-profdata prints it.
std::string build_id_hex(std::span<const uint8_t> id);

// Shared objects in the system's library directories (/lib/x86_64-linux-gnu,
// /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64, /usr/local/lib; not recursive) whose GNU
// build id (hex) is in `ids`: id -> path. Reads only each file's notes; for naming the
// objects a profile's frames are in when a warning needs their names.
std::map<std::string, std::string> find_system_objects(const std::set<std::string>& ids);

}  // namespace profkit::symbolize
