#include "profgen/perf_script.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "profgen/parse.h"

namespace profkit::profgen {

namespace {

// Radix 0: "0x" means hex, a leading "0" octal, else decimal (LLVM's auto-sensed radix).
bool parse_auto(std::string_view s, uint64_t& out) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return parse_unsigned(s.substr(2), 16, out);
  if (s.size() >= 2 && s[0] == '0') return parse_unsigned(s.substr(1), 8, out);
  return parse_unsigned(s, 10, out);
}

// Tokens separated by single blanks, empty ones dropped (StringRef::split, KeepEmpty=false),
// with at most `max_split` splits (-1: unlimited).
void split_blanks(std::string_view s, int max_split, std::vector<std::string_view>& out) {
  out.clear();
  while (max_split-- != 0) {
    const size_t at = s.find(' ');
    if (at == std::string_view::npos) break;
    if (at > 0) out.push_back(s.substr(0, at));
    s = s.substr(at + 1);
  }
  if (!s.empty()) out.push_back(s);
}

bool is_lbr_sample_line(std::string_view line) {
  std::vector<std::string_view> records;
  std::string_view t = rtrim(ltrim(line));
  split_blanks(t, 2, records);
  if (records.size() < 2) return false;
  return records[1].substr(0, 2) == "0x" && records[1].find('/') != std::string_view::npos;
}

bool is_mmap_event(std::string_view line) {
  if (line.size() < 50) return false;
  if (std::isdigit(static_cast<unsigned char>(line[0]))) return false;
  return line.find("PERF_RECORD_MMAP") != std::string_view::npos;
}

// Matches `[-]DIGITS` at `s`; returns the length, 0 if none.
size_t match_pid(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  const size_t digits = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > digits ? i : 0;
}
size_t match_digits(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i;
}
// `0x[a-f0-9]+`; returns the length, 0 if none.
size_t match_hex(std::string_view s) {
  if (s.substr(0, 2) != "0x") return 0;
  size_t i = 2;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) ++i;
  return i > 2 ? i : 0;
}

