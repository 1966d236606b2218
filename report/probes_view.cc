// The pseudo probes of a CSSPGO binary as text or JSON: descriptors and, per address, probes
// with their inline contexts; or llvm-profgen's `--show-pseudo-probe --show-disassembly-only`
// listing. What `profkit probes` prints (tools/profkit/cmd_probes.cc parses its flags).
#include "report/probes_view.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/bytes/hash.h"
#include "symbolize/source_map.h"
#include "format/elf/elf_file.h"
#include "format/probe/elf_probes.h"
#include "io/mapped_file.h"
#include "symbolize/disassembler.h"

namespace profkit::report {

namespace {


// Buffered output: one write to the sink per megabyte instead of one per line.
class Out {
 public:
  explicit Out(const TextSink& sink) : sink_(sink) {}
  ~Out() { flush(); }
  std::string& buf() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= (1u << 20)) flush();
  }
  void flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  const TextSink& sink_;
  std::string buf_;
};

// Hand-written number formatting: snprintf dominated the profile of large listings.
void append_u64(std::string& out, uint64_t v) {
  char tmp[24];
  char* end = tmp + sizeof tmp;
  char* p = end;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out.append(p, static_cast<size_t>(end - p));
}

// printf("%8" PRIx64 ":", address)
void append_address_column(std::string& out, uint64_t address) {
  char tmp[24];
  char* end = tmp + sizeof tmp;
  char* p = end;
  *--p = ':';
  int digits = 0;
  do {
    *--p = "0123456789abcdef"[address & 0xf];
    address >>= 4;
    ++digits;
  } while (address != 0);
  while (digits++ < 8) *--p = ' ';
  out.append(p, static_cast<size_t>(end - p));
}

// GUID -> descriptor name in O(1), and the name of every inline-tree node resolved once:
// large listings name a function per probe and per inline frame.
class Names {
 public:
  explicit Names(const probe::ProbeMap& map) {
    names_.reserve(map.descriptors().size());
    for (const auto& d : map.descriptors()) names_.emplace(d.guid, d.name);  // first wins
    node_names_.reserve(map.nodes().size());
    for (const auto& n : map.nodes()) node_names_.push_back(get(n.guid));
  }
  std::string_view get(uint64_t guid) const {
    auto it = names_.find(guid);
    return it == names_.end() ? std::string_view() : it->second;
  }
  // Name of a node's function (empty when its GUID has no descriptor).
  std::string_view node(uint32_t index) const { return node_names_[index]; }

 private:
  std::unordered_map<uint64_t, std::string_view> names_;
  std::vector<std::string_view> node_names_;
};

void append_node_name(std::string& out, const probe::ProbeMap& map, const Names& names,
                      uint32_t node) {
  const std::string_view n = names.node(node);
  if (!n.empty()) {
    out += n;
    return;
  }
  out += "<guid ";
  append_u64(out, map.nodes()[node].guid);
  out += '>';
}

void append_function_name(std::string& out, const Names& map, uint64_t guid) {
  std::string_view n = map.get(guid);
  if (!n.empty()) {
    out += n;
    return;
  }
  // No descriptor (llvm-profgen would crash): show the GUID instead.
  out += "<guid ";
  append_u64(out, guid);
  out += '>';
}

std::string function_name(const Names& map, uint64_t guid) {
  std::string s;
  append_function_name(s, map, guid);
  return s;
}

// One `[Probe]` line exactly as llvm-profgen 22 prints it (docs/formats/pseudo-probes.md 7.4).
void append_probe_line(std::string& out, const probe::ProbeMap& map, const Names& names,
                       const probe::Probe& p) {
  out += " [Probe]:\tFUNC: ";
  append_node_name(out, map, names, p.node);
  out += " Index: ";
  append_u64(out, p.index);
  out += "  ";
  if (p.discriminator != 0) {
    out += "Discriminator: ";
    append_u64(out, p.discriminator);
    out += "  ";
  }
  out += "Type: ";
  out += probe::probe_type_name(p.type);
  out += "  ";
  // Inline context, outermost caller first: walk up to the top-level node, then print.
  const auto& nodes = map.nodes();
  uint32_t chain[64];
  size_t depth = 0;
  for (uint32_t n = p.node; n != 0 && nodes[n].parent != 0 && depth < 64; n = nodes[n].parent)
    chain[depth++] = n;
  if (depth == 64) {  // deeper than any real inline chain: take the slow path
    auto frames = map.inline_context(p);
    out += "Inlined:";
    for (const auto& f : frames) {
      out += " @ ";
      append_function_name(out, names, f.guid);
      out += ':';
      append_u64(out, f.site);
    }
  } else if (depth > 0) {
    out += "Inlined:";
    while (depth > 0) {
      const auto& node = nodes[chain[--depth]];
      out += " @ ";
      append_node_name(out, map, names, node.parent);
      out += ':';
      append_u64(out, node.site);
    }
  }
  out += '\n';
}

