// A small indentation-based YAML subset parser (block maps and sequences, flow maps and
// sequences, plain scalars) and the MemProf mapping on top of it.
#include "format/memprof/yaml_reader.h"

#include <charconv>
#include <unordered_set>

namespace profkit::memprof {
namespace {

constexpr size_t kMaxDepth = 64;

struct Node {
  enum class Kind { null, scalar, map, seq } kind = Kind::null;
  std::string scalar;
  std::vector<std::string> keys;  // map keys, parallel to `values`
  std::vector<Node> values;       // map values
  std::vector<Node> seq;
  uint64_t offset = 0;  // where the node starts in the input

  const Node* get(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return &values[i];
    return nullptr;
  }
};

struct Line {
  size_t indent;
  std::string text;  // without indentation and comments
  uint64_t offset;   // of the first non-blank character
};

Unexpected fail(uint64_t offset, std::string message) {
  return make_error(ErrorCode::malformed, offset, std::move(message));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Drops " #..." comments outside quotes.
std::string_view strip_comment(std::string_view s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;  // an escaped character
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return s.substr(0, i);
    }
  }
  return s;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// A scalar's value: single-quoted ('' is a quote), double-quoted (YAML escapes, as LLVM's
// writer emits them for names with control characters or UTF-8), or plain. Unknown or
// malformed escapes are kept as written.
std::string unquote(std::string_view s) {
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front())
    return std::string(s);
  const std::string_view body = s.substr(1, s.size() - 2);
  std::string out;
  if (s.front() == '\'') {
    for (size_t i = 0; i < body.size(); ++i) {
      out += body[i];
      if (body[i] == '\'' && i + 1 < body.size() && body[i + 1] == '\'') ++i;
    }
    return out;
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char e = body[++i];
    const auto hex = [&](size_t digits) -> bool {
      if (i + digits >= body.size()) return false;
      uint32_t v = 0;
      for (size_t k = 1; k <= digits; ++k) {
        const char c = body[i + k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return false;
        v = v * 16 + static_cast<uint32_t>(d);
      }
      if (v > 0x10ffff) return false;
      if (digits == 2) {
        out += static_cast<char>(v);
      } else {
        append_utf8(out, v);
      }
      i += digits;
      return true;
    };
    switch (e) {
      case '0': out += '\0'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 't': case '\t': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case 'e': out += '\x1b'; break;
      case ' ': case '"': case '/': case '\\': out += e; break;
      case 'N': append_utf8(out, 0x85); break;
      case '_': append_utf8(out, 0xa0); break;
      case 'L': append_utf8(out, 0x2028); break;
      case 'P': append_utf8(out, 0x2029); break;
      case 'x': if (!hex(2)) { out += '\\'; out += e; } break;
      case 'u': if (!hex(4)) { out += '\\'; out += e; } break;
      case 'U': if (!hex(8)) { out += '\\'; out += e; } break;
      default: out += '\\'; out += e; break;
    }
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  Expected<Node> document() {
    if (lines_.empty()) return Node{};
    return block(lines_[0].indent, 0);
  }
  bool done() const { return i_ >= lines_.size(); }
  uint64_t offset() const { return done() ? 0 : lines_[i_].offset; }

 private:
  static bool is_seq_item(const Line& l) {
    return l.text == "-" || (l.text.size() >= 2 && l.text[0] == '-' && l.text[1] == ' ');
  }

  Expected<Node> block(size_t indent, size_t depth) {
    if (depth > kMaxDepth) return fail(offset(), "YAML nesting too deep");
    if (done()) return Node{};
    if (is_seq_item(lines_[i_])) return sequence(indent, depth);
    return mapping(indent, depth);
  }

  Expected<Node> sequence(size_t indent, size_t depth) {
    Node n;
    n.kind = Node::Kind::seq;
    n.offset = lines_[i_].offset;
    while (!done() && lines_[i_].indent == indent && is_seq_item(lines_[i_])) {
      Line& l = lines_[i_];
      const std::string_view rest = trim(std::string_view(l.text).substr(1));
      if (rest.empty()) {
        ++i_;
        if (done() || lines_[i_].indent <= indent) {
          n.seq.push_back(Node{});
          continue;
        }
        PROFKIT_TRY_ASSIGN(Node item, block(lines_[i_].indent, depth + 1));
        n.seq.push_back(std::move(item));
      } else if (rest.front() == '{' || rest.front() == '[' || !has_key(rest)) {
        PROFKIT_TRY_ASSIGN(Node item, flow_value(rest, l.offset, depth + 1));
        ++i_;
        n.seq.push_back(std::move(item));
      } else {
        // "- key: value": a mapping whose first key sits after the dash.
        const size_t shift = l.text.size() - rest.size();
        l.indent += shift;
        l.offset += shift;
        l.text = std::string(rest);
        PROFKIT_TRY_ASSIGN(Node item, mapping(l.indent, depth + 1));
        n.seq.push_back(std::move(item));
      }
    }
    if (!done() && lines_[i_].indent > indent)
      return fail(lines_[i_].offset, "unexpected indentation in a YAML sequence");
    return n;
  }

  static bool has_key(std::string_view s) {
    if (s.front() == '{' || s.front() == '[') return false;
    const size_t colon = s.find(':');
    return colon != std::string_view::npos && (colon + 1 == s.size() || s[colon + 1] == ' ');
  }

  Expected<Node> mapping(size_t indent, size_t depth) {
    Node n;
    n.kind = Node::Kind::map;
    n.offset = lines_[i_].offset;
    while (!done() && lines_[i_].indent == indent && !is_seq_item(lines_[i_])) {
      const Line l = lines_[i_];
      if (!has_key(l.text)) return fail(l.offset, "expected 'key: value' in a YAML mapping");
      const size_t colon = l.text.find(':');
      std::string key = unquote(trim(std::string_view(l.text).substr(0, colon)));
      const std::string_view value = trim(std::string_view(l.text).substr(colon + 1));
      ++i_;
      Node v;
      if (!value.empty()) {
        PROFKIT_TRY_ASSIGN(
            v, flow_value(value, l.offset + static_cast<uint64_t>(value.data() - l.text.data()),
                          depth + 1));
      } else if (!done() && (lines_[i_].indent > indent ||
                             (lines_[i_].indent == indent && is_seq_item(lines_[i_])))) {
        PROFKIT_TRY_ASSIGN(v, block(lines_[i_].indent, depth + 1));
      }
      n.keys.push_back(std::move(key));
      n.values.push_back(std::move(v));
    }
    if (!done() && lines_[i_].indent > indent)
      return fail(lines_[i_].offset, "unexpected indentation in a YAML mapping");
    return n;
  }

  // A value on one line: flow map, flow sequence or plain scalar.
  Expected<Node> flow_value(std::string_view s, uint64_t offset, size_t depth) {
    if (!s.empty() && s.front() != '{' && s.front() != '[' && s.front() != '\'' &&
        s.front() != '"') {
      // A plain scalar in block context: ',', ']' and '}' are ordinary characters there
      // (LLVM's writer leaves "a,b" unquoted).
      Node n;
      n.kind = Node::Kind::scalar;
      n.offset = offset;
      n.scalar = std::string(trim(s));
      return n;
    }
    size_t pos = 0;
    PROFKIT_TRY_ASSIGN(Node n, flow(s, pos, offset, depth));
    if (!trim(s.substr(pos)).empty()) return fail(offset + pos, "unexpected text after a YAML value");
    return n;
  }

  Expected<Node> flow(std::string_view s, size_t& pos, uint64_t offset, size_t depth) {
    if (depth > kMaxDepth) return fail(offset, "YAML nesting too deep");
    while (pos < s.size() && s[pos] == ' ') ++pos;
    Node n;
    n.offset = offset + pos;
    if (pos < s.size() && (s[pos] == '{' || s[pos] == '[')) {
      const char close = s[pos] == '{' ? '}' : ']';
      const bool is_map = s[pos] == '{';
      n.kind = is_map ? Node::Kind::map : Node::Kind::seq;
      ++pos;
      for (;;) {
        while (pos < s.size() && s[pos] == ' ') ++pos;
        if (pos >= s.size()) return fail(offset + pos, std::string("expected '") + close + "'");
        if (s[pos] == close) {
          ++pos;
          return n;
        }
        if (is_map) {
          const size_t colon = s.find(':', pos);
          if (colon == std::string_view::npos) return fail(offset + pos, "expected 'key: value'");
          std::string key = unquote(trim(s.substr(pos, colon - pos)));
          pos = colon + 1;
          PROFKIT_TRY_ASSIGN(Node v, flow(s, pos, offset, depth + 1));
          n.keys.push_back(std::move(key));
      n.values.push_back(std::move(v));
        } else {
          PROFKIT_TRY_ASSIGN(Node v, flow(s, pos, offset, depth + 1));
          n.seq.push_back(std::move(v));
        }
        while (pos < s.size() && s[pos] == ' ') ++pos;
        if (pos < s.size() && s[pos] == ',') ++pos;
        else if (pos >= s.size() || s[pos] != close)
          return fail(offset + pos, std::string("expected ',' or '") + close + "'");
      }
    }
    const size_t start = pos;
    if (pos < s.size() && (s[pos] == '\'' || s[pos] == '"')) {
      // A quoted scalar may hold ',', ']' and '}'.
      const char q = s[pos++];
      for (; pos < s.size(); ++pos) {
        if (q == '"' && s[pos] == '\\') {
          ++pos;
        } else if (s[pos] == q) {
          if (q == '\'' && pos + 1 < s.size() && s[pos + 1] == '\'') {
            ++pos;
          } else {
            break;
          }
        }
      }
      if (pos >= s.size()) return fail(offset + start, "unterminated quoted scalar");
      ++pos;
    }
    while (pos < s.size() && s[pos] != ',' && s[pos] != '}' && s[pos] != ']') ++pos;
    n.kind = Node::Kind::scalar;
    n.scalar = unquote(trim(s.substr(start, pos - start)));
    return n;
  }

  std::vector<Line> lines_;
  size_t i_ = 0;
};

// How many flow collections ('[' or '{') `s` leaves open, quotes skipped.
int open_flow_depth(std::string_view s, int depth) {
  char quote = 0;
  bool escaped = false;
  for (char c : s) {
    if (escaped) {
      escaped = false;
    } else if (quote != 0) {
      if (quote == '"' && c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return depth;
}

Expected<std::vector<Line>> split_lines(std::string_view text, bool& stopped_at_end) {
  std::vector<Line> lines;
  size_t pos = 0;
  stopped_at_end = false;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = text.substr(pos, nl - pos);
    size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    if (indent < raw.size() && raw[indent] == '\t')
      return fail(pos + indent, "tabs are not allowed for YAML indentation");
    std::string_view body = trim(strip_comment(raw.substr(indent)));
    const uint64_t offset = pos + indent;
    pos = nl + 1;
    if (body.empty()) continue;
    // A flow collection continued on the next lines (LLVM's writer wraps long flow
    // sequences): joined into one logical line.
    std::string joined;
    for (int depth = open_flow_depth(body, 0); depth > 0 && pos < text.size();) {
      if (joined.empty()) joined = std::string(body);
      nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      const std::string_view more = trim(strip_comment(text.substr(pos, nl - pos)));
      pos = nl + 1;
      joined += ' ';
      joined += more;
      depth = open_flow_depth(more, depth);
    }
    if (!joined.empty()) body = joined;
    if (indent == 0 && body == "...") {
      stopped_at_end = true;
      break;
    }
    if (indent == 0 && body.substr(0, 3) == "---") {
      body = trim(body.substr(3));
      if (body.empty()) continue;
    }
    lines.push_back(Line{indent, std::string(body), offset});
  }
  return lines;
}

Expected<uint64_t> parse_u64(const Node* n, std::string_view what, uint64_t where) {
  if (n == nullptr) return fail(where, "missing " + std::string(what));
  if (n->kind != Node::Kind::scalar) return fail(n->offset, std::string(what) + " must be a number");
  std::string_view s = n->scalar;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    return fail(n->offset, "expected a number for " + std::string(what) + ", got '" + n->scalar + "'");
  return v;
}

// A GUID: 0x-hex or a function name (canonicalized and hashed); plain decimal is an error.
Expected<uint64_t> parse_guid(const Node* n, std::string_view what, uint64_t where,
                              MemProfData& data) {
  if (n == nullptr) return fail(where, "missing " + std::string(what));
  if (n->kind != Node::Kind::scalar || n->scalar.empty())
    return fail(n->offset, std::string(what) + " must be a GUID or a function name");
  const std::string& s = n->scalar;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_u64(n, what, where);
  if (s[0] >= '0' && s[0] <= '9')
    return fail(n->offset, "use a hexadecimal GUID or a function instead of '" + s + "'");
  const uint64_t guid = function_guid(s);
  data.names.emplace(guid, std::string(canonical_function_name(s)));
  return guid;
}

Expected<CallStack> parse_frames(const Node* n, std::string_view what, uint64_t where,
                                 MemProfData& data) {
  if (n == nullptr) return fail(where, "missing " + std::string(what));
  if (n->kind != Node::Kind::seq) return fail(n->offset, std::string(what) + " must be a list");
  CallStack cs;
  for (const Node& f : n->seq) {
    if (f.kind != Node::Kind::map) return fail(f.offset, "a frame must be a mapping");
    Frame fr;
    PROFKIT_TRY_ASSIGN(fr.function, parse_guid(f.get("Function"), "Function", f.offset, data));
    PROFKIT_TRY_ASSIGN(uint64_t line, parse_u64(f.get("LineOffset"), "LineOffset", f.offset));
    PROFKIT_TRY_ASSIGN(uint64_t col, parse_u64(f.get("Column"), "Column", f.offset));
    if (line > UINT32_MAX || col > UINT32_MAX) return fail(f.offset, "LineOffset/Column exceed 32 bits");
    fr.line_offset = static_cast<uint32_t>(line);
    fr.column = static_cast<uint32_t>(col);
    const Node* inl = f.get("IsInlineFrame");
    if (inl == nullptr) return fail(f.offset, "missing IsInlineFrame");
    if (inl->scalar == "true") {
      fr.is_inline = true;
    } else if (inl->scalar != "false") {
      return fail(inl->offset, "IsInlineFrame must be true or false");
    }
    cs.push_back(fr);
  }
  return cs;
}

Expected<MemInfoBlock> parse_mib(const Node* n, uint64_t where) {
  if (n == nullptr) return fail(where, "missing MemInfoBlock");
  MemInfoBlock m;
  if (n->kind == Node::Kind::null) return m;
  if (n->kind != Node::Kind::map) return fail(n->offset, "MemInfoBlock must be a mapping");
  for (size_t i = 0; i < n->keys.size(); ++i) {
    const std::string& key = n->keys[i];
    const Node& value = n->values[i];
    bool known = false;
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge)                            \
  if (key == #Name) {                                                        \
    PROFKIT_TRY_ASSIGN(uint64_t v, parse_u64(&value, #Name, n->offset));     \
    if (v > static_cast<uint64_t>(static_cast<Type>(~Type{0})))              \
      return fail(value.offset, "value too large for " #Name);               \
    m.Name = static_cast<Type>(v);                                           \
    known = true;                                                            \
  }
#include "format/memprof/mib_fields.def"
    if (!known) return fail(value.offset, "unknown MemInfoBlock key '" + key + "'");
  }
  return m;
}

Expected<std::string> parse_symbol(const Node& n, std::string_view what) {
  if (n.kind != Node::Kind::scalar || n.scalar.empty())
    return fail(n.offset, std::string(what) + " must be a non-empty symbol name");
  if (n.scalar.find('\x01') != std::string::npos)
    return fail(n.offset, std::string(what) + " contains byte 0x01, the name list separator");
  return std::string(data_access_symbol_name(n.scalar));
}

Expected<void> check_keys(const Node& n, std::initializer_list<std::string_view> allowed,
                          std::string_view where) {
  for (size_t i = 0; i < n.keys.size(); ++i) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || n.keys[i] == a;
    if (!ok)
      return fail(n.values[i].offset,
                  "unknown key '" + n.keys[i] + "' in " + std::string(where));
  }
  return {};
}

// DataAccessProfiles (E.3): SampledRecords (Symbol or Hash, AccessCount, Locations),
// KnownColdSymbols, KnownColdStrHashes. Symbol names are canonicalized as LLVM does; a
// symbol or hash sampled twice is an error (llvm-profdata aborts on it).
Expected<DataAccessProfile> parse_data_access(const Node& n) {
  DataAccessProfile out;
  if (n.kind == Node::Kind::null) return out;
  if (n.kind != Node::Kind::map) return fail(n.offset, "DataAccessProfiles must be a mapping");
  PROFKIT_TRY(check_keys(n, {"SampledRecords", "KnownColdSymbols", "KnownColdStrHashes"},
                         "DataAccessProfiles"));
  const auto list = [](const Node* l, std::string_view what) -> Expected<const Node*> {
    if (l == nullptr || l->kind == Node::Kind::null) return nullptr;
    if (l->kind != Node::Kind::seq) return fail(l->offset, std::string(what) + " must be a list");
    return l;
  };
  PROFKIT_TRY_ASSIGN(const Node* records, list(n.get("SampledRecords"), "SampledRecords"));
  if (records != nullptr) {
    std::unordered_set<std::string> symbols;
    std::unordered_set<uint64_t> hashes;
    for (const Node& r : records->seq) {
      if (r.kind != Node::Kind::map) return fail(r.offset, "a sampled record must be a mapping");
      PROFKIT_TRY(check_keys(r, {"Symbol", "Hash", "AccessCount", "Locations"}, "a sampled record"));
      DataAccessRecord rec;
      const Node* sym = r.get("Symbol");
      const Node* hash = r.get("Hash");
      if ((sym == nullptr) == (hash == nullptr))
        return fail(r.offset, "a sampled record needs exactly one of Symbol and Hash");
      if (sym != nullptr) {
        PROFKIT_TRY_ASSIGN(rec.symbol, parse_symbol(*sym, "Symbol"));
        if (!symbols.insert(rec.symbol).second)
          return fail(sym->offset, "symbol '" + rec.symbol + "' is sampled twice");
      } else {
        rec.is_string_literal = true;
        PROFKIT_TRY_ASSIGN(rec.hash, parse_u64(hash, "Hash", r.offset));
        if (!hashes.insert(rec.hash).second)
          return fail(hash->offset, "string literal hash " + std::to_string(rec.hash) +
                                        " is sampled twice");
      }
      PROFKIT_TRY_ASSIGN(rec.access_count, parse_u64(r.get("AccessCount"), "AccessCount", r.offset));
      PROFKIT_TRY_ASSIGN(const Node* locs, list(r.get("Locations"), "Locations"));
      if (locs != nullptr) {
        for (const Node& l : locs->seq) {
          if (l.kind != Node::Kind::map) return fail(l.offset, "a location must be a mapping");
          PROFKIT_TRY(check_keys(l, {"FileName", "Line"}, "a location"));
          const Node* file = l.get("FileName");
          if (file == nullptr) return fail(l.offset, "missing FileName");
          if (file->kind != Node::Kind::scalar && file->kind != Node::Kind::null)
            return fail(file->offset, "FileName must be a string");
          if (file->scalar.find('\x01') != std::string::npos)
            return fail(file->offset, "FileName contains byte 0x01, the name list separator");
          PROFKIT_TRY_ASSIGN(uint64_t line, parse_u64(l.get("Line"), "Line", l.offset));
          if (line > UINT32_MAX) return fail(l.get("Line")->offset, "Line exceeds 32 bits");
          rec.locations.push_back({file->scalar, static_cast<uint32_t>(line)});
        }
      }
      out.records.push_back(std::move(rec));
    }
  }
  PROFKIT_TRY_ASSIGN(const Node* cold, list(n.get("KnownColdSymbols"), "KnownColdSymbols"));
  if (cold != nullptr) {
    std::unordered_set<std::string> seen;
    for (const Node& c : cold->seq) {
      PROFKIT_TRY_ASSIGN(std::string name, parse_symbol(c, "a known cold symbol"));
      if (seen.insert(name).second) out.known_cold_symbols.push_back(std::move(name));
    }
  }
  PROFKIT_TRY_ASSIGN(const Node* cold_hashes,
                     list(n.get("KnownColdStrHashes"), "KnownColdStrHashes"));
  if (cold_hashes != nullptr) {
    std::unordered_set<uint64_t> seen;
    for (const Node& c : cold_hashes->seq) {
      PROFKIT_TRY_ASSIGN(uint64_t h, parse_u64(&c, "a known cold string hash", c.offset));
      if (seen.insert(h).second) out.known_cold_hashes.push_back(h);
    }
  }
  return out;
}

}  // namespace

bool is_memprof_yaml(Bytes data) {
  return data.size() >= 3 && data[0] == '-' && data[1] == '-' && data[2] == '-';
}

Expected<YamlMemProf> read_memprof_yaml(Bytes bytes) {
  bool ended = false;
  PROFKIT_TRY_ASSIGN(std::vector<Line> lines, split_lines(as_string_view(bytes), ended));
  Parser parser(std::move(lines));
  PROFKIT_TRY_ASSIGN(Node root, parser.document());
  if (!parser.done()) return fail(parser.offset(), "unexpected text after the YAML document");
  YamlMemProf out;
  if (root.kind == Node::Kind::null) return out;
  if (root.kind != Node::Kind::map) return fail(root.offset, "expected a YAML mapping at the top");
  for (size_t i = 0; i < root.keys.size(); ++i) {
    const std::string& key = root.keys[i];
    const Node& value = root.values[i];
    if (key == "DataAccessProfiles") {
      PROFKIT_TRY_ASSIGN(out.data.data_access, parse_data_access(value));
    } else if (key != "HeapProfileRecords") {
      return fail(value.offset, "unknown top-level key '" + key + "'");
    }
  }
  const Node* records = root.get("HeapProfileRecords");
  if (records == nullptr || records->kind == Node::Kind::null) return out;
  if (records->kind != Node::Kind::seq) return fail(records->offset, "HeapProfileRecords must be a list");
  MemProfData& data = out.data;
  std::unordered_set<uint64_t> seen;
  for (const Node& r : records->seq) {
    if (r.kind != Node::Kind::map) return fail(r.offset, "a record must be a mapping");
    Record rec;
    // The sites' frames, interned only if the record is kept.
    std::vector<CallStack> alloc_stacks, call_stacks;
    PROFKIT_TRY_ASSIGN(rec.guid, parse_guid(r.get("GUID"), "GUID", r.offset, data));
    if (const Node* allocs = r.get("AllocSites"); allocs != nullptr && allocs->kind != Node::Kind::null) {
      if (allocs->kind != Node::Kind::seq) return fail(allocs->offset, "AllocSites must be a list");
      for (const Node& a : allocs->seq) {
        AllocSite site;
        PROFKIT_TRY_ASSIGN(CallStack cs,
                           parse_frames(a.get("Callstack"), "Callstack", a.offset, data));
        alloc_stacks.push_back(std::move(cs));
        PROFKIT_TRY_ASSIGN(site.mib, parse_mib(a.get("MemInfoBlock"), a.offset));
        rec.alloc_sites.push_back(std::move(site));
      }
    }
    if (const Node* calls = r.get("CallSites"); calls != nullptr && calls->kind != Node::Kind::null) {
      if (calls->kind != Node::Kind::seq) return fail(calls->offset, "CallSites must be a list");
      for (const Node& c : calls->seq) {
        CallSite site;
        PROFKIT_TRY_ASSIGN(CallStack cs, parse_frames(c.get("Frames"), "Frames", c.offset, data));
        call_stacks.push_back(std::move(cs));
        if (const Node* g = c.get("CalleeGuids"); g != nullptr && g->kind != Node::Kind::null) {
          if (g->kind != Node::Kind::seq) return fail(g->offset, "CalleeGuids must be a list");
          for (const Node& x : g->seq) {
            PROFKIT_TRY_ASSIGN(uint64_t guid, parse_guid(&x, "callee GUID", g->offset, data));
            site.callee_guids.push_back(guid);
          }
        }
        rec.call_sites.push_back(std::move(site));
      }
    }
    if (!seen.insert(rec.guid).second) continue;  // a duplicated GUID keeps the first record
    for (size_t a = 0; a < rec.alloc_sites.size(); ++a)
      rec.alloc_sites[a].stack = data.stacks.add_stack(alloc_stacks[a]);
    for (size_t c = 0; c < rec.call_sites.size(); ++c)
      rec.call_sites[c].stack = data.stacks.add_stack(call_stacks[c]);
    data.records.push_back(std::move(rec));
  }
  return out;
}

}  // namespace profkit::memprof
