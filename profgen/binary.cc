#include "profgen/binary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <cstdlib>
#include <thread>

#include "symbolize/source_map.h"
#include "format/elf/elf_file.h"
#include "format/probe/elf_probes.h"
#include "io/mapped_file.h"
#include "symbolize/insn_kind.h"

namespace profkit::profgen {

namespace {

constexpr uint64_t kPageMask = ~uint64_t{0xfff};  // llvm-profgen assumes 4 KiB pages

Unexpected binary_error(std::string message) {
  return Unexpected{Error{ErrorCode::malformed, kNoOffset, std::move(message)}};
}

uint8_t classify(symbolize::InsnKind kind) {
  using symbolize::InsnKind;
  switch (kind) {
    case InsnKind::call:
    case InsnKind::indirect_call: return kInsnCall | kInsnUncond;
    case InsnKind::ret: return kInsnReturn | kInsnUncond;
    case InsnKind::jump: return kInsnBranch | kInsnUncond;
    case InsnKind::cond_jump: return kInsnBranch;
    // An indirect jmp is no "unconditional branch" to LLVM (its target varies).
    case InsnKind::indirect_jump: return kInsnBranch | kInsnIndirectJump;
    case InsnKind::other: break;
  }
  return 0;
}

// LLVM's prefix encoding of discriminator components.
uint32_t prefix_decode(uint32_t u) {
  if (u & 1) return 0;
  u >>= 1;
  if (u & 0x20) return ((u >> 1) & 0xfe0) | (u & 0x1f);
  return u & 0x1f;
}

uint32_t next_component(uint32_t d) {
  if (d & 1) return d >> 1;
  return d >> ((d & 0x40) ? 14 : 7);
}

}  // namespace

// A probe build's call discriminators are decoded as probes first, whichever encoding the
// others use (as LLVM does: their prefix decoding would be 0, merging calls of one line).
uint32_t base_discriminator(uint32_t d, bool fs) {
  if (dwarf::is_probe_discriminator(d)) return dwarf::probe_base_discriminator(d);
  return fs ? d : prefix_decode(d);
}

uint32_t duplication_factor(uint32_t d, bool fs) {
  if (fs) return 1;
  const uint32_t f = prefix_decode(next_component(d));
  return f == 0 ? 1 : f;
}

struct ProfiledBinary::Impl {
  std::optional<MappedFile> file;  // what elf, dwarf and the probe names point into
  elf::ElfFile elf;
  dwarf::DwarfSections dwarf;
  std::unique_ptr<dwarf::SourceMap> sources;
  std::vector<dwarf::SourceFrame> scratch;
  std::deque<std::string> names;  // synthetic binaries' function names
};

ProfiledBinary::ProfiledBinary() : impl_(std::make_unique<Impl>()) {}
ProfiledBinary::~ProfiledBinary() = default;

void warn_summary(const LineSink& warn, uint64_t n, uint64_t total, std::string_view message) {
  if (n == 0 || total == 0) return;
  char pct[64];
  std::snprintf(pct, sizeof pct, "%.2f%%(%" PRIu64 "/%" PRIu64 ") ",
                static_cast<double>(n) * 100 / static_cast<double>(total), n, total);
  warn(std::string(pct) + std::string(message));
}

std::string_view file_name_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

Expected<std::unique_ptr<ProfiledBinary>> ProfiledBinary::load(
    const std::string& path, const LoadOptions& options,
    const LineSink& warn) {
  std::unique_ptr<ProfiledBinary> b(new ProfiledBinary());
  b->path_ = path;
  Impl& m = *b->impl_;
  PROFKIT_TRY_ASSIGN(m.file, MappedFile::open(path));
  if (!elf::ElfFile::has_format(m.file->bytes()))
    return Unexpected{Error{ErrorCode::bad_magic, 0,
                            "expected an ELF file (the binary that was profiled)"}};
  PROFKIT_TRY_ASSIGN(m.elf, elf::ElfFile::parse(m.file->bytes()));
  if (m.elf.machine() != elf::kEmX86_64)
    return binary_error("expected an x86-64 ELF file, got machine " +
                        std::to_string(m.elf.machine()));

  // Executable segments: where they were linked and where they are in the file.
  for (const auto& ph : m.elf.program_headers()) {
    if (ph.type != elf::kPtLoad) continue;
    // llvm-profgen takes the first loadable segment whose address is not 0 (a PIE's first
    // segment, at 0, is skipped).
    if (b->first_loadable_address_ == 0)
      b->first_loadable_address_ = ph.virtual_address & kPageMask;
    if ((ph.flags & elf::kPfX) == 0) continue;
    b->preferred_text_addresses_.push_back(ph.virtual_address & kPageMask);
    b->text_segment_offsets_.push_back(ph.offset & kPageMask);
  }
  if (b->preferred_text_addresses_.empty()) return binary_error("no executable segment found");
  const uint64_t base = b->preferred_base();

  // Functions from DWARF subprograms; several DIEs with one name share one function.
  PROFKIT_TRY_ASSIGN(m.dwarf, dwarf::DwarfSections::from_elf(m.elf));
  PROFKIT_TRY_ASSIGN(auto sources, dwarf::SourceMap::build(m.dwarf));
  m.sources = std::make_unique<dwarf::SourceMap>(std::move(sources));
  std::unordered_map<std::string_view, uint32_t> by_name;
  std::map<uint64_t, FuncRange> starts;
  std::set<uint64_t> duplicate_starts;  // llvm-profgen counts addresses, not symbols
  PROFKIT_TRY(m.sources->for_each_subprogram_range(
      [&](std::string_view name, uint64_t low, uint64_t high) {
        if (name.empty()) return;
        auto [it, added] = by_name.try_emplace(name, static_cast<uint32_t>(b->functions_.size()));
        if (added) b->functions_.push_back(BinaryFunction{name, {}});
        if (high <= low || low < base) return;
        b->functions_[it->second].ranges.emplace_back(low, high);
        auto [r, fresh] = starts.try_emplace(low);
        if (fresh) {
          r->second = FuncRange{low, high, it->second, false};
        } else {
          duplicate_starts.insert(low);
        }
      }));
  // Probe binaries also get the sized function symbols DWARF does not cover (such as
  // _start), as llvm-profgen 22 loads them for incomplete debug information.
  const bool probes = !options.use_dwarf_correlation &&
                      m.elf.find_section(".pseudo_probe") != nullptr &&
                      m.elf.find_section(".pseudo_probe_desc") != nullptr;
  PROFKIT_TRY_ASSIGN(auto symbols, m.elf.static_symbols());
  if (probes) {
    for (size_t i = 1; i < symbols.size(); ++i) {
      const elf::Symbol& s = symbols[i];
      if (s.type != elf::kSttFunc || s.size == 0 || !s.is_defined_in_section() ||
          s.name.empty() || s.value < base)
        continue;
      auto after = starts.upper_bound(s.value);
      if (after != starts.begin() && s.value < std::prev(after)->second.end) continue;
      if (after != starts.end() && after->first < s.value + s.size) continue;
      auto [it, added] = by_name.try_emplace(s.name, static_cast<uint32_t>(b->functions_.size()));
      if (!added) continue;
      b->functions_.push_back(BinaryFunction{s.name, {{s.value, s.value + s.size}}, true});
      starts.emplace(s.value, FuncRange{s.value, s.value + s.size, it->second, false});
    }
  }
  for (auto& [start, r] : starts) b->ranges_.push_back(r);
  if (b->ranges_.empty())
    warn("Loading of DWARF info completed, but no binary functions have been retrieved.");
  if (!duplicate_starts.empty())
    warn("Found " + std::to_string(duplicate_starts.size()) +
         " start addresses with multiple symbols");

  // Symbols, by section, sorted by address then name (llvm-profgen disassembles symbol by
  // symbol: each from its address to the next symbol's).
  std::map<uint32_t, std::vector<std::pair<uint64_t, std::string_view>>> by_section;
  for (size_t i = 1; i < symbols.size(); ++i) {
    const elf::Symbol& s = symbols[i];
    if (!s.is_defined_in_section()) continue;
    by_section[s.section_index].emplace_back(s.value, s.name);
  }
  for (auto& [index, list] : by_section) std::stable_sort(list.begin(), list.end());
  for (const auto& [index, list] : by_section) {
    if (index >= m.elf.sections().size()) continue;
    const auto& sec = m.elf.sections()[index];
    if (sec.type == elf::kShtNobits || sec.is_executable()) continue;
    for (const auto& [addr, name] : list)
      if (name == "__llvm_fs_discriminator__") b->fs_discriminators_ = true;
  }

  // The pieces to decode (each symbol to the next, in section then address order), decoded
  // on several threads: decoding every instruction of a large binary is most of loading it.
  struct Piece {
    Bytes data;  // the section's bytes
    uint64_t section_address, start, stop, section_end;
  };
  std::vector<Piece> pieces;
  for (const auto& sec : m.elf.sections()) {
    if (!sec.is_executable() || sec.size == 0) continue;
    if (sec.name == ".plt") continue;
    PROFKIT_TRY_ASSIGN(Bytes data, m.elf.section_data(sec));
    const auto found = by_section.find(sec.index);
    if (found == by_section.end()) continue;
    const auto& list = found->second;
    const uint64_t sec_end = sec.address + data.size();
    for (size_t si = 0; si < list.size(); ++si) {
      const uint64_t start = list[si].first;
      const uint64_t next = si + 1 < list.size() ? list[si + 1].first : sec_end;
      // Entry: a function with one range, or a symbol named as DWARF names the function.
      if (const FuncRange* fr = b->find_func_range(start)) {
        FuncRange& r = b->ranges_[static_cast<size_t>(fr - b->ranges_.data())];
        const BinaryFunction& f = b->functions_[r.function];
        if (f.ranges.size() == 1 || (!r.is_entry && f.name == probe::canonical_name(list[si].second)))
          r.is_entry = true;
      }
      if (start < sec.address) continue;
      pieces.push_back(Piece{data, sec.address, start, std::min(next, sec_end), sec_end});
    }
  }
  struct Decoded {
    std::vector<uint64_t> code, targets;
    std::vector<uint8_t> sizes, classes;
    uint64_t invalid_runs = 0;
  };
  const size_t workers = std::max<size_t>(1, std::min<size_t>(8, std::thread::hardware_concurrency()));
  std::vector<Decoded> parts(workers);
  auto decode_range = [&](size_t w, size_t from, size_t to) {
    Decoded& d = parts[w];
    for (size_t pi = from; pi < to; ++pi) {
      const Piece& p = pieces[pi];
      uint64_t address = p.start;
      uint64_t invalid = 0;
      while (address < p.stop) {
        const auto bytes = p.data.subspan(address - p.section_address,
                                          std::min<uint64_t>(15, p.section_end - address));
        const symbolize::Insn insn = symbolize::decode_insn(bytes, address);
        const uint64_t size = insn.length == 0 ? 1 : insn.length;
        if (insn.length != 0) {
          d.code.push_back(address);
          d.sizes.push_back(insn.length);
          d.classes.push_back(classify(insn.kind));
          const bool jump = insn.kind == symbolize::InsnKind::jump ||
                            insn.kind == symbolize::InsnKind::cond_jump;
          d.targets.push_back(jump && insn.emulable ? insn.target : 0);
          if (invalid != 0) ++d.invalid_runs;
          invalid = 0;
        } else {
          invalid += size;
        }
        address += size;
      }
      if (invalid != 0) ++d.invalid_runs;
    }
  };
  {
    uint64_t total = 0;
    for (const Piece& p : pieces) total += p.stop - p.start;
    std::vector<std::thread> threads;
    size_t first = 0;
    uint64_t done = 0;
    for (size_t w = 0; w < workers; ++w) {
      // Split by bytes: each worker takes about the same amount of code.
      size_t last = first;
      const uint64_t goal = total * (w + 1) / workers;
      while (last < pieces.size() && (w + 1 == workers || done < goal)) {
        done += pieces[last].stop - pieces[last].start;
        ++last;
      }
      if (w + 1 == workers) decode_range(w, first, last);
      else threads.emplace_back(decode_range, w, first, last);
      first = last;
    }
    for (auto& t : threads) t.join();
  }
  uint64_t invalid_runs = 0;
  for (Decoded& d : parts) {
    b->code_.insert(b->code_.end(), d.code.begin(), d.code.end());
    b->sizes_.insert(b->sizes_.end(), d.sizes.begin(), d.sizes.end());
    b->classes_.insert(b->classes_.end(), d.classes.begin(), d.classes.end());
    b->targets_.insert(b->targets_.end(), d.targets.begin(), d.targets.end());
    invalid_runs += d.invalid_runs;
  }
  for (size_t i = 0; i < b->code_.size(); ++i)
    if (b->classes_[i] & kInsnUncond) b->uncond_.push_back(b->code_[i]);
  if (invalid_runs > 0) warn("Found " + std::to_string(invalid_runs) + " invalid instructions");
  // Sections are disassembled in header order, which need not be address order.
  if (!std::is_sorted(b->code_.begin(), b->code_.end())) {
    std::vector<size_t> order(b->code_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return b->code_[x] < b->code_[y]; });
    std::vector<uint64_t> code(order.size());
    std::vector<uint8_t> sizes(order.size()), classes(order.size());
    std::vector<uint64_t> targets(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      code[i] = b->code_[order[i]];
      sizes[i] = b->sizes_[order[i]];
      classes[i] = b->classes_[order[i]];
      targets[i] = b->targets_[order[i]];
    }
    b->targets_ = std::move(targets);
    b->code_ = std::move(code);
    b->sizes_ = std::move(sizes);
    b->classes_ = std::move(classes);
    std::sort(b->uncond_.begin(), b->uncond_.end());
  }