// llvm-profgen's patterns, matched by hand (a regex engine would recurse per character on
// hostile long lines):
//   PERF_RECORD_MMAP2 (-?[0-9]+)/[0-9]+: \[(0x[a-f0-9]+)\((0x[a-f0-9]+)\) @ (0x[a-f0-9]+|0) .*\]: ([-a-z]+) (.*)
//   PERF_RECORD_MMAP (-?[0-9]+)/[0-9]+: \[(0x[a-f0-9]+)\((0x[a-f0-9]+)\) @ (0x[a-f0-9]+|0)\]: ([-a-z]+) (.*)
bool match_mmap_at(std::string_view s, bool mmap2, MmapEvent& e) {
  size_t n = match_pid(s);
  if (n == 0) return false;
  std::string_view pid = s.substr(0, n);
  s.remove_prefix(n);
  if (s.empty() || s[0] != '/') return false;
  s.remove_prefix(1);
  n = match_digits(s);
  if (n == 0) return false;
  s.remove_prefix(n);
  if (s.substr(0, 3) != ": [") return false;
  s.remove_prefix(3);
  n = match_hex(s);
  if (n == 0) return false;
  std::string_view address = s.substr(0, n);
  s.remove_prefix(n);
  if (s.empty() || s[0] != '(') return false;
  s.remove_prefix(1);
  n = match_hex(s);
  if (n == 0) return false;
  std::string_view size = s.substr(0, n);
  s.remove_prefix(n);
  if (s.substr(0, 4) != ") @ ") return false;
  s.remove_prefix(4);
  n = match_hex(s);
  if (n == 0 && !s.empty() && s[0] == '0') n = 1;
  if (n == 0) return false;
  std::string_view offset = s.substr(0, n);
  s.remove_prefix(n);
  std::string_view rest;
  if (mmap2) {
    if (s.empty() || s[0] != ' ') return false;
    s.remove_prefix(1);
    // `.*\]: ([-a-z]+) (.*)`: the greedy `.*` takes the last "]: " that is followed by a
    // protection and a blank.
    bool found = false;
    for (size_t at = s.rfind("]: "); at != std::string_view::npos;
         at = at == 0 ? std::string_view::npos : s.rfind("]: ", at - 1)) {
      std::string_view t = s.substr(at + 3);
      size_t k = 0;
      while (k < t.size() && (t[k] == '-' || (t[k] >= 'a' && t[k] <= 'z'))) ++k;
      if (k > 0 && k < t.size() && t[k] == ' ') {
        rest = t;
        found = true;
        break;
      }
    }
    if (!found) return false;
  } else {
    if (s.substr(0, 3) != "]: ") return false;
    rest = s.substr(3);
    size_t k = 0;
    while (k < rest.size() && (rest[k] == '-' || (rest[k] >= 'a' && rest[k] <= 'z'))) ++k;
    if (k == 0 || k >= rest.size() || rest[k] != ' ') return false;
  }
  size_t k = 0;
  while (rest[k] == '-' || (rest[k] >= 'a' && rest[k] <= 'z')) ++k;
  e.path = rest.substr(k + 1);
  // Conversions as LLVM does them: a value that does not fit leaves the field at 0.
  e.pid = 0;
  {
    uint64_t v = 0;
    const bool neg = pid[0] == '-';
    if (parse_unsigned(pid.substr(neg ? 1 : 0), 10, v) && v <= static_cast<uint64_t>(INT64_MAX))
      e.pid = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  e.address = e.size = e.offset = 0;
  parse_auto(address, e.address);
  parse_auto(size, e.size);
  parse_auto(offset, e.offset);
  return true;
}

std::string hex_address(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

// A sample address line of a script without branch stacks: `[blanks]HEX[ SYMBOL][ (DSO)]`
// (`perf script -F ip[,sym][,dso]`; call-stack lines are tab-indented). `dso` is the last
// parenthesized group, empty when there is none.
bool parse_ip_line(std::string_view line, uint64_t& address, std::string_view& dso) {
  const std::string_view t = rtrim(ltrim(line));
  const size_t blank = t.find(' ');
  if (!parse_unsigned(t.substr(0, blank), 16, address)) return false;
  dso = {};
  if (blank != std::string_view::npos && t.back() == ')') {
    const size_t open = t.rfind(" (");
    if (open != std::string_view::npos) dso = t.substr(open + 2, t.size() - open - 3);
  }
  return true;
}

class Reader {
 public:
  Reader(const ProfiledBinary& binary, const ScriptOptions& options, const LineSink& warn,
         const LineSink& out, const BatchSink& sink,
         const std::function<void(uint64_t)>& consumed)
      : binary_(binary), options_(options), warn_(warn), out_(out), sink_(sink),
        consumed_(consumed), base_(binary.preferred_base()) {}

  Expected<ParsedScript> run(std::string_view text, ScriptKind kind) {
    result_.kind = kind;
    TraceLines lines(text);
    uint64_t reported = 0;  // consumed_ was told about the text before this offset
    while (!lines.at_eof()) {
      if (batch_bytes_ >= options_.batch_bytes) flush();
      // Samples hold no views of the text: what is parsed may leave memory at once, not
      // only at the end of a batch (whose text can be larger than the batch).
      if (consumed_ && lines.offset() - reported >= kConsumedStep) {
        reported = lines.offset();
        consumed_(reported);
      }
      if (is_mmap_event(lines.line())) {
        PROFKIT_TRY(mmap_event(lines.line(), lines.offset()));
        lines.advance();
        continue;
      }
      ++result_.total_samples;
      uint64_t count = 1;
      if (parse_unsigned(lines.line(), 10, count)) lines.advance();
      if (kind == ScriptKind::hybrid) {
        PROFKIT_TRY(hybrid_sample(lines, count));
      } else if (kind == ScriptKind::ip_only) {
        ip_sample(lines, count);
      } else {
        lbr_only_sample(lines, count);
      }
    }
    flush();
    std::sort(invalid_returns_.begin(), invalid_returns_.end());
    invalid_returns_.erase(std::unique(invalid_returns_.begin(), invalid_returns_.end()),
                           invalid_returns_.end());
    result_.invalid_return_addresses = std::move(invalid_returns_);
    return std::move(result_);
  }

 private:
  static constexpr uint64_t kConsumedStep = uint64_t{4} << 20;

  uint64_t canonical(uint64_t a) const { return a - base_ + binary_.preferred_base(); }

  Expected<void> mmap_event(std::string_view line, uint64_t at) {
    MmapEvent e;
    if (!parse_mmap_event(line, e)) {
      warn_("Cannot parse mmap event: " + std::string(line) + " ");
      return {};
    }
    if (options_.show_mmap_events)
      out_("Mmap: Binary " + std::string(e.path) + " loaded at " + hex_address(e.address) +
           ": \n");
    if (file_name_of(e.path) != binary_.file_name()) return {};
    if (options_.pid && e.pid != *options_.pid) return {};
    mappings_.emplace_back(e.address, e.size);
    if (e.address == base_) {
      loaded_by_mmap_ = true;
      return {};
    }
    const auto& offsets = binary_.text_segment_offsets();
    if (e.offset == offsets.front()) {
      base_ = e.address;
      loaded_by_mmap_ = true;
      return {};
    }
    auto it = std::lower_bound(offsets.begin(), offsets.end(), e.offset);
    if (it != offsets.end() && *it == e.offset) {
      const size_t i = static_cast<size_t>(it - offsets.begin());
      if (binary_.preferred_text_addresses()[i] - binary_.preferred_base() != e.address - base_)
        return fatal(at, "Executable segments not loaded consecutively");
      return {};
    }
    if (it == offsets.begin()) return fatal(at, "File offset not found");
    --it;
    if (e.offset - *it != e.address - base_)
      return fatal(at, "Segment not loaded by consecutive mmaps");
    return {};
  }

  static Unexpected fatal(uint64_t at, std::string message) {
    return Unexpected{Error{ErrorCode::malformed, at, std::move(message)}};
  }

  void warn_if_missing_mmap() {
    if (missing_mmap_warned_ || loaded_by_mmap_) return;
    warn_("No relevant mmap event is matched for " + std::string(binary_.file_name()) +
          ", will use preferred address (" + hex_address(binary_.preferred_base()) +
          ") as the base loading address!");
    missing_mmap_warned_ = true;
  }

  void warn_invalid_lbr(const TraceLines& lines) {
    warn_("Invalid address in LBR record at line " + std::to_string(lines.line_number()) +
          ": " + std::string(lines.line()));
  }

  // One branch-stack line; advances past it. False when it holds no usable entry.
  bool extract_lbr(TraceLines& lines, std::vector<LbrEntry>& lbr) {
    split_blanks(rtrim(lines.line()), -1, records_);
    size_t index = 0;
    if (!records_.empty() && records_[0].find('/') == std::string_view::npos) {
      uint64_t ip = 0;
      if (!parse_unsigned(records_[0], 16, ip)) {
        warn_invalid_lbr(lines);
        lines.advance();
        return false;
      }
      index = 1;
    }
    for (; index < records_.size(); ++index) {
      std::string_view token = records_[index];
      const size_t slash = token.find('/');
      if (slash == std::string_view::npos) {
        warn_invalid_lbr(lines);
        break;
      }
      std::string_view from = token.substr(0, slash);
      std::string_view rest = token.substr(slash + 1);
      std::string_view to = rest.substr(0, rest.find('/'));
      uint64_t src = 0, dst = 0;
      if (!parse_unsigned(from.substr(std::min<size_t>(2, from.size())), 16, src) ||
          !parse_unsigned(to.substr(std::min<size_t>(2, to.size())), 16, dst)) {
        warn_invalid_lbr(lines);
        break;
      }
      src = canonical(src);
      dst = canonical(dst);
      const bool src_in = binary_.is_code(src);
      const bool dst_in = binary_.is_code(dst);
      if (!src_in && !dst_in) continue;  // external to external: nothing to learn
      lbr.push_back(LbrEntry{src_in ? src : kExternalAddress, dst_in ? dst : kExternalAddress});
    }
    lines.advance();
    return !lbr.empty();
  }

  void lbr_only_sample(TraceLines& lines, uint64_t count) {
    sample_.stack.clear();
    sample_.lbr.clear();
    if (extract_lbr(lines, sample_.lbr)) {
      warn_if_missing_mmap();
      aggregate(count);
    }
  }

  static bool starts_lbr_line(std::string_view line) { return line.substr(0, 3) == " 0x"; }

  // Call-stack lines up to the branch-stack line. False when the sample is unusable.
  bool extract_stack(TraceLines& lines, std::vector<uint64_t>& stack) {
    while (!lines.at_eof() && !starts_lbr_line(lines.line())) {
      uint64_t frame = 0;
      if (!parse_unsigned(ltrim(lines.line()), 16, frame)) {
        lines.advance();  // not a frame (a blank line, a comment): the sample is dropped
        return false;
      }
      lines.advance();
      frame = canonical(frame);
      if (!binary_.is_code(frame)) {
        if (stack.empty()) ++result_.leaf_external_frames;
        if (stack.empty() || stack.back() != kExternalAddress) stack.push_back(kExternalAddress);
        continue;
      }
      if (!stack.empty()) {
        const uint64_t call = binary_.call_from_return_address(frame);
        if (call == 0) {
          invalid_returns_.push_back(frame);
          break;
        }
        frame = call;
      }
      stack.push_back(frame);
    }
    if (stack.size() > 1 && stack.back() == kExternalAddress) stack.pop_back();
    while (!lines.at_eof() && !starts_lbr_line(lines.line())) lines.advance();
    return !stack.empty() && !binary_.in_prolog_epilog(stack.front());
  }

  Expected<void> hybrid_sample(TraceLines& lines, uint64_t count) {
    sample_.stack.clear();
    sample_.lbr.clear();
    if (!extract_stack(lines, sample_.stack)) {
      if (!lines.at_eof() && starts_lbr_line(lines.line())) lines.advance();
      return {};
    }
    warn_if_missing_mmap();
    if (lines.at_eof() || !starts_lbr_line(lines.line()))
      return fatal(lines.offset(), "'Hybrid perf sample is corrupted, No LBR sample line");
    if (extract_lbr(lines, sample_.lbr)) {
      if (options_.ignore_stack_samples) sample_.stack.clear();
      else sample_.stack.front() = sample_.lbr.front().target;
      aggregate(count);
    }
    return {};
  }

  // A sampled address in link-time terms. perf prints absolute addresses, or (perf 6.1
  // call chains) offsets in the DSO's file; an address inside a relevant mmap event is
  // absolute, one tagged with another DSO is outside, one tagged with the binary is a file
  // offset, an untagged one is absolute when the binary was mapped and link-time otherwise.
  uint64_t translate_ip(uint64_t a, std::string_view dso) const {
    for (const auto& [start, size] : mappings_)
      if (a >= start && a - start < size) return canonical(a);
    uint64_t link = a;
    if (!dso.empty()) {
      if (file_name_of(dso) != binary_.file_name()) return kExternalAddress;
      const auto& offsets = binary_.text_segment_offsets();
      auto it = std::upper_bound(offsets.begin(), offsets.end(), a);
      if (it == offsets.begin()) return kExternalAddress;
      --it;
      link = a - *it + binary_.preferred_text_addresses()[static_cast<size_t>(
                           it - offsets.begin())];
    } else if (!mappings_.empty()) {
      link = canonical(a);
    }
    return binary_.is_code(link) ? link : kExternalAddress;
  }

  // One sample: a space-indented IP line, or tab-indented call-stack lines (leaf first).
  void ip_sample(TraceLines& lines, uint64_t count) {
    sample_.stack.clear();
    sample_.lbr.clear();
    uint64_t address = 0;
    std::string_view dso;
    if (lines.at_eof() || !parse_ip_line(lines.line(), address, dso)) {
      lines.advance();  // a blank line, a comment
      return;
    }
    const bool chain = !lines.line().empty() && lines.line()[0] == '\t';
    bool truncated = false;
    do {
      uint64_t frame = translate_ip(address, dso);
      lines.advance();
      if (!sample_.stack.empty() && frame != kExternalAddress && !truncated) {
        const uint64_t call = binary_.call_from_return_address(frame);
        if (call == 0) {
          invalid_returns_.push_back(frame);
          truncated = true;
        }
        frame = call;
      }
      if (!truncated && !(frame == kExternalAddress && !sample_.stack.empty() &&
                          sample_.stack.back() == kExternalAddress))
        sample_.stack.push_back(frame);
    } while (chain && !lines.at_eof() && !lines.line().empty() && lines.line()[0] == '\t' &&
             parse_ip_line(lines.line(), address, dso));
    if (sample_.stack.size() > 1 && sample_.stack.back() == kExternalAddress)
      sample_.stack.pop_back();  // the start-up code below main
    if (sample_.stack.front() == kExternalAddress) {
      ++result_.leaf_external_frames;
      return;
    }
    warn_if_missing_mmap();
    aggregate(count);
  }

  void aggregate(uint64_t count) {
    key_.clear();
    auto put = [&](uint64_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(sample_.stack.size());
    for (uint64_t a : sample_.stack) put(a);
    for (const auto& e : sample_.lbr) {
      put(e.source);
      put(e.target);
    }
    const uint64_t hash = std::hash<std::string_view>()(key_);
    const uint32_t at = index_.find_or_add(hash, static_cast<uint32_t>(batch_.size()),
                                           [&](uint32_t i) {
                                             return batch_[i].sample.stack == sample_.stack &&
                                                    batch_[i].sample.lbr == sample_.lbr;
                                           });
    if (at == batch_.size()) {
      batch_.push_back(AggregatedSample{sample_, 0});
      hashes_.push_back(hash);
      batch_bytes_ += 2 * key_.size() + 128;
    }
    batch_[at].count += count;
  }

  // The samples of the batch by hash: open addressing over (hash, index) slots, equal
  // samples found by comparing them (no copy of the key is kept).
  class BatchIndex {
   public:
    // The index of the sample equal to the one `same` recognizes, or `fresh` (recorded).
    template <class Same>
    uint32_t find_or_add(uint64_t hash, uint32_t fresh, Same same) {
      if ((size_ + 1) * 4 > slots_.size() * 3) grow();
      const size_t mask = slots_.size() - 1;
      for (size_t i = hash & mask;; i = (i + 1) & mask) {
        Slot& s = slots_[i];
        if (s.index == kEmpty) {
          s = Slot{hash, fresh};
          ++size_;
          return fresh;
        }
        if (s.hash == hash && same(s.index)) return s.index;
      }
    }
    void clear() {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      size_ = 0;
    }

   private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Slot {
      uint64_t hash = 0;
      uint32_t index = kEmpty;
    };
    void grow() {
      std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));
      old.swap(slots_);
      const size_t mask = slots_.size() - 1;
      for (const Slot& s : old) {
        if (s.index == kEmpty) continue;
        size_t i = s.hash & mask;
        while (slots_[i].index != kEmpty) i = (i + 1) & mask;
        slots_[i] = s;
      }
    }
    std::vector<Slot> slots_;
    size_t size_ = 0;
  };

  // Hands the batch to the sink, marking the samples seen in earlier batches.
  void flush() {
    if (batch_.empty()) return;
    first_.assign(batch_.size(), false);
    for (size_t i = 0; i < batch_.size(); ++i) {
      first_[i] = seen_.insert(hashes_[i]);
      if (first_[i]) ++result_.unique_samples;
    }
    sink_(batch_, first_);
    batch_.clear();
    hashes_.clear();
    index_.clear();
    batch_bytes_ = 0;
  }

  // 64-bit hashes of the samples handed over, in an open-addressing table.
  class HashSet {
   public:
    bool insert(uint64_t h) {
      if (h == 0) h = 1;
      if ((size_ + 1) * 2 > slots_.size()) grow();
      size_t i = h & (slots_.size() - 1);
      while (slots_[i] != 0) {
        if (slots_[i] == h) return false;
        i = (i + 1) & (slots_.size() - 1);
      }
      slots_[i] = h;
      ++size_;
      return true;
    }

   private:
    void grow() {
      std::vector<uint64_t> old(std::max<size_t>(1024, slots_.size() * 2), 0);
      old.swap(slots_);
      size_ = 0;
      for (uint64_t h : old)
        if (h != 0) insert(h);
    }
    std::vector<uint64_t> slots_;
    size_t size_ = 0;
  };

  const ProfiledBinary& binary_;
  const ScriptOptions& options_;
  const LineSink& warn_;
  const LineSink& out_;
  const BatchSink& sink_;
  const std::function<void(uint64_t)>& consumed_;
  std::vector<AggregatedSample> batch_;
  std::vector<uint64_t> hashes_;
  std::vector<bool> first_;
  uint64_t batch_bytes_ = 0;
  HashSet seen_;
  uint64_t base_;
  bool loaded_by_mmap_ = false;
  bool missing_mmap_warned_ = false;
  ParsedScript result_;
  PerfSample sample_;
  std::vector<std::string_view> records_;
  std::string key_;
  BatchIndex index_;
  std::vector<uint64_t> invalid_returns_;
  std::vector<std::pair<uint64_t, uint64_t>> mappings_;  // relevant mmap events: start, size
};

}  // namespace

