// Text profile reader (docs/formats/irpgo.md 4.1).
#include "format/instrprof/text_reader.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "format/bytes/cursor.h"
#include "format/bytes/llvm_lines.h"
#include "format/bytes/hash.h"

namespace profkit::instrprof {
namespace {

constexpr std::string_view kExternalSymbol = "** External Symbol **";

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// LLVM's StringRef::getAsInteger for unsigned types: the whole string must be digits of
// `radix` (0 = auto: 0x, 0b, 0o, leading 0 = octal, else decimal) and fit in `max`.
std::optional<uint64_t> parse_uint(std::string_view s, unsigned radix, uint64_t max) {
  if (radix == 0) {
    auto starts = [&](std::string_view p) {
      if (s.size() < p.size()) return false;
      for (size_t i = 0; i < p.size(); ++i)
        if ((s[i] | 0x20) != p[i]) return false;
      return true;
    };
    if (starts("0x")) {
      radix = 16;
      s.remove_prefix(2);
    } else if (starts("0b")) {
      radix = 2;
      s.remove_prefix(2);
    } else if (s.starts_with("0o")) {
      radix = 8;
      s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
      radix = 8;
      s.remove_prefix(1);
    } else {
      radix = 10;
    }
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    const int d = digit_value(c);
    if (d >= static_cast<int>(radix)) return std::nullopt;
    if (mul_overflows(v, radix, &v) || add_overflows(v, static_cast<uint64_t>(d), &v))
      return std::nullopt;
  }
  if (v > max) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\n\v\f\r";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

class TextParser {
 public:
  explicit TextParser(std::string_view text) : lines_(text), text_size_(text.size()) {}

  Expected<Profile> parse() {
    profile_.format = ProfileFormat::text;
    PROFKIT_TRY(parse_header());
    while (lines_.has_line()) PROFKIT_TRY(parse_record());
    profile_.version_word = profile_.flags;
    for (const std::string& n : call_target_names_)
      if (!record_names_.count(n)) profile_.extra_names.push_back(n);
    return std::move(profile_);
  }

 private:
  Unexpected fail(ErrorCode code, std::string message) const {
    return make_error(code, lines_.offset(), std::move(message));
  }
  Unexpected malformed(std::string message) const {
    return fail(ErrorCode::malformed, std::move(message));
  }

  // Requires a current line; reports truncation naming what was expected otherwise.
  Expected<std::string_view> need_line(std::string_view what) const {
    if (!lines_.has_line())
      return make_error(ErrorCode::truncated, text_size_,
                        "expected " + std::string(what) + " but the input ends");
    return lines_.line();
  }

  Expected<uint64_t> read_uint(std::string_view what, unsigned radix, uint64_t max) {
    PROFKIT_TRY_ASSIGN(std::string_view line, need_line(what));
    auto v = parse_uint(line, radix, max);
    if (!v) return malformed("expected " + std::string(what) + ", got '" + std::string(line) + "'");
    last_offset_ = lines_.offset();
    lines_.next();
    return *v;
  }

  Expected<void> parse_header() {
    while (lines_.has_line() && lines_.line().starts_with(':')) {
      const std::string keyword = lower(lines_.line().substr(1));
      if (keyword == "ir") {
        profile_.flags |= kFlagIR;
      } else if (keyword == "fe") {
        profile_.text_front_end = true;
      } else if (keyword == "csir") {
        profile_.flags |= kFlagIR | kFlagCSIR;
      } else if (keyword == "entry_first") {
        profile_.flags |= kFlagEntryFirst;
      } else if (keyword == "not_entry_first") {
        profile_.flags &= ~kFlagEntryFirst;
      } else if (keyword == "instrument_loop_entries") {
        profile_.flags |= kFlagInstrLoopEntries;
      } else if (keyword == "single_byte_coverage") {
        profile_.flags |= kFlagByteCoverage;
      } else if (keyword == "temporal_prof_traces") {
        profile_.flags |= kFlagTemporal;
        lines_.next();
        PROFKIT_TRY(parse_traces());
        continue;
      } else {
        return malformed("expected a header flag (ir, fe, csir, entry_first, not_entry_first, "
                         "instrument_loop_entries, single_byte_coverage, temporal_prof_traces)");
      }
      lines_.next();
    }
    return {};
  }

  Expected<void> parse_traces() {
    constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
    constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
    PROFKIT_TRY_ASSIGN(uint64_t num_traces, read_uint("the number of temporal traces", 0, kU32));
    PROFKIT_TRY_ASSIGN(profile_.trace_stream_size,
                       read_uint("the temporal trace stream size", 0, kU64));
    for (uint64_t t = 0; t < num_traces; ++t) {
      TemporalTrace trace;
      PROFKIT_TRY_ASSIGN(trace.weight, read_uint("a temporal trace weight", 0, kU64));
      PROFKIT_TRY_ASSIGN(std::string_view names, need_line("a temporal trace's function names"));
      while (!names.empty()) {
        const size_t comma = names.find(',');
        const std::string_view item = trim(names.substr(0, comma));
        if (!item.empty()) trace.function_refs.push_back(md5_name_ref(item));
        if (comma == std::string_view::npos) break;
        names.remove_prefix(comma + 1);
      }
      lines_.next();
      profile_.traces.push_back(std::move(trace));
    }
    return {};
  }

  Expected<void> parse_record() {
    constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
    const uint64_t record_at = lines_.offset();
    Record r;
    r.name = std::string(lines_.line());
    lines_.next();
    PROFKIT_TRY_ASSIGN(r.hash, read_uint("a function hash", 0, kU64));
    PROFKIT_TRY_ASSIGN(uint64_t num_counters, read_uint("the number of counters", 10, kU64));
    if (num_counters == 0) {
      return make_error(ErrorCode::malformed, lines_.offset(),
                        "expected a non-zero number of counters for '" + r.name + "'");
    }
    r.counts.reserve(std::min<uint64_t>(num_counters, lines_.remaining_bytes() / 2 + 1));
    for (uint64_t i = 0; i < num_counters; ++i) {
      PROFKIT_TRY_ASSIGN(uint64_t c, read_uint("a counter value", 10, kU64));
      r.counts.push_back(c);
    }
    if (lines_.has_line() && lines_.line().starts_with('$')) {
      auto n = parse_uint(trim(lines_.line().substr(1)), 0, kU64);
      if (!n) return malformed("expected the number of bitmap bytes after '$'");
      lines_.next();
      r.bitmap.reserve(std::min<uint64_t>(*n, lines_.remaining_bytes() / 2 + 1));
      for (uint64_t i = 0; i < *n; ++i) {
        PROFKIT_TRY_ASSIGN(uint64_t b, read_uint("a bitmap byte", 0, 0xFF));
        r.bitmap.push_back(static_cast<uint8_t>(b));
      }
    }
    PROFKIT_TRY(parse_value_data(r));
    return add_record(std::move(r), record_at);
  }

  Expected<void> parse_value_data(Record& r) {
    constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
    constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
    if (!lines_.has_line()) return {};
    auto num_kinds = parse_uint(lines_.line(), 10, kU32);
    if (!num_kinds) return {};  // the next record's name: no value data
    if (*num_kinds == 0 || *num_kinds > kNumValueKinds)
      return malformed("expected 1.." + std::to_string(kNumValueKinds) +
                       " value kinds, got " + std::to_string(*num_kinds));
    lines_.next();
    for (uint64_t k = 0; k < *num_kinds; ++k) {
      PROFKIT_TRY_ASSIGN(uint64_t kind, read_uint("a value kind", 10, kU32));
      if (kind >= kNumValueKinds)
        return make_error(ErrorCode::malformed, last_offset_,
                          "expected a value kind <= " + std::to_string(kNumValueKinds - 1) +
                              ", got " + std::to_string(kind));
      PROFKIT_TRY_ASSIGN(uint64_t num_sites, read_uint("the number of value sites", 10, kU32));
      auto& sites = r.value_sites[kind];
      for (uint64_t s = 0; s < num_sites; ++s) {
        PROFKIT_TRY_ASSIGN(uint64_t num_values,
                           read_uint("the number of values at a site", 10, kU32));
        ValueSite site;
        for (uint64_t v = 0; v < num_values; ++v) {
          PROFKIT_TRY_ASSIGN(std::string_view line, need_line("a value:count pair"));
          const size_t colon = line.rfind(':');
          const std::string_view target =
              colon == std::string_view::npos ? line : line.substr(0, colon);
          const std::string_view count_text =
              colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
          ValueData vd;
          if (kind == static_cast<uint64_t>(ValueKind::mem_op_size)) {
            auto value = parse_uint(target, 10, kU64);
            if (!value) return malformed("expected a decimal value before ':'");
            vd.value = *value;
          } else if (target == kExternalSymbol) {
            vd.value = 0;
          } else {
            vd.value = md5_name_ref(target);
            note_target_name(kind, target);
          }
          auto count = parse_uint(count_text, 10, kU64);
          if (!count) return malformed("expected a decimal count after the last ':'");
          vd.count = *count;
          site.push_back(vd);
          lines_.next();
        }
        sites.push_back(std::move(site));
      }
    }
    return {};
  }

  void note_target_name(uint64_t kind, std::string_view name) {
    std::string n(name);
    if (kind == static_cast<uint64_t>(ValueKind::vtable_target)) {
      if (vtable_seen_.insert(n).second) profile_.vtable_names.push_back(n);
    } else if (call_target_seen_.insert(n).second) {
      call_target_names_.push_back(std::move(n));
    }
  }

  // Records are kept one by one, repeats included, as LLVM's text reader returns them: `show`
  // prints each, and merging them (the merge's rules, with its counter-mismatch warnings)
  // is the merge's job.
  Expected<void> add_record(Record r, uint64_t /*record_at*/) {
    record_names_.insert(r.name);
    profile_.records.push_back(std::move(r));
    return {};
  }

  LlvmLines lines_;
  uint64_t text_size_;
  uint64_t last_offset_ = 0;
  Profile profile_;
  std::set<std::string> record_names_;
  std::set<std::string> vtable_seen_;
  std::set<std::string> call_target_seen_;
  std::vector<std::string> call_target_names_;
};

}  // namespace

bool looks_like_text_profile(std::string_view text) {
  // LLVM looks at the first 8 bytes only (the size of a magic), so a text profile may hold
  // non-ASCII names anywhere after them.
  const std::string_view head = text.substr(0, std::min<size_t>(text.size(), 8));
  for (char c : head) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool printable = u >= 0x20 && u < 0x7f;
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    if (!printable && !space) return false;
  }
  return true;
}

Expected<Profile> read_text_profile(std::string_view text) {
  return TextParser(text).parse();
}

}  // namespace profkit::instrprof
