#include "tools/branch-trace/perf_script.h"

#include "format/bytes/number_text.h"

#include <charconv>

namespace profkit::branch_trace {

namespace {

// printf's "%#lx": "0x" + hex, but a bare "0" for zero.
void append_alt_hex(std::string& out, uint64_t v) {
  if (v != 0) out += "0x";
  append_hex(out, v);
}

// printf's "%02x".
void append_hex02(std::string& out, unsigned v) {
  if (v < 0x10) out += '0';
  append_hex(out, v);
}

void append_brstack(std::string& out, const BranchRing& ring, FlagStyle style) {
  for (size_t i = 0; i < ring.size(); ++i) {
    const BranchEntry& e = ring.newest(i);
    out += " 0x";
    append_hex(out, e.from);
    out += "/0x";
    append_hex(out, e.to);
    switch (style) {
      case FlagStyle::classic: out += "/P/-/-/0 "; break;
      case FlagStyle::spec: out += "/P/-/-/0//- "; break;
      case FlagStyle::typed:
        out += "/P/-/-/0/";
        out += branch_type_name(e.kind);
        out += "/- ";
        break;
    }
  }
}

}  // namespace

void append_mmap2(std::string& out, const MmapEvent& e) {
  out += "PERF_RECORD_MMAP2 ";
  append_decimal(out, static_cast<uint64_t>(e.pid));
  out += '/';
  append_decimal(out, static_cast<uint64_t>(e.pid));
  out += ": [0x";
  append_hex(out, e.start);
  out += "(0x";
  append_hex(out, e.size);
  out += ") @ ";
  append_alt_hex(out, e.pgoff);
  out += ' ';
  append_hex02(out, e.dev_major);
  out += ':';
  append_hex02(out, e.dev_minor);
  out += ' ';
  append_decimal(out, e.inode);
  out += ' ';
  append_decimal(out, e.generation);
  out += "]: ";
  out += e.prot;
  out += ' ';
  out += e.path;
  out += '\n';
}

void append_lbr_sample(std::string& out, uint64_t ip, const BranchRing& ring, FlagStyle style) {
  out += ' ';
  append_hex(out, ip, 16);
  append_brstack(out, ring, style);
  out += '\n';
}

void append_hybrid_sample(std::string& out, std::span<const uint64_t> stack,
                          const BranchRing& ring, FlagStyle style) {
  out += '\n';
  for (uint64_t frame : stack) {
    out += '\t';
    append_hex(out, frame, 16);
    out += '\n';
  }
  append_brstack(out, ring, style);
  out += '\n';
}

}  // namespace profkit::branch_trace