  b->find_prolog_epilog();
  b->index_code();

  uint64_t without_entry = 0;
  {
    std::vector<bool> has_entry(b->functions_.size(), false), has_range(b->functions_.size());
    for (const auto& r : b->ranges_) {
      has_range[r.function] = true;
      if (r.is_entry) has_entry[r.function] = true;
    }
    for (size_t i = 0; i < has_entry.size(); ++i)
      if (has_range[i] && !has_entry[i]) ++without_entry;
    const uint64_t with_range = b->functions_.size();
    warn_summary(warn, without_entry, with_range,
                 "of functions failed to determine function entry due to inconsistent name "
                 "from symbol table and dwarf info.");
  }

  // Pseudo probes, unless line numbers were asked for.
  if (probes) {
    PROFKIT_TRY_ASSIGN(auto decoded, probe::decode_elf_probes(m.elf, symbols));
    b->probes_ = std::make_unique<probe::ProbeMap>(std::move(decoded.map));
  }
  b->drop_file_pages();
  return b;
}

std::unique_ptr<ProfiledBinary> ProfiledBinary::synthetic(const SyntheticBinary& d) {
  std::unique_ptr<ProfiledBinary> b(new ProfiledBinary());
  b->path_ = d.path;
  b->preferred_text_addresses_.push_back(d.preferred_base & kPageMask);
  b->text_segment_offsets_.push_back(0x1000);
  b->first_loadable_address_ = d.preferred_base & kPageMask;
  for (const auto& i : d.instructions) {
    b->code_.push_back(i.address);
    b->sizes_.push_back(i.size);
    b->classes_.push_back(i.classes);
    b->targets_.push_back(0);
    if (i.classes & kInsnUncond) b->uncond_.push_back(i.address);
  }
  for (const auto& f : d.functions) {
    const std::string_view name = b->impl_->names.emplace_back(f.name);
    b->ranges_.push_back(FuncRange{f.start, f.end, static_cast<uint32_t>(b->functions_.size()),
                                   true});
    b->functions_.push_back(BinaryFunction{name, {{f.start, f.end}}, false});
  }
  std::sort(b->ranges_.begin(), b->ranges_.end(),
            [](const FuncRange& x, const FuncRange& y) { return x.start < y.start; });
  b->find_prolog_epilog();
  b->index_code();
  return b;
}