bool parse_mmap_event(std::string_view line, MmapEvent& e) {
  const bool mmap2 = line.find("PERF_RECORD_MMAP2 ") != std::string_view::npos;
  if (!mmap2 && line.find("PERF_RECORD_MMAP ") == std::string_view::npos) return false;
  const std::string_view tag = mmap2 ? "PERF_RECORD_MMAP2 " : "PERF_RECORD_MMAP ";
  for (size_t at = line.find(tag); at != std::string_view::npos; at = line.find(tag, at + 1))
    if (match_mmap_at(line.substr(at + tag.size()), mmap2, e)) return true;
  return false;
}

Expected<ScriptKind> detect_script_kind(std::string_view text) {
  TraceLines lines(text);
  uint64_t value = 0;
  while (!lines.at_eof()) {
    if (parse_unsigned(lines.line(), 10, value)) lines.advance();
    int stack_lines = 0;
    while (!lines.at_eof() && parse_unsigned(ltrim(lines.line()), 16, value)) {
      ++stack_lines;
      lines.advance();
    }
    if (!lines.at_eof()) {
      if (is_lbr_sample_line(lines.line()))
        return stack_lines > 0 ? ScriptKind::hybrid : ScriptKind::lbr_only;
      lines.advance();
    }
  }
  // No branch stack anywhere: sampled IPs (and call stacks) are still a profile.
  TraceLines again(text);
  for (; !again.at_eof(); again.advance()) {
    uint64_t address = 0;
    std::string_view dso;
    if (!is_mmap_event(again.line()) && parse_ip_line(again.line(), address, dso))
      return ScriptKind::ip_only;
  }
  return Unexpected{Error{ErrorCode::malformed, kNoOffset, "Invalid perf script input!"}};
}

Expected<ParsedScript> read_perf_script(std::string_view text, ScriptKind kind,
                                        const ProfiledBinary& binary,
                                        const ScriptOptions& options, const LineSink& warn,
                                        const LineSink& out, const BatchSink& sink,
                                        const std::function<void(uint64_t)>& consumed) {
  Reader reader(binary, options, warn, out, sink, consumed);
  return reader.run(text, kind);
}

}  // namespace profkit::profgen
