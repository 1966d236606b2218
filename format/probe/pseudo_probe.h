// CSSPGO pseudo probes: decoder for `.pseudo_probe_desc` and `.pseudo_probe` (LLVM 14 and
// LLVM 22 encodings) and the decoded model: descriptors, inline tree, address -> probes.
// See docs/pseudo-probes.md and the format spec (docs/formats/pseudo-probes.md).
//
// .pseudo_probe_desc, one record per function, concatenated, no header (both releases):
//
//     .quad    guid              // MD5 of the function name, first 8 bytes little-endian
//     .quad    hash              // CFG checksum, opaque
//     .uleb128 name_len          // must fit 32 bits
//     .ascii   name              // name_len bytes, no NUL
//
// .pseudo_probe, a forest of function records until the end of each section:
//
//     .quad    guid              // top level: function GUID
//     .uleb128 nprobes           // probe records (LLVM 22: including a sentinel)
//     .uleb128 ninlined          // inlinee records after the probes (direct children)
//     probe:   .uleb128 index    // 0 only for a sentinel
//              .byte    kind     // bit 7 delta form, bits 6..4 attributes, bits 3..0 type
//              .sleb128 delta    // if kind & 0x80: address = previous address + delta
//          or  .quad    value    // else: absolute address (LLVM 14) or, with the sentinel
//                                //       attribute 0x2, MD5 of the function symbol name
//              .uleb128 discrim  // only if attributes & 0x4 (LLVM 22)
//     inlinee: .uleb128 callsite // call probe index in the parent that was inlined
//              .quad    guid, then nprobes, ninlined, probes, inlinees as above
//
// Address chains. LLVM 14: the first probe of each per-object text-section sub-stream is
// absolute (relocated); every later probe, across records, is a delta from the previous one.
// LLVM 22: every top-level record restarts at the start address of its function's symbol
// (from .symtab, keyed by MD5 of the symbol name; a leading sentinel names the symbol when it
// differs from the record's GUID). We decide the chain per top-level record, so binaries that
// mix objects of both releases decode correctly (llvm-profgen 22 decides once per binary).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/bytes/cursor.h"

namespace profkit::probe {

enum class ProbeType : uint8_t { Block = 0, IndirectCall = 1, DirectCall = 2 };

// Name as llvm-profgen prints it ("Block", "IndirectCall", "DirectCall"; "Unknown" beyond).
std::string_view probe_type_name(uint8_t type);

inline constexpr uint8_t kAttrSentinel = 0x2;
inline constexpr uint8_t kAttrHasDiscriminator = 0x4;
inline constexpr uint32_t kNoIndex = ~uint32_t{0};

struct Descriptor {
  uint64_t guid = 0;
  uint64_t hash = 0;
  std::string_view name;  // points into the section bytes given to the decoder
};

struct Probe {
  uint64_t address = 0;        // link-time virtual address (section offset in a .o)
  uint32_t index = 0;          // probe index in its function
  uint32_t discriminator = 0;  // 0 if absent
  uint32_t node = 0;           // InlineNode of the probe's function (and inline context)
  uint8_t type = 0;            // ProbeType value (0..15 as encoded)
  uint8_t attributes = 0;      // raw 3-bit attribute field (sentinels are never stored)