void append_descriptor_block(std::string& out, const probe::ProbeMap& map, bool unique) {
  out += "Pseudo Probe Desc:\n";
  const auto& descs = map.descriptors();
  for (size_t i = 0; i < descs.size(); ++i) {
    // llvm-profgen 14 keeps the first descriptor of a GUID; 22 prints every copy.
    if (unique && i > 0 && descs[i].guid == descs[i - 1].guid) continue;
    out += "GUID: ";
    append_u64(out, descs[i].guid);
    out += " Name: ";
    out += descs[i].name;
    out += "\nHash: ";
    append_u64(out, descs[i].hash);
    out += '\n';
  }
}

// llvm-profgen's location string with --show-pseudo-probe (docs/formats/pseudo-probes.md 7.5): the inline frames of
// the address innermost first, `NAME:INDEX`, INDEX = the probe index packed in the frame's
// discriminator. Like llvm-profgen, frames are taken from the outermost inwards and stop at
// the first one without a name.
void append_location(std::string& out, const std::vector<dwarf::SourceFrame>& frames,
                     bool canonical) {
  size_t first = frames.size();
  while (first > 0 && !frames[first - 1].function.empty()) --first;
  for (size_t i = first; i < frames.size(); ++i) {
    if (i != first) out += " @ ";
    out += canonical ? probe::canonical_name(frames[i].function) : frames[i].function;
    out += ':';
    append_u64(out, dwarf::probe_index_from_discriminator(frames[i].discriminator));
  }
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20 || ch >= 0x7f) {
          char tmp[8];
          std::snprintf(tmp, sizeof tmp, "\\u%04x", ch);
          out += tmp;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  out += '"';
}

struct TextSymbol {
  uint64_t address;
  std::string_view name;
};

struct Loaded {
  MappedFile file;
  elf::ElfFile elf;
  std::vector<elf::Symbol> symbols;
  probe::ElfProbes probes;
  dwarf::DwarfSections dwarf_sections;
  std::unique_ptr<dwarf::SourceMap> sources;  // with --source-locations
};

// Symbol names selected by --functions, compared as printed (canonical with the flag).
bool selected(const ProbesOptions& o, const std::unordered_set<std::string_view>& wanted,
              std::string_view symbol) {
  if (o.functions.empty()) return true;
  return wanted.count(o.canonical_names ? probe::canonical_name(symbol) : symbol) != 0;
}

// The listing is cut into chunks of whole symbol blocks (about kChunkBytes of code each),
// formatted by worker threads (each with its own disassembler) and written in order, so the
// output is the same for any thread count.
constexpr uint64_t kChunkBytes = 64 * 1024;

struct ListingBlock {
  uint64_t start, end;
  std::string_view shown;  // symbol name as printed
};

struct ListingChunk {
  std::string header;  // printed before the blocks (section headers)
  const elf::SectionHeader* section = nullptr;
  Bytes data;          // the section's bytes
  std::vector<ListingBlock> blocks;
  std::string text;
  std::optional<Error> error;
  bool done = false;
};

struct ListingContext {
  const ProbesOptions& options;
  const Loaded& in;
  const Names& names;
};

