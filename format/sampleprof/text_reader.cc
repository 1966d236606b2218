#include "format/sampleprof/text_reader.h"

#include <cstring>

#include "format/bytes/llvm_lines.h"

namespace profkit::sampleprof {
namespace {

constexpr size_t npos = std::string_view::npos;

// std::string_view::substr without the exception: the start is clamped to the size, as in
// LLVM's StringRef, whose index arithmetic (including npos + 1 == 0) the grammar relies on.
std::string_view sub(std::string_view s, size_t start, size_t n = npos) {
  start = std::min(start, s.size());
  return s.substr(start, std::min(n, s.size() - start));
}

bool parse_u64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, uint64_t(c - '0'), &v))
      return false;
  }
  out = v;
  return true;
}

bool parse_u32(std::string_view s, uint32_t& out) {
  uint64_t v = 0;
  if (!parse_u64(s, v) || v > 0xffffffffu) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

// A signed int, as LLVM parses the line of a context frame (then stored as uint32).
bool parse_int(std::string_view s, int32_t& out) {
  bool negative = !s.empty() && s[0] == '-';
  uint64_t v = 0;
  if (!parse_u64(negative ? s.substr(1) : s, v)) return false;
  if (negative ? v > 0x80000000ull : v > 0x7fffffffull) return false;
  out = negative ? static_cast<int32_t>(-static_cast<int64_t>(v)) : static_cast<int32_t>(v);
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// NAME:TOTAL:HEAD, split at the last two colons.
bool parse_head(std::string_view line, std::string_view& name, uint64_t& total, uint64_t& head) {
  if (line.empty() || line[0] == ' ') return false;
  const size_t n2 = line.rfind(':');
  const size_t n1 = line.rfind(':', n2 - 1);  // n2 == npos or 0 wrap around as in LLVM
  name = sub(line, 0, n1);
  if (!parse_u64(sub(line, n1 + 1, n2 - n1 - 1), total)) return false;
  return parse_u64(sub(line, n2 + 1), head);
}

// `[f1:L1[.D1] @ f2:L2 @ leaf]`: brackets dropped unchecked, frames split at " @ ", each at
// its first colon; an unparsable line or discriminator silently becomes 0.
std::vector<Frame> parse_context(std::string_view text) {
  text = sub(text, 1, text.size() - 2);
  std::vector<Frame> frames;
  while (!text.empty()) {
    const size_t at = text.find(" @ ");
    std::string_view frame = text.substr(0, at);
    text = at == npos ? std::string_view() : text.substr(at + 3);
    Frame f;
    const size_t colon = frame.find(':');
    f.name = FunctionId(frame.substr(0, colon));
    if (colon != npos && colon + 1 < frame.size()) {
      std::string_view loc = frame.substr(colon + 1);
      const size_t dot = loc.find('.');
      int32_t line = 0;
      if (parse_int(loc.substr(0, dot), line)) f.location.line = static_cast<uint32_t>(line);
      if (dot != npos) {
        uint32_t disc = 0;
        if (parse_u32(loc.substr(dot + 1), disc)) f.location.discriminator = disc;
      }
    }
    frames.push_back(f);
  }
  return frames;
}

enum class LineKind { body, callsite, vtable, metadata };

struct ParsedLine {
  LineKind kind = LineKind::body;
  uint32_t depth = 0;
  LineLocation loc;
  uint64_t count = 0;
  std::string_view callee;
  std::vector<std::pair<std::string_view, uint64_t>> items;  // targets or vtable types
  uint64_t checksum = 0;
  uint32_t attributes = 0;
  bool flat = false;
};

std::string_view trim(std::string_view s) {
  const char* ws = " \t\n\v\f\r";
  const size_t b = s.find_first_not_of(ws);
  if (b == npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool parse_metadata(std::string_view s, ParsedLine& p) {
  if (s.starts_with("!CFGChecksum:")) return parse_u64(trim(s.substr(13)), p.checksum);
  if (s.starts_with("!Attributes:")) return parse_u32(trim(s.substr(12)), p.attributes);
  return false;
}

// TYPE:COUNT items separated by spaces; a duplicate type is an error.
bool parse_vtables(std::string_view s, ParsedLine& p) {
  for (size_t i = s.find_first_not_of(' '); i != npos;) {
    const size_t colon = s.find(':', i);
    if (colon == npos) return false;
    std::string_view type = s.substr(i, colon - i);
    const size_t next = s.find(' ', colon + 1);
    uint64_t count = 0;
    if (!parse_u64(sub(s, colon + 1, next == npos ? npos : next - colon - 1), count)) return false;
    for (const auto& [t, c] : p.items)
      if (t == type) return false;
    p.items.emplace_back(type, count);
    i = next == npos ? npos : s.find_first_not_of(' ', next);
  }
  return true;
}

// One indented line. Index arithmetic follows LLVM's parser, so that the same lines are
// accepted (including oddities such as " 5" meaning "5: 5").
bool parse_line(std::string_view in, ParsedLine& p) {
  uint32_t depth = 0;
  while (depth < in.size() && in[depth] == ' ') ++depth;
  p.depth = depth;
  if (depth == 0 || depth == in.size()) return false;
  if (in[depth] == '!') {
    p.kind = LineKind::metadata;
    if (depth == 1 && in == " !Flat") {
      p.flat = true;
      return true;
    }
    return parse_metadata(in.substr(depth), p);
  }
  const size_t n1 = in.find(':');
  std::string_view loc = sub(in, depth, n1 - depth);
  const size_t n2 = loc.find('.');
  if (n2 == npos) {
    if (!parse_u32(loc, p.loc.line) || p.loc.line > 0xffff) return false;
  } else {
    if (!parse_u32(loc.substr(0, n2), p.loc.line)) return false;
    if (!parse_u32(loc.substr(n2 + 1), p.loc.discriminator)) return false;
  }
  std::string_view rest = sub(in, n1 + 2);
  if (rest.empty()) return false;
  if (is_digit(rest[0])) {
    p.kind = LineKind::body;
    size_t n3 = rest.find(' ');
    if (!parse_u64(rest.substr(0, n3), p.count)) return false;
    while (n3 != npos) {
      const size_t skip = rest.substr(n3).find_first_not_of(' ');
      if (skip == npos) return false;  // trailing spaces
      rest = rest.substr(n3 + skip);
      n3 = rest.find(':');
      if (n3 == npos || n3 == 0) return false;
      // Colon + integer anchors: a target may contain colons and spaces.
      uint64_t count = 0;
      size_t n4 = 0;
      std::string_view target;
      while (true) {
        std::string_view after = rest.substr(n3 + 1);
        target = rest.substr(0, n3);
        const size_t sp = after.find(' ');
        n4 = sp != npos ? n3 + sp + 1 : rest.size();
        if (parse_u64(sub(rest, n3 + 1, n4 - n3 - 1), count)) break;
        const size_t n5 = after.find(':');
        if (n5 == npos) return false;
        n3 += n5 + 1;
      }
      bool replaced = false;  // the same target twice on a line: the last count wins
      for (auto& [t, c] : p.items) {
        if (t == target) {
          c = count;
          replaced = true;
        }
      }
      if (!replaced) p.items.emplace_back(target, count);
      if (n4 == rest.size()) break;
      n3 = n4;
    }
    return true;
  }
  if (rest.starts_with("vtables ")) {
    p.kind = LineKind::vtable;
    return parse_vtables(rest.substr(8), p);
  }
  p.kind = LineKind::callsite;
  const size_t n3 = rest.rfind(':');
  p.callee = sub(rest, 0, n3);
  return parse_u64(sub(rest, n3 + 1), p.count);
}

Unexpected line_error(uint64_t offset, uint64_t number, std::string message,
                      std::string_view line) {
  if (line.size() > 200) line = line.substr(0, 200);
  return make_error(ErrorCode::malformed, offset,
                    "line " + std::to_string(number) + ": " + message + ", found '" +
                        std::string(line) + "'");
}

}  // namespace

// The text up to its first NUL byte, which ends it for LLVM's reader.
std::string_view text_of(Bytes data) {
  const std::string_view text = as_string_view(data);
  return text.substr(0, text.find('\0'));
}

bool has_text_format(Bytes data) {
  LlvmLines lines(text_of(data));
  if (!lines.has_line()) return false;
  std::string_view name;
  uint64_t total = 0, head = 0;
  return parse_head(lines.line(), name, total, head);
}

Expected<Profile> read_text(Bytes data) {
  if (!has_text_format(data))
    return make_error(ErrorCode::bad_magic, 0,
                      "not a sample profile: expected a binary or extbinary magic, or a text "
                      "header 'NAME:TOTAL:HEAD' on the first line");
  Profile profile;
  profile.format = Format::text;
  std::vector<FunctionSamples*> stack;
  uint32_t metadata_depth = 0;
  uint64_t cs_headers = 0, plain_headers = 0, probe_functions = 0;
  MergeResult result = MergeResult::ok;
  uint64_t offset = 0, number = 0;  // of the line being read
  uint64_t overflow_offset = 0, overflow_line = 0;
  auto record = [&](MergeResult r) {
    if (r != MergeResult::ok && result == MergeResult::ok) {
      result = r;
      overflow_offset = offset;
      overflow_line = number;
    }
  };
  for (LlvmLines lines(text_of(data)); lines.has_line(); lines.next()) {
    const std::string_view line = lines.line();
    offset = lines.offset();
    number = lines.line_number();
    const size_t first = line.find_first_not_of(' ');
    if (first == npos || line[first] == '#') continue;
    if (line[0] != ' ') {
      std::string_view name;
      uint64_t total = 0, head = 0;
      if (!parse_head(line, name, total, head))
        return line_error(offset, number, "expected 'mangled_name:NUM:NUM'", line);
      metadata_depth = 0;
      FunctionSamples fresh;
      if (!name.empty() && name[0] == '[') {
        fresh.context = parse_context(name);
        if (fresh.context.empty())
          return line_error(offset, number, "expected a calling context inside '[...]'", line);
        fresh.name = fresh.context.back().name;
        ++cs_headers;
      } else {
        fresh.name = FunctionId(name);
        ++plain_headers;
      }
      // LLVM asserts against the mix and, built without assertions, writes binary profiles
      // of it that it cannot read back.
      if (cs_headers > 0 && plain_headers > 0)
        return line_error(offset, number,
                          "a profile cannot mix context-sensitive ('[...]') and regular "
                          "top-level profiles",
                          line);
      const uint64_t key = fresh.key();
      auto [it, inserted] = profile.functions.try_emplace(key);
      if (inserted) it->second = std::move(fresh);
      FunctionSamples& f = it->second;
      MergeResult r = MergeResult::ok;
      f.total = saturating_add_mul(f.total, total, 1, r);
      f.head = saturating_add_mul(f.head, head, 1, r);
      record(r);
      stack.assign(1, &f);
      continue;
    }
    ParsedLine p;
    if (!parse_line(line, p)) {
      switch (p.kind) {
        case LineKind::metadata:
          return line_error(offset, number, "cannot parse metadata", line);
        case LineKind::vtable:
          return line_error(offset, number, "expected 'vtables [mangled_vtable:NUM]+'", line);
        default:
          return line_error(offset, number, "expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*'",
                            line);
      }
    }
    if (p.kind != LineKind::metadata && p.depth == metadata_depth)
      return line_error(offset, number, "found non-metadata after metadata", line);
    if (stack.empty())
      return line_error(offset, number, "expected a function header before this line", line);
    while (stack.size() > p.depth) stack.pop_back();
    FunctionSamples& top = *stack.back();
    switch (p.kind) {
      case LineKind::callsite: {
        const FunctionId callee(p.callee);
        if (stack.size() > kMaxInlineDepth)
          return line_error(offset, number,
                            "inlinees nested deeper than " + std::to_string(kMaxInlineDepth) +
                                " levels",
                            line);
        FunctionSamples& inlinee = top.callsites[p.loc][callee];
        inlinee.name = callee;  // a repeated callsite line resets the attributes, as in LLVM
        inlinee.context.clear();
        inlinee.attributes = 0;
        MergeResult r = MergeResult::ok;
        inlinee.total = saturating_add_mul(inlinee.total, p.count, 1, r);
        record(r);
        stack.push_back(&inlinee);
        metadata_depth = 0;
        break;
      }
      case LineKind::vtable: {
        auto& types = top.vtables[p.loc];
        for (const auto& [type, n] : p.items) {
          MergeResult r = MergeResult::ok;
          uint64_t& c = types[FunctionId(type)];
          c = saturating_add_mul(c, n, 1, r);
          record(r);
        }
        break;
      }
      case LineKind::body:
        for (const auto& [target, n] : p.items) record(top.add_target(p.loc, FunctionId(target), n));
        record(top.add_body(p.loc, p.count));
        break;
      case LineKind::metadata:
        if (p.checksum != 0) {
          top.checksum = p.checksum;
          if (p.depth == 1) ++probe_functions;
        }
        top.attributes = p.attributes;  // every metadata line sets them (0 if it has none)
        if (p.attributes & kContextShouldBeInlined) profile.is_preinlined = true;
        metadata_depth = p.depth;
        break;
    }
  }
  if (result == MergeResult::counter_overflow)
    return make_error(ErrorCode::malformed, overflow_offset,
                      "line " + std::to_string(overflow_line) +
                          ": counter overflow: the sum of counts exceeds 2^64-1");
  profile.is_cs = cs_headers > 0;
  profile.is_probe_based = probe_functions > 0;
  profile.summary = compute_summary(profile);
  return profile;
}

}  // namespace profkit::sampleprof
