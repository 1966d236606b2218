#include "profgen/counter.h"

#include <algorithm>
#include <unordered_map>

#include "format/bytes/number_text.h"
#include "profgen/parse.h"

namespace profkit::profgen {

void add_lbr_samples(const std::vector<AggregatedSample>& samples, const ProfiledBinary& binary,
                     SampleCounter& c) {
  for (const auto& [sample, count] : samples) {
    uint64_t end = 0;
    for (const LbrEntry& e : sample.lbr) {
      const bool target_in = binary.is_code(e.target);
      if (target_in) c.branches[{e.source, e.target}] += count;
      if (target_in && binary.is_code(end) && binary.valid_range(e.target, end))
        c.ranges[{e.target, end}] += count;
      end = e.source;
    }
  }
}

void note_profiled_address(const ProfiledBinary& binary, uint64_t address,
                           std::set<uint32_t>& functions) {
  if (const FuncRange* r = binary.find_func_range(address)) functions.insert(r->function);
}

void note_profiled_functions(const ProfiledBinary& binary, const SampleCounter& c,
                             std::set<uint32_t>& functions) {
  auto note = [&](uint64_t address) { note_profiled_address(binary, address, functions); };
  for (const auto& [range, count] : c.ranges) note(range.first);
  for (const auto& [branch, count] : c.branches) {
    note(branch.first);
    note(branch.second);
  }
}

void RangeChecks::add(const std::vector<AggregatedSample>& samples) {
  for (const auto& [sample, count] : samples) {
    uint64_t end = 0;
    for (const LbrEntry& e : sample.lbr) {
      if (end != 0) add(e.target, end, count);
      end = e.source;
    }
  }
}

void RangeChecks::add(uint64_t start, uint64_t end, uint64_t count) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(start * 0x9e3779b97f4a7c15ull ^ (end + (start >> 29))) & mask;
  while (slots_[i].used && (slots_[i].start != start || slots_[i].end != end)) i = (i + 1) & mask;
  Slot& s = slots_[i];
  if (!s.used) {
    s = Slot{start, end, 0, true};
    ++size_;
  }
  s.count += count;
}

void RangeChecks::grow() {
  std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));
  old.swap(slots_);
  size_ = 0;
  for (const Slot& s : old)
    if (s.used) add(s.start, s.end, s.count);
}

uint64_t offset_origin(const ProfiledBinary& binary, OffsetBase base) {
  switch (base) {
    case OffsetBase::preferred_base: return binary.preferred_base();
    case OffsetBase::first_loadable: return binary.first_loadable_address();
    case OffsetBase::absolute: return 0;
  }
  return 0;
}

void RangeChecks::warn(const ProfiledBinary& binary, const LineSink& warn) const {
  if (size_ == 0) {
    warn("No samples in perf script!");
    return;
  }
  uint64_t total = 0, not_boundary = 0, unmatched = 0, recovered = 0, cross_function = 0,
           bogus = 0;
  for (const Slot& slot : slots_) {
    if (!slot.used) continue;
    const uint64_t start = slot.start, end = slot.end, count = slot.count;
    total += count;
    const bool start_code = binary.is_code(start), end_code = binary.is_code(end);
    if (!start_code && !end_code) continue;
    if (!start_code || (binary.class_at(end) & (kInsnCall | kInsnReturn | kInsnBranch)) == 0)
      not_boundary += count;
    const FuncRange* f = binary.find_func_range(start);
    if (f == nullptr) {
      unmatched += count;
      continue;
    }
    if (binary.functions()[f->function].from_symbol_table) recovered += count;
    if (end >= f->end) cross_function += count;
    if (start_code && end_code && !binary.valid_range(start, end)) bogus += count;
  }
  warn_summary(warn, not_boundary, total,
               "of samples are from ranges that are not on instruction boundary.");
  warn_summary(warn, unmatched, total,
               "of samples are from ranges that do not belong to any functions.");
  warn_summary(warn, recovered, total,
               "of samples are from ranges that belong to functions recovered from symbol "
               "table.");
  warn_summary(warn, cross_function, total,
               "of samples are from ranges that do cross function boundaries.");
  warn_summary(warn, bogus, total,
               "of samples are from ranges that have range start after or too far from range "
               "end acrossing the unconditinal jmp.");
}