// Formats one chunk: `<symbol>:` headers, [Probe] lines and instruction lines.
void format_chunk(const ListingContext& ctx, symbolize::Disassembler& disassembler,
                  std::vector<dwarf::SourceFrame>& frames, ListingChunk& chunk) {
  const auto& map = ctx.in.probes.map;
  std::string& s = chunk.text;
  const elf::SectionHeader& section = *chunk.section;
  for (const ListingBlock& b : chunk.blocks) {
    s += '<';
    s += b.shown;
    s += ">:\n";
    // Instruction addresses only grow inside a block: walk the address index alongside.
    const auto block = map.find(b.start, b.end);
    const uint32_t* next = block.data();
    const uint32_t* const block_end = block.data() + block.size();
    for (uint64_t address = b.start; address < b.end && address >= section.address;) {
      while (next != block_end && map.probes()[*next].address < address) ++next;
      for (; next != block_end && map.probes()[*next].address == address; ++next)
        append_probe_line(s, map, ctx.names, map.probes()[*next]);
      append_address_column(s, address);
      const size_t text_start = s.size();
      const uint64_t off = address - section.address;
      // Like llvm-profgen, decode from the rest of the section: an instruction may run past
      // the next symbol's address.
      size_t size = disassembler.decode(chunk.data.subspan(off), address, s);
      if (size == 0) {
        s += "\t<unknown>";
        size = 1;
      }
      if (ctx.in.sources) {  // pad the instruction to 40 columns, then the location
        const size_t width = s.size() - text_start;
        if (width < 40) s.append(40 - width, ' ');
        if (auto ok = ctx.in.sources->frames(address, frames); !ok) {
          chunk.error = ok.error();
          return;
        }
        append_location(s, frames, ctx.options.canonical_names);
      }
      s += '\n';
      address += size;
    }
    s += '\n';
  }
}

Expected<void> run_disassemble(const ProbesOptions& o, const Loaded& in, const TextSink& sink,
                    const std::unordered_set<std::string_view>& wanted) {
  const auto& map = in.probes.map;
  const Names names(map);
  std::string prologue;
  if (in.probes.has_descriptor_section && in.probes.has_probe_section)
    append_descriptor_block(prologue, map, map.has_absolute_records());
  prologue += "\nDisassembly of ";
  prologue += o.binary;
  prologue += ":\n";

  // Plan every chunk first (section data included), so bad input fails before any output.
  std::vector<ListingChunk> chunks;
  for (const auto& section : in.elf.sections()) {
    if (!section.is_executable() || section.size == 0) continue;
    ListingChunk head;
    char range[96];
    std::snprintf(range, sizeof range, " [0x%llx, 0x%llx]:\n\n",
                  static_cast<unsigned long long>(section.address),
                  static_cast<unsigned long long>(section.address + section.size));
    head.header = "\nDisassembly of section ";
    head.header += section.name;
    head.header += range;
    head.section = &section;
    if (section.name == ".plt") {
      chunks.push_back(std::move(head));
      continue;
    }
    auto data = in.elf.section_data(section);
    if (!data) {
      return Unexpected{data.error()};
    }
    head.data = *data;
    std::vector<TextSymbol> syms;
    for (const auto& sym : in.symbols)
      if (sym.is_defined_in_section() && sym.section_index == section.index &&
          sym.type != elf::kSttSection)
        syms.push_back(TextSymbol{sym.value, sym.name});
    std::stable_sort(syms.begin(), syms.end(), [](const TextSymbol& a, const TextSymbol& b) {
      return a.address != b.address ? a.address < b.address : a.name < b.name;
    });
    const uint64_t section_end = section.address + section.size;
    ListingChunk current = std::move(head);
    uint64_t bytes = 0;
    for (size_t i = 0; i < syms.size(); ++i) {
      if (!selected(o, wanted, syms[i].name)) continue;
      const uint64_t end =
          std::min(i + 1 < syms.size() ? syms[i + 1].address : section_end, section_end);
      current.blocks.push_back(ListingBlock{
          syms[i].address, end,
          o.canonical_names ? probe::canonical_name(syms[i].name) : syms[i].name});
      if (end > syms[i].address) bytes += end - syms[i].address;
      if (bytes >= kChunkBytes) {
        ListingChunk next;
        next.section = current.section;
        next.data = current.data;
        chunks.push_back(std::move(current));
        current = std::move(next);
        bytes = 0;
      }
    }
    if (!current.blocks.empty() || !current.header.empty()) chunks.push_back(std::move(current));
  }

  unsigned threads = o.threads;
  if (threads == 0) threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, chunks.size())));
  std::vector<symbolize::Disassembler> disassemblers;
  for (unsigned t = 0; t < threads; ++t) {
    auto d = symbolize::Disassembler::create_x86_64();
    if (!d) {
      return Unexpected{d.error()};
    }
    disassemblers.push_back(std::move(*d));
  }
  const ListingContext ctx{o, in, names};
  sink(prologue);
  std::optional<Error> failed;
  auto emit = [&](ListingChunk& c) -> bool {
    if (c.error) {
      failed = *c.error;
      return false;
    }
    sink(c.header);
    sink(c.text);
    std::string().swap(c.text);
    return true;
  };
  if (threads == 1) {
    std::vector<dwarf::SourceFrame> frames;
    for (auto& c : chunks) {
      if (c.data.data() != nullptr || !c.blocks.empty()) format_chunk(ctx, disassemblers[0], frames, c);
      if (!emit(c)) return Unexpected{*failed};
    }
    return {};
  }
  // Workers take chunks in order, at most `window` ahead of the writer (bounded memory).
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0, written = 0;
  const size_t window = 2 * threads;
  bool stop = false;
  auto work = [&](symbolize::Disassembler& disassembler) {
    std::vector<dwarf::SourceFrame> frames;
    while (true) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || next >= chunks.size() || next < written + window; });
        if (stop || next >= chunks.size()) return;
        i = next++;
      }
      format_chunk(ctx, disassembler, frames, chunks[i]);
      {
        std::lock_guard<std::mutex> lock(mutex);
        chunks[i].done = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, std::ref(disassemblers[t]));
  for (size_t i = 0; i < chunks.size(); ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return chunks[i].done; });
    }
    if (!emit(chunks[i])) {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      break;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      written = i + 1;
    }
    changed.notify_all();
  }
  changed.notify_all();
  for (auto& t : pool) t.join();
  if (failed) return Unexpected{*failed};
  return {};
}