  bool is_call() const { return type == 1 || type == 2; }
};

enum class ChainKind : uint8_t {
  none,            // the root
  function_start,  // LLVM 22: record re-based on its function symbol
  absolute,        // LLVM 14: chain of deltas from an absolute address
};

// One node of the inline forest. nodes[0] is the root (guid 0). Nodes are stored in decode
// (depth-first) order, so a node's own probes are probes[first_probe, first_probe+probe_count)
// and its subtree follows it.
struct InlineNode {
  uint64_t guid = 0;
  uint32_t site = 0;           // call-site ID in the parent (top level: record ordinal)
  uint32_t parent = 0;         // index of the parent node (root: itself)
  uint32_t first_probe = 0;
  uint32_t probe_count = 0;
  uint32_t first_child = kNoIndex;
  uint32_t next_sibling = kNoIndex;
  uint32_t top_level = 0;      // index of the top-level node this node belongs to
  uint64_t record_offset = 0;  // file offset of the record (for messages)
  ChainKind chain = ChainKind::none;  // set on top-level nodes
  bool placed = true;          // false: LLVM 22 record whose function symbol was not found
};

// A frame of an inline context: function and the call-site/probe index in it.
struct ContextFrame {
  uint64_t guid = 0;
  uint32_t site = 0;
};

// A probe section to decode: bytes plus the file offset of its first byte.
struct SectionBytes {
  Bytes data;
  uint64_t file_offset = 0;
};

// Where a function symbol starts and ends (st_value, st_value + st_size).
struct SymbolRange {
  uint64_t start = 0;
  uint64_t end = 0;
};

struct DecodeOptions {
  // MD5(symbol name) -> range. Needed for LLVM 22 records; LLVM 14 records never use it.
  const std::unordered_map<uint64_t, SymbolRange>* symbols = nullptr;
  // Reproduce llvm-profgen 22's decoder-wide "address based" flag (mis-decodes binaries that
  // mix LLVM 14 and LLVM 22 objects) instead of deciding per record.
  bool llvm22_global_chain = false;
};

class ProbeMap {
 public:
  // Decodes every descriptor section, then every probe section in order.
  static Expected<ProbeMap> decode(std::span<const SectionBytes> descriptor_sections,
                                   std::span<const SectionBytes> probe_sections,
                                   const DecodeOptions& options);

  // Descriptors sorted by GUID (stable: duplicates kept in section order).
  const std::vector<Descriptor>& descriptors() const { return descriptors_; }
  // First descriptor with this GUID, or nullptr.
  const Descriptor* descriptor(uint64_t guid) const;
  // Descriptor name, or an empty view when the GUID has no descriptor.
  std::string_view name(uint64_t guid) const;

  const std::vector<InlineNode>& nodes() const { return nodes_; }
  // All probes in decode order.
  const std::vector<Probe>& probes() const { return probes_; }
  // Probe positions sorted by (address, decode position).
  const std::vector<uint32_t>& by_address() const { return by_address_; }

  // Positions of the probes at exactly `address`, in decode order.
  std::span<const uint32_t> find(uint64_t address) const;
  // Positions of the probes with from <= address < to.
  std::span<const uint32_t> find(uint64_t from, uint64_t to) const;
  // The first call probe at `address` in decode order, or nullptr.
  const Probe* call_probe_at(uint64_t address) const;

  // Caller frames of a probe, outermost first (empty for a probe of a top-level node).
  std::vector<ContextFrame> inline_context(const Probe& probe) const;
  // Descriptor of the function the probe's function was inlined into, or nullptr.
  const Descriptor* inliner_descriptor(const Probe& probe) const;

  // True if any record used the LLVM 14 absolute chain.
  bool has_absolute_records() const { return absolute_records_ > 0; }
  // Top-level records (LLVM 22 encoding) whose function symbol was not found: their probes
  // are not stored.
  uint64_t unplaced_records() const { return unplaced_records_; }
  uint64_t top_level_records() const { return top_level_records_; }

 private:
  struct Decoder;
  void build_address_index();

  std::vector<Descriptor> descriptors_;
  std::vector<InlineNode> nodes_;
  std::vector<Probe> probes_;
  std::vector<uint32_t> by_address_;
  uint64_t absolute_records_ = 0;
  uint64_t unplaced_records_ = 0;
  uint64_t top_level_records_ = 0;
};

// Parses one .pseudo_probe_desc section, appending to `out` (unsorted).
Expected<void> decode_descriptors(const SectionBytes& section, std::vector<Descriptor>& out);

// Canonical function name as llvm-profgen computes it: strip a trailing ".llvm.<x>", then a
// trailing ".part.<x>", each only when <x> contains no '.'; keep ".__uniq.".
std::string_view canonical_name(std::string_view name);

}  // namespace profkit::probe
