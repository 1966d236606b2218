// Binary correlation: data records and names from __llvm_covdata / __llvm_covnames.
#include "format/instrprof/correlation.h"

#include "format/bytes/number_text.h"
#include "format/elf/elf_file.h"

namespace profkit::instrprof {

namespace {

// A raw v10 data record of a 64-bit target as the compiler lays it out in __llvm_covdata
// (docs/formats/irpgo.md 1.7): NameRef u64 @0, FuncHash u64 @8, CounterPtr u64 @16,
// BitmapPtr u64 @24, FunctionPointer u64 @32, Values u64 @40, NumCounters u32 @48,
// NumValueSites u16[3] @52, NumBitmapBytes u32 @58, then 2 bytes of padding. The last record
// of the section may lack that padding, so a record needs 62 bytes, not 64.
constexpr uint64_t kRecordStride = 64;
constexpr uint64_t kRecordBytes = 62;

Error correlation_error(uint64_t offset, std::string message) {
  return Error{ErrorCode::malformed, offset, "unable to correlate profile: " + std::move(message)};
}

std::string hex(uint64_t v) {
  std::string s = "0x";
  append_hex(s, v);
  return s;
}

}  // namespace

void add_correlated_function(Correlation& c, const CorrelatedFunction& f,
                             std::unordered_set<uint64_t>& seen_offsets) {
  if (seen_offsets.insert(f.counter_offset).second) c.functions.push_back(f);
}

std::string encode_names_blob(const std::vector<std::string>& names) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined.push_back('\x01');
    joined += names[i];
  }
  std::string blob;
  if (joined.empty()) return blob;
  append_uleb128(blob, joined.size());
  append_uleb128(blob, 0);  // stored, not compressed
  blob += joined;
  return blob;
}

Expected<Correlation> correlate_binary(Bytes elf_file, CorrelationWarnings& warnings) {
  PROFKIT_TRY_ASSIGN(const elf::ElfFile elf, elf::ElfFile::parse(elf_file));
  auto section = [&](std::string_view name) -> Expected<const elf::SectionHeader*> {
    const elf::SectionHeader* s = elf.find_section(name);
    if (s == nullptr)
      return Unexpected{correlation_error(kNoOffset, "could not find section (" +
                                                         std::string(name) + ")")};
    return s;
  };
  PROFKIT_TRY_ASSIGN(const elf::SectionHeader* counters, section(kCountersSection));
  PROFKIT_TRY_ASSIGN(const elf::SectionHeader* data, section(kCorrelatedDataSection));
  PROFKIT_TRY_ASSIGN(const elf::SectionHeader* names, section(kCorrelatedNamesSection));
  PROFKIT_TRY_ASSIGN(Cursor records, elf.section_cursor(*data));
  PROFKIT_TRY_ASSIGN(const Bytes names_bytes, elf.section_data(*names));

  const uint64_t counters_begin = counters->address;
  const uint64_t counters_end = counters->address + counters->size;
  Correlation c;
  std::unordered_set<uint64_t> seen;
  // A record needs kRecordBytes; a shorter tail cannot be one.
  for (uint64_t at = 0; at + kRecordBytes <= records.size(); at += kRecordStride) {
    PROFKIT_TRY(records.seek(at, "data record"));
    CorrelatedFunction f;
    PROFKIT_TRY_ASSIGN(f.name_ref, records.read<uint64_t>("NameRef"));
    PROFKIT_TRY_ASSIGN(f.hash, records.read<uint64_t>("FuncHash"));
    PROFKIT_TRY_ASSIGN(const uint64_t counter_ptr, records.read<uint64_t>("CounterPtr"));
    PROFKIT_TRY(records.skip(8, "BitmapPtr"));
    PROFKIT_TRY_ASSIGN(f.function_ptr, records.read<uint64_t>("FunctionPointer"));
    PROFKIT_TRY(records.skip(8, "Values"));
    PROFKIT_TRY_ASSIGN(f.num_counters, records.read<uint32_t>("NumCounters"));
    if (counter_ptr < counters_begin || counter_ptr >= counters_end)
      warnings.warn("counter pointer " + hex(counter_ptr) + " of the data record at " +
                    std::string(kCorrelatedDataSection) + " offset " + hex(at) + " is outside " +
                    std::string(kCountersSection) + " [" + hex(counters_begin) + ", " +
                    hex(counters_end) + ")");
    f.counter_offset = counter_ptr - counters_begin;  // wraps when below: reading then fails
    add_correlated_function(c, f, seen);
  }
  warnings.finish();
  if (c.functions.empty())
    return Unexpected{correlation_error(
        data->header_offset, "could not find any profile data metadata in correlated file")};
  if (names_bytes.empty())
    return Unexpected{correlation_error(
        names->header_offset, "could not find any profile data metadata in object file")};
  c.names_blob.assign(as_string_view(names_bytes));
  return c;
}

}  // namespace profkit::instrprof