// Symbol ranges selected by --functions (for the views without disassembly).
std::vector<probe::SymbolRange> selected_ranges(const ProbesOptions& o, const Loaded& in,
                                                const std::unordered_set<std::string_view>& wanted) {
  std::vector<probe::SymbolRange> ranges;
  for (const auto& sym : in.symbols)
    if (!sym.name.empty() && sym.is_defined_in_section() && selected(o, wanted, sym.name))
      ranges.push_back(probe::SymbolRange{sym.value, sym.value + std::max<uint64_t>(sym.size, 1)});
  return ranges;
}

// Probe positions to show, in (address, decode) order.
std::vector<uint32_t> shown_probes(const ProbesOptions& o, const Loaded& in,
                                   const std::unordered_set<std::string_view>& wanted) {
  const auto& map = in.probes.map;
  if (o.functions.empty()) return map.by_address();
  std::vector<uint32_t> out;
  auto ranges = selected_ranges(o, in, wanted);
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  uint64_t covered = 0;  // skip overlapping ranges (aliases)
  for (const auto& r : ranges) {
    const uint64_t from = std::max(r.start, covered);
    if (from >= r.end) continue;
    for (uint32_t p : map.find(from, r.end)) out.push_back(p);
    covered = r.end;
  }
  return out;
}

Expected<void> run_text(const ProbesOptions& o, const Loaded& in, const TextSink& sink,
             const std::unordered_set<std::string_view>& wanted) {
  const auto& map = in.probes.map;
  const Names names(map);
  Out out(sink);
  std::string& s = out.buf();
  append_descriptor_block(s, map, false);
  s += "\nProbes:\n";
  std::vector<dwarf::SourceFrame> frames;
  uint64_t previous = ~uint64_t{0};
  bool first = true;
  for (uint32_t pos : shown_probes(o, in, wanted)) {
    const auto& p = map.probes()[pos];
    if (first || p.address != previous) {
      append_address_column(s, p.address);
      if (in.sources) {
        if (auto ok = in.sources->frames(p.address, frames); !ok) {
          return Unexpected{ok.error()};
        }
        s += ' ';
        append_location(s, frames, o.canonical_names);
      }
      s += '\n';
    }
    first = false;
    previous = p.address;
    append_probe_line(s, map, names, p);
    out.maybe_flush();
  }
  return {};
}

