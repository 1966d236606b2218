// The profiled binary as profgen sees it (docs/profgen.md, "The binary"): its executable
// segments and the base they were linked at, every instruction of its text sections with its
// size and control-flow class, the functions DWARF describes and their address ranges, the
// inline frames (function, line offset, discriminator) of each address, and its pseudo
// probes. Everything is keyed by the link-time ("preferred") address.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/bytes/expected.h"
#include "format/probe/pseudo_probe.h"

namespace profkit::profgen {

// llvm-profgen's stand-in for "an address outside the binary" in ranges and branches.
inline constexpr uint64_t kExternalAddress = 1;

// Where warnings (and --show-* output lines) go, one line per call.
using LineSink = std::function<void(std::string_view)>;

// `P%(n/N) message` as llvm-profgen prints its summary warnings; nothing when n or N is 0.
void warn_summary(const LineSink& warn, uint64_t n, uint64_t total, std::string_view message);

// The last component of a path (what mmap events are matched on).
std::string_view file_name_of(std::string_view path);

// Control-flow class of an instruction, as LLVM's instruction descriptions give it.
enum InsnClass : uint8_t {
  kInsnCall = 1,    // direct or indirect call
  kInsnReturn = 2,  // return
  kInsnBranch = 4,  // conditional, direct or indirect jump
  kInsnUncond = 8,  // ends straight-line code for good: call, return, direct jmp
  kInsnIndirectJump = 16,  // jmp through a register or memory (a possible tail call)
};

struct BinaryFunction {
  std::string_view name;  // DWARF linkage name, else name
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [start, end), DIE order
  bool from_symbol_table = false;  // a probe binary's function DWARF does not describe
};

// One address range of a function; the first range registered at a start address wins.
struct FuncRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  uint32_t function = 0;  // index into functions()
  bool is_entry = false;  // the function's entry (only entries are call targets)
};

// One frame of an address's inline stack (outermost first in a stack).
struct InlineFrame {
  std::string_view function;   // linkage name
  uint32_t line_offset = 0;    // (line - function's declaration line) & 0xffff
  uint32_t discriminator = 0;  // raw DWARF discriminator
};

// A binary described directly, for tests and fuzzing of what reads perf data against it:
// no file, no DWARF (no inline stacks), no probes.
struct SyntheticBinary {
  std::string path = "/synthetic/prog";
  uint64_t preferred_base = 0x1000;  // the only executable segment, at file offset 0x1000
  struct Instruction {
    uint64_t address;
    uint8_t size;
    uint8_t classes;  // InsnClass bits
  };
  std::vector<Instruction> instructions;  // ascending addresses
  struct Function {
    std::string name;
    uint64_t start, end;
  };
  std::vector<Function> functions;  // disjoint ranges, each function's entry
};

struct LoadOptions {
  bool use_dwarf_correlation = false;  // ignore pseudo probes
};

class ProfiledBinary {
 public:
  // Reads the ELF file at `path`: program headers, symbols, disassembly of the text
  // sections, DWARF functions and line tables, pseudo probes. `warn` receives llvm-profgen's
  // loading warnings (invalid instructions, functions without a known entry...).
  static Expected<std::unique_ptr<ProfiledBinary>> load(
      const std::string& path, const LoadOptions& options,
      const LineSink& warn);

  static std::unique_ptr<ProfiledBinary> synthetic(const SyntheticBinary& description);

  ~ProfiledBinary();

  const std::string& path() const { return path_; }
  // What mmap events are matched on.
  std::string_view file_name() const { return file_name_of(path_); }

  // Link-time address of the first executable segment, page aligned.
  uint64_t preferred_base() const { return preferred_text_addresses_.front(); }
  uint64_t first_loadable_address() const { return first_loadable_address_; }
  const std::vector<uint64_t>& preferred_text_addresses() const {
    return preferred_text_addresses_;
  }
  const std::vector<uint64_t>& text_segment_offsets() const { return text_segment_offsets_; }