void ProfiledBinary::find_prolog_epilog() {
  // Prologs and epilogs: each range start and the instruction after it, each return and
  // the instruction before it.
  for (const auto& r : ranges_) {
    prolog_epilog_.push_back(r.start);
    const size_t i = lower_bound(r.start);
    if (i + 1 < code_.size()) prolog_epilog_.push_back(code_[i + 1]);
  }
  for (size_t i = 0; i < code_.size(); ++i) {
    if ((classes_[i] & kInsnReturn) == 0) continue;
    prolog_epilog_.push_back(code_[i]);
    if (i > 0) prolog_epilog_.push_back(code_[i - 1]);
  }
  std::sort(prolog_epilog_.begin(), prolog_epilog_.end());
  prolog_epilog_.erase(std::unique(prolog_epilog_.begin(), prolog_epilog_.end()),
                       prolog_epilog_.end());
}

size_t ProfiledBinary::lower_bound(uint64_t address) const {
  return static_cast<size_t>(std::lower_bound(code_.begin(), code_.end(), address) -
                             code_.begin());
}

void ProfiledBinary::index_code() {
  starts_.clear();
  dense_ = false;
  if (code_.empty()) return;
  code_base_ = code_.front();
  const uint64_t span = code_.back() + sizes_.back() - code_base_;
  // Text spread over a huge range (segments far apart) is searched instead.
  if (span > (uint64_t{1} << 30)) return;
  dense_ = true;
  starts_.assign(span, 0);
  for (size_t i = 0; i < code_.size(); ++i)
    starts_[code_[i] - code_base_] = static_cast<uint8_t>(kStart | classes_[i]);
}