Expected<void> run_json(const ProbesOptions& o, const Loaded& in, const TextSink& sink,
             const std::unordered_set<std::string_view>& wanted) {
  const auto& map = in.probes.map;
  const Names names(map);
  Out out(sink);
  std::string& s = out.buf();
  s += "{\"binary\":";
  append_json_string(s, o.binary);
  s += ",\"descriptors\":[";
  bool first = true;
  for (const auto& d : map.descriptors()) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "{\"guid\":";
    append_u64(s, d.guid);
    s += ",\"hash\":";
    append_u64(s, d.hash);
    s += ",\"name\":";
    append_json_string(s, d.name);
    s += '}';
  }
  s += "],\"probes\":[";
  std::vector<dwarf::SourceFrame> frames;
  first = true;
  for (uint32_t pos : shown_probes(o, in, wanted)) {
    const auto& p = map.probes()[pos];
    const uint64_t guid = map.nodes()[p.node].guid;
    s += first ? "\n" : ",\n";
    first = false;
    s += "{\"address\":";
    append_u64(s, p.address);
    s += ",\"guid\":";
    append_u64(s, guid);
    s += ",\"function\":";
    append_json_string(s, function_name(names, guid));
    s += ",\"index\":";
    append_u64(s, p.index);
    s += ",\"type\":\"";
    s += probe::probe_type_name(p.type);
    s += "\",\"discriminator\":";
    append_u64(s, p.discriminator);
    s += ",\"inline_context\":[";
    bool first_frame = true;
    for (const auto& f : map.inline_context(p)) {
      if (!first_frame) s += ',';
      first_frame = false;
      s += "{\"function\":";
      append_json_string(s, function_name(names, f.guid));
      s += ",\"guid\":";
      append_u64(s, f.guid);
      s += ",\"site\":";
      append_u64(s, f.site);
      s += '}';
    }
    s += ']';
    if (in.sources) {  // DWARF frames of the address, innermost first
      if (auto ok = in.sources->frames(p.address, frames); !ok) {
        return Unexpected{ok.error()};
      }
      s += ",\"source\":[";
      for (size_t i = 0; i < frames.size(); ++i) {
        const auto& f = frames[i];
        if (i != 0) s += ',';
        s += "{\"function\":";
        append_json_string(s, f.function);
        s += ",\"file\":";
        append_json_string(s, in.sources->file_path(f));
        s += ",\"line\":";
        append_u64(s, f.line);
        s += ",\"column\":";
        append_u64(s, f.column);
        s += ",\"discriminator\":";
        append_u64(s, f.discriminator);
        s += '}';
      }
      s += ']';
    }
    s += '}';
    out.maybe_flush();
  }
  s += "\n]}\n";
  return {};
}

}  // namespace

Expected<void> show_probes(const ProbesOptions& o, const TextSink& sink, const TextSink& warn) {
  auto file = MappedFile::open(o.binary);
  if (!file) {
    return Unexpected{file.error()};
  }
  Loaded in{std::move(*file), {}, {}, {}, {}, {}};
  // `in.file` owns the bytes everything below points into.
  auto elf = elf::ElfFile::parse(in.file.bytes());
  if (!elf) {
    return Unexpected{elf.error()};
  }
  in.elf = std::move(*elf);
  auto symbols = in.elf.static_symbols();
  if (!symbols) {
    return Unexpected{symbols.error()};
  }
  in.symbols = std::move(*symbols);
  probe::ElfDecodeOptions decode_options;
  decode_options.llvm22_global_chain = o.emulate_llvm22;
  auto probes = probe::decode_elf_probes(in.elf, in.symbols, decode_options);
  if (!probes) {
    return Unexpected{probes.error()};
  }
  in.probes = std::move(*probes);
  if (!o.disassemble && !(in.probes.has_descriptor_section && in.probes.has_probe_section)) {
    return Unexpected{Error{ErrorCode::malformed, kNoOffset,
                                 "expected .pseudo_probe_desc and .pseudo_probe sections (build "
                                 "with -fpseudo-probe-for-profiling)"}};
  }
  if (in.probes.map.unplaced_records() > 0)
    warn(std::to_string(in.probes.map.unplaced_records()) +
         " probe records name a function symbol that is not in .symtab; their probes are not "
         "shown");
  if (o.source_locations) {
    auto sections = dwarf::DwarfSections::from_elf(in.elf);
    if (!sections) {
      return Unexpected{sections.error()};
    }
    in.dwarf_sections = *sections;
    auto sources = dwarf::SourceMap::build(in.dwarf_sections);
    if (!sources) {
      return Unexpected{sources.error()};
    }
    if (auto loaded = sources->load_all(); !loaded) {
      return Unexpected{loaded.error()};
    }
    in.sources = std::make_unique<dwarf::SourceMap>(std::move(*sources));
  }
  std::unordered_set<std::string_view> wanted(o.functions.begin(), o.functions.end());
  if (o.json) return run_json(o, in, sink, wanted);
  if (o.disassemble) return run_disassemble(o, in, sink, wanted);
  return run_text(o, in, sink, wanted);
}

}  // namespace profkit::report