  // --- instructions -------------------------------------------------------------------
  // Index of the first instruction at or after `address` (instruction_count() if none).
  size_t lower_bound(uint64_t address) const;
  size_t instruction_count() const { return code_.size(); }
  uint64_t instruction_address(size_t i) const { return code_[i]; }
  uint8_t instruction_size(size_t i) const { return sizes_[i]; }
  uint8_t instruction_class(size_t i) const { return classes_[i]; }
  // The target of a direct jmp or jcc, 0 for other instructions.
  uint64_t jump_target(size_t i) const { return targets_[i]; }
  // Whether an instruction starts at `address`.
  bool is_code(uint64_t address) const {
    if (!dense_) return class_search(address) >= 0;
    const uint64_t off = address - code_base_;
    return off < starts_.size() && (starts_[off] & kStart) != 0;
  }
  uint8_t class_at(uint64_t address) const {  // 0 when no instruction starts there
    if (!dense_) return static_cast<uint8_t>(std::max(0, class_search(address)));
    const uint64_t off = address - code_base_;
    return off < starts_.size() ? static_cast<uint8_t>(starts_[off] & ~kStart) : 0;
  }
  bool is_call(uint64_t a) const { return (class_at(a) & kInsnCall) != 0; }
  bool is_return(uint64_t a) const { return (class_at(a) & kInsnReturn) != 0; }
  // An instruction in [start, end) that leaves straight-line code (call, return, jmp).
  bool range_crosses_uncond(uint64_t start, uint64_t end) const;
  // [start, end] can be straight-line code: start <= end and nothing in between leaves it.
  bool valid_range(uint64_t start, uint64_t end) const {
    return start <= end && !range_crosses_uncond(start, end);
  }
  // The call instruction that returns to `return_address`, or 0 when the instruction
  // before it is not a call. kExternalAddress maps to itself.
  uint64_t call_from_return_address(uint64_t return_address) const;

  // Whether a hybrid sample whose leaf is at `address` has an unreliable frame-pointer chain:
  // the first two instructions of a function range, a return and the instruction before it.
  bool in_prolog_epilog(uint64_t address) const {
    return std::binary_search(prolog_epilog_.begin(), prolog_epilog_.end(), address);
  }

  // --- functions ----------------------------------------------------------------------
  const std::vector<BinaryFunction>& functions() const { return functions_; }
  // The range containing `address`, or nullptr.
  const FuncRange* find_func_range(uint64_t address) const;
  // The range starting exactly at `address`, or nullptr.
  const FuncRange* func_range_at(uint64_t address) const;
  // The function of every range, in address order (llvm-profgen's profile symbol list).
  std::vector<std::string_view> range_function_names() const {
    std::vector<std::string_view> names;
    for (const auto& r : ranges_) names.push_back(functions_[r.function].name);
    return names;
  }
  // Canonical name of the function entered at `target`, or empty when `target` is not a
  // function entry.
  std::string_view callee_name(uint64_t target) const;

  // --- source -------------------------------------------------------------------------
  // The inline stack of the instruction at `address`, outermost first; empty without line
  // information. Cached.
  const std::vector<InlineFrame>& inline_stack(uint64_t address);
  // The same without keeping it (for one pass over many addresses).
  void inline_stack_uncached(uint64_t address, std::vector<InlineFrame>& out);
  bool uses_fs_discriminators() const { return fs_discriminators_; }
  // Frees the line tables and DIE trees behind inline_stack (hundreds of MB for a large
  // binary) once nothing will ask for inline stacks again; asking afterwards aborts.
  void drop_line_info();

  // --- pseudo probes ------------------------------------------------------------------
  bool uses_probes() const { return probes_ != nullptr; }
  const probe::ProbeMap& probes() const { return *probes_; }
  // Descriptor hash of a function GUID (0 when it has none).
  uint64_t probe_function_hash(uint64_t guid) const;

 private:
  ProfiledBinary();
  // Forgets the resident pages of the mapped file: once decoded, the code, DWARF and probe
  // sections are not read again, and only the names are (paged in again as touched).
  void drop_file_pages() const;
  void find_prolog_epilog();
  struct Impl;
  std::unique_ptr<Impl> impl_;

  std::string path_;
  std::vector<uint64_t> preferred_text_addresses_;
  std::vector<uint64_t> text_segment_offsets_;
  uint64_t first_loadable_address_ = 0;
  std::vector<uint64_t> code_;
  std::vector<uint8_t> sizes_;
  std::vector<uint8_t> classes_;
  std::vector<uint64_t> targets_;
  // One byte per byte of code from the first instruction to the last: kStart where an
  // instruction starts, plus its class. Answers is_code and class_at without a search (they
  // run for every address of every sample).
  static constexpr uint8_t kStart = 0x80;
  uint64_t code_base_ = 0;
  std::vector<uint8_t> starts_;
  bool dense_ = false;  // starts_ covers the code (not when segments lie far apart)
  void index_code();
  int class_search(uint64_t address) const;  // the class, -1 when no instruction starts there
  std::vector<uint64_t> uncond_;  // sorted addresses of kInsnUncond instructions
  std::vector<uint64_t> prolog_epilog_;  // sorted, unique
  std::vector<BinaryFunction> functions_;
  std::vector<FuncRange> ranges_;  // sorted by start
  std::unordered_map<uint64_t, std::vector<InlineFrame>> stacks_;
  std::unique_ptr<probe::ProbeMap> probes_;
  bool fs_discriminators_ = false;
  bool line_info_dropped_ = false;
};

// LLVM's discriminator encodings (docs/profgen.md): the base discriminator and the
// duplication factor packed into a DWARF discriminator.
uint32_t base_discriminator(uint32_t discriminator, bool fs);
uint32_t duplication_factor(uint32_t discriminator, bool fs);

}  // namespace profkit::profgen
