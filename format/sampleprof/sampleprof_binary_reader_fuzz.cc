// Property: read_profile never crashes, hangs or reads past its input on binary and
// extbinary data (and anything else); a profile it accepts survives extbinary and binary
// round trips: from the second round on, writing and reading back changes nothing. With
// MD5 names, from the third: they are written as decimal strings (without --use-md5),
// which sort differently, so the second file lists the records in another order, and
// FuncMetadata follows the order in which the reader inserted them (LLVM's map order, kept
// for byte identity). The writer may refuse a profile (a line offset the binary formats
// cannot hold), never write one it cannot read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "format/sampleprof/reader.h"
#include "format/sampleprof/writer.h"

namespace {
using namespace profkit;
std::optional<std::string> write(const sampleprof::Profile& p, sampleprof::Format f) {
  sampleprof::WriteOptions o;
  o.format = f;
  o.compress_all_sections = true;
  auto bytes = sampleprof::write_profile(p, o);
  if (!bytes) return std::nullopt;
  return *bytes;
}
bool has_md5_names(const sampleprof::FunctionSamples& f) {
  if (f.name.is_md5()) return true;
  for (const auto& frame : f.context)
    if (frame.name.is_md5()) return true;
  for (const auto& [loc, rec] : f.body)
    for (const auto& [target, n] : rec.targets)
      if (target.is_md5()) return true;
  for (const auto& [loc, types] : f.vtables)
    for (const auto& [type, n] : types)
      if (type.is_md5()) return true;
  for (const auto& [loc, callees] : f.callsites)
    for (const auto& [name, inlinee] : callees)
      if (name.is_md5() || has_md5_names(inlinee)) return true;
  return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profile = sampleprof::read_profile(Bytes(data, size));
  if (!profile) return 0;
  const sampleprof::Format f = profile->is_cs || profile->is_probe_based
                                   ? sampleprof::Format::extbinary
                                   : sampleprof::Format::binary;
  bool md5 = false;
  for (const auto& [key, fs] : profile->functions) md5 = md5 || has_md5_names(fs);
  for (sampleprof::Format out : {sampleprof::Format::extbinary, f}) {
    const auto once = write(*profile, out);
    if (!once) continue;
    std::string last = *once;
    for (int round = 2; round <= (md5 ? 3 : 2); ++round) {
      auto back = sampleprof::read_profile(as_bytes(last));
      if (!back) std::abort();  // what we write, we read
      const auto next = write(*back, out);
      if (!next) std::abort();
      last = *next;
    }
    auto back = sampleprof::read_profile(as_bytes(last));
    if (!back || write(*back, out) != last) std::abort();
  }
  return 0;
}
