// Writer for the text profile format, byte-identical to `llvm-profdata merge --text`
// (docs/formats/irpgo.md 4.2), and the per-record block `llvm-profdata show --text` prints (docs/formats/irpgo.md 5.3).
#pragma once

#include <string>

#include "format/instrprof/name_resolver.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

// Which release's writer to match. LLVM 14 prints the same layout without the parts
// LLVM 22 added: loop-entry and byte-coverage header flags, temporal traces, bitmaps and
// vtable value sites (value kind 2).
enum class TextFlavor { llvm22, llvm14 };

// The whole file: header flag lines, the temporal block (flag 63), then every record
// sorted by (name bytes, FuncHash). Value targets resolve through
// NameResolver::for_writer(profile).
std::string write_text_profile(const Profile& profile, TextFlavor flavor = TextFlavor::llvm22);

// Appends one record block (name, hash, counters, bitmap, value sites, closing blank line).
// Targets of kinds 0 and 2 print as names through `names`, else "** External Symbol **".
void append_text_record(std::string& out, const Record& record, const NameResolver& names,
                        TextFlavor flavor = TextFlavor::llvm22);

}  // namespace profkit::instrprof