int ProfiledBinary::class_search(uint64_t address) const {
  const size_t i = lower_bound(address);
  return i < code_.size() && code_[i] == address ? classes_[i] : -1;
}

bool ProfiledBinary::range_crosses_uncond(uint64_t start, uint64_t end) const {
  if (start >= end) return false;
  // Short ranges (most of them): look at the byte map.
  if (dense_ && end - start <= 256 && start >= code_base_ && end - code_base_ <= starts_.size()) {
    for (uint64_t a = start - code_base_, e = end - code_base_; a < e; ++a)
      if ((starts_[a] & (kStart | kInsnUncond)) == (kStart | kInsnUncond)) return true;
    return false;
  }
  auto it = std::lower_bound(uncond_.begin(), uncond_.end(), start);
  return it != uncond_.end() && *it < end;
}

uint64_t ProfiledBinary::call_from_return_address(uint64_t r) const {
  if (r == kExternalAddress) return kExternalAddress;
  // The last instruction starting before r: a few bytes back in the byte map.
  if (dense_ && r > code_base_ && r - code_base_ <= starts_.size()) {
    const uint64_t off = r - code_base_;
    for (uint64_t back = 1; back <= 32 && back <= off; ++back) {
      const uint8_t b = starts_[off - back];
      if (b & kStart) return (b & kInsnCall) ? r - back : 0;
    }
  }
  const size_t i = lower_bound(r);
  if (i == 0) return 0;
  return (classes_[i - 1] & kInsnCall) ? code_[i - 1] : 0;
}

