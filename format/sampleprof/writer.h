// Writers of the three sample-profile encodings, byte-identical to llvm-profdata 22 for the
// same profile and options (docs/formats/sampleprof.md sections 2.9, 4 and 5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "format/sampleprof/profile.h"

namespace profkit::sampleprof {

struct WriteOptions {
  Format format = Format::extbinary;
  // extbinary only (llvm-profdata warns and ignores them for other formats):
  bool use_md5 = false;                // MD5 name table (fixed-length u64 entries)
  bool compress_all_sections = false;  // zlib level 9, every non-empty section
  bool partial = false;                // summary flag "partial"
  bool split_layout = false;           // profiles with and without inlinees in two sections
  bool write_vtables = false;          // vtable type counts (LLVM 22's hidden option)
  // text only: ` !Flat` after top-level profiles without inlinees (with --split-layout).
  bool mark_flat = false;
  // Profile symbol list (extbinary): any order, duplicates allowed.
  std::vector<std::string_view> symbol_list;
};

// The file's bytes. Fails for profiles the format cannot hold (CS or probe-based profiles
// in the binary format), as llvm-profdata does.
Expected<std::string> write_profile(const Profile& profile, const WriteOptions& options);

// The vtable counts of `f` at `loc` as one line ("LOC" + label + "TYPE:N " ...), if any:
// the text format's label is ": vtables ", show's ": vtables: ".
void append_vtable_line(std::string& out, const FunctionSamples& f, LineLocation loc,
                        unsigned indent, std::string_view label);

// The text encoding of one profile (and its inlinees) at `indent`, as in a text file.
void append_text(std::string& out, const FunctionSamples& f, const Profile& profile,
                 unsigned indent, bool mark_flat = false);

}  // namespace profkit::sampleprof