std::string write_unsymbolized(const std::vector<ContextCounter>& counters,
                               bool context_sensitive, const ProfiledBinary& binary,
                               OffsetBase base) {
  const uint64_t origin = offset_origin(binary, base);
  std::vector<const ContextCounter*> sorted;
  for (const auto& c : counters) sorted.push_back(&c);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->context < b->context;
  });
  std::string out;
  auto print = [&](const RangeCounts& counts, std::string_view separator, unsigned indent) {
    out.append(indent, ' ');
    append_decimal(out, counts.size());
    out += '\n';
    for (const auto& [range, count] : counts) {
      out.append(indent, ' ');
      append_hex(out, range.first - origin);
      out += separator;
      append_hex(out, range.second - origin);
      out += ':';
      append_decimal(out, count);
      out += '\n';
    }
  };
  for (const ContextCounter* c : sorted) {
    unsigned indent = 0;
    if (context_sensitive) {
      out += '[';
      out += c->context;
      out += "]\n";
      indent = 2;
    }
    print(c->counter.ranges, "-", indent);
    print(c->counter.branches, "->", indent);
  }
  return out;
}

Expected<UnsymbolizedProfile> read_unsymbolized(std::string_view text,
                                                const ProfiledBinary& binary, OffsetBase base) {
  const uint64_t origin = offset_origin(binary, base);
  UnsymbolizedProfile result;
  std::unordered_map<std::string, size_t> index;
  TraceLines lines(text);
  auto invalid = [&]() -> Unexpected {
    if (lines.at_eof())
      return Unexpected{Error{ErrorCode::truncated, text.size(), "Invalid raw profile!"}};
    return Unexpected{Error{ErrorCode::malformed, lines.offset(),
                            "Invalid raw profile at line " +
                                std::to_string(lines.line_number()) + ": " +
                                std::string(lines.line())}};
  };
  auto read_counts = [&](RangeCounts& counts, std::string_view separator) -> Expected<void> {
    if (lines.at_eof()) return invalid();
    uint64_t n = 0;
    if (!parse_unsigned(ltrim(lines.line()), 10, n)) return invalid();
    lines.advance();
    while (n-- > 0) {
      if (lines.at_eof()) return invalid();
      const std::string_view l = ltrim(lines.line());
      const size_t colon = l.find(':');
      uint64_t count = 0;
      if (colon == std::string_view::npos || colon + 1 == l.size() ||
          !parse_unsigned(l.substr(colon + 1), 10, count))
        return invalid();
      const std::string_view range = l.substr(0, colon);
      const size_t sep = range.find(separator);
      uint64_t from = 0, to = 0;
      if (sep == std::string_view::npos || sep + separator.size() == range.size() ||
          !parse_unsigned(range.substr(0, sep), 16, from) ||
          !parse_unsigned(range.substr(sep + separator.size()), 16, to))
        return invalid();
      counts[{from + origin, to + origin}] += count;
      lines.advance();
    }
    return {};
  };
  while (!lines.at_eof()) {
    std::string context;
    const std::string_view line = lines.line();
    if (!line.empty() && line[0] == '[') {
      result.context_sensitive = true;
      context = std::string(line.substr(1, line.size() >= 2 && line.back() == ']'
                                               ? line.size() - 2
                                               : line.size() - 1));
      lines.advance();
    }
    auto [it, added] = index.try_emplace(context, result.counters.size());
    if (added) result.counters.push_back(ContextCounter{context, {}});
    SampleCounter& c = result.counters[it->second].counter;
    PROFKIT_TRY(read_counts(c.ranges, "-"));
    PROFKIT_TRY(read_counts(c.branches, "->"));
  }
  return result;
}

}  // namespace profkit::profgen