const FuncRange* ProfiledBinary::find_func_range(uint64_t address) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](uint64_t a, const FuncRange& r) { return a < r.start; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

const FuncRange* ProfiledBinary::func_range_at(uint64_t address) const {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), address,
                             [](const FuncRange& r, uint64_t a) { return r.start < a; });
  return it != ranges_.end() && it->start == address ? &*it : nullptr;
}

std::string_view ProfiledBinary::callee_name(uint64_t target) const {
  const FuncRange* r = func_range_at(target);
  if (r == nullptr || !r->is_entry) return {};
  return probe::canonical_name(functions_[r->function].name);
}

const std::vector<InlineFrame>& ProfiledBinary::inline_stack(uint64_t address) {
  auto [it, added] = stacks_.try_emplace(address);
  if (added) inline_stack_uncached(address, it->second);
  return it->second;
}

void ProfiledBinary::drop_line_info() {
  impl_->sources.reset();
  impl_->scratch = {};
  stacks_ = {};
  line_info_dropped_ = true;
  drop_file_pages();
}

void ProfiledBinary::drop_file_pages() const {
  // The mapping is read-only: the few pages still used (names) are read again on demand.
  if (impl_->file) impl_->file->drop_pages(0, impl_->file->bytes().size());
}

void ProfiledBinary::inline_stack_uncached(uint64_t address, std::vector<InlineFrame>& out) {
  if (line_info_dropped_) std::abort();  // a caller's bug: the frames would silently be missing
  out.clear();
  if (!impl_->sources) return;  // a synthetic binary
  auto& frames = impl_->scratch;
  if (!impl_->sources->frames(address, frames)) frames.clear();  // malformed DWARF: no frames
  // Outermost first, ending at the first frame without a name (as LLVM's symbolizer).
  for (size_t i = frames.size(); i-- > 0;) {
    const auto& f = frames[i];
    if (f.function.empty()) break;
    out.push_back(InlineFrame{f.function, (f.line - f.start_line) & 0xffffu, f.discriminator});
  }
}

uint64_t ProfiledBinary::probe_function_hash(uint64_t guid) const {
  const probe::Descriptor* d = probes_->descriptor(guid);
  return d == nullptr ? 0 : d->hash;
}

}  // namespace profkit::profgen
