#include "format/sampleprof/writer.h"

#include <algorithm>
#include <unordered_map>

#include "format/bytes/cursor.h"
#include "format/bytes/number_text.h"
#include "format/bytes/zlib.h"
#include "format/sampleprof/layout.h"

namespace profkit::sampleprof {

// ---- text ------------------------------------------------------------------------------

void append_vtable_line(std::string& out, const FunctionSamples& f, LineLocation loc,
                        unsigned indent, std::string_view label) {
  auto it = f.vtables.find(loc);
  if (it == f.vtables.end() || it->second.empty()) return;
  out.append(indent, ' ');
  loc.append_to(out);
  out += label;
  for (const auto& [type, n] : it->second) {
    type.append_to(out);
    out.push_back(':');
    append_decimal(out, n);
    out.push_back(' ');
  }
  out.push_back('\n');
}

void append_text(std::string& out, const FunctionSamples& f, const Profile& profile,
                 unsigned indent, bool mark_flat) {
  if (profile.is_cs) {
    out.push_back('[');
    out += f.context_string();
    out += "]:";
  } else {
    f.name.append_to(out);
    out.push_back(':');
  }
  append_decimal(out, f.total);
  if (indent == 0) {
    out.push_back(':');
    append_decimal(out, f.head);
  }
  out.push_back('\n');
  for (const auto& [loc, rec] : f.body) {
    out.append(indent + 1, ' ');
    loc.append_to(out);
    out += ": ";
    append_decimal(out, rec.samples);
    for (const auto& [target, n] : rec.sorted_targets()) {
      out.push_back(' ');
      target.append_to(out);
      out.push_back(':');
      append_decimal(out, n);
    }
    out.push_back('\n');
    append_vtable_line(out, f, loc, indent + 1, ": vtables ");
  }
  for (const auto& [loc, callees] : f.callsites) {
    for (const auto& [callee, samples] : callees) {
      out.append(indent + 1, ' ');
      loc.append_to(out);
      out += ": ";
      append_text(out, samples, profile, indent + 1);
    }
    append_vtable_line(out, f, loc, indent + 1, ": vtables ");
  }
  if (profile.is_probe_based) {
    out.append(indent + 1, ' ');
    out += "!CFGChecksum: ";
    append_decimal(out, f.checksum);
    out.push_back('\n');
  }
  if (f.attributes != 0) {
    out.append(indent + 1, ' ');
    out += "!Attributes: ";
    append_decimal(out, f.attributes);
    out.push_back('\n');
  }
  if (indent == 0 && mark_flat && f.callsites.empty()) out += " !Flat\n";
}

namespace {

std::string write_text(const Profile& profile, bool mark_flat) {
  std::string out;
  for (const FunctionSamples* f : sorted_functions(profile)) append_text(out, *f, profile, 0, mark_flat);
  return out;
}

// ---- binary building blocks ------------------------------------------------------------

struct FunctionIdHash {
  size_t operator()(const FunctionId& id) const {
    return id.is_md5() ? id.md5 : std::hash<std::string_view>()(id.name);
  }
};
struct FunctionIdEq {
  bool operator()(const FunctionId& a, const FunctionId& b) const {
    return a.is_md5() == b.is_md5() && (a.is_md5() ? a.md5 == b.md5 : a.name == b.name);
  }
};

void append_location(std::string& out, LineLocation loc) {
  append_uleb128(out, loc.line);
  append_uleb128(out, loc.discriminator);
}

class BinaryWriter {
 public:
  BinaryWriter(const Profile& profile, const WriteOptions& options)
      : profile_(profile), options_(options) {}

  // Every name the profile references, sorted, each given its index.
  void build_name_table() {
    for (const auto& [key, f] : profile_.functions) {
      if (f.has_context()) {
        for (const Frame& frame : f.context) add_name(frame.name);
      } else {
        add_name(f.name);
      }
      add_names(f);
    }
    names_.reserve(index_.size());
    for (const auto& [id, i] : index_) names_.push_back(id);
    std::sort(names_.begin(), names_.end(), FunctionIdLess());
    for (size_t i = 0; i < names_.size(); ++i) index_[names_[i]] = static_cast<uint32_t>(i);
  }

  void write_name_table(std::string& out, bool md5) const {
    append_uleb128(out, names_.size());
    for (const FunctionId& id : names_) {
      if (md5) {
        append_le<uint64_t>(out, id.hash());
      } else {
        id.append_to(out);
        out.push_back('\0');
      }
    }
  }

  bool has_uniq_name() const {
    for (const FunctionId& id : names_)
      if (!id.is_md5() && id.name.find(".__uniq.") != std::string_view::npos) return true;
    return false;
  }

  // CS contexts, sorted, each given its index.
  void build_context_table() {
    for (const auto& [key, f] : profile_.functions)
      if (f.has_context()) contexts_.push_back(&f);
    std::sort(contexts_.begin(), contexts_.end(),
              [](const FunctionSamples* a, const FunctionSamples* b) { return context_less(*a, *b); });
    for (size_t i = 0; i < contexts_.size(); ++i) context_index_[contexts_[i]] = i;
  }

  void write_context_table(std::string& out) const {
    append_uleb128(out, contexts_.size());
    for (const FunctionSamples* f : contexts_) {
      append_uleb128(out, f->context.size());
      for (const Frame& frame : f->context) {
        append_uleb128(out, name_index(frame.name));
        append_uleb128(out, frame.location.line);
        append_uleb128(out, frame.location.discriminator);
      }
    }
  }

  // A top-level profile's index: its context's (CS) or its name's. Without a context
  // table (the split layout) LLVM writes 0 for every context.
  uint64_t top_index(const FunctionSamples& f) const {
    if (!profile_.is_cs) return name_index(f.name);
    auto it = context_index_.find(&f);
    return it == context_index_.end() ? 0 : it->second;
  }

  void write_record(std::string& out, const FunctionSamples& f) const {
    append_uleb128(out, f.head);
    append_uleb128(out, top_index(f));
    write_body(out, f);
  }

  void write_body(std::string& out, const FunctionSamples& f) const {
    append_uleb128(out, f.total);
    append_uleb128(out, f.body.size());
    for (const auto& [loc, rec] : f.body) {
      append_location(out, loc);
      append_uleb128(out, rec.samples);
      append_uleb128(out, rec.targets.size());
      for (const auto& [target, n] : rec.sorted_targets()) {
        append_uleb128(out, name_index(target));
        append_uleb128(out, n);
      }
    }
    append_uleb128(out, inlinee_count(f));
    for_each_inlinee(f, [&](LineLocation loc, const FunctionSamples& inlinee) {
      append_location(out, loc);
      append_uleb128(out, name_index(inlinee.name));
      write_body(out, inlinee);
    });
    if (options_.write_vtables) {
      append_uleb128(out, f.vtables.size());
      for (const auto& [loc, types] : f.vtables) {
        append_location(out, loc);
        append_uleb128(out, types.size());
        for (const auto& [type, n] : types) {
          append_uleb128(out, name_index(type));
          append_uleb128(out, n);
        }
      }
    }
  }

  void write_metadata(std::string& out, const FunctionSamples& f, bool top) const {
    append_uleb128(out, top ? top_index(f) : name_index(f.name));
    if (profile_.is_probe_based) append_uleb128(out, f.checksum);
    if (profile_.is_cs || profile_.is_preinlined) append_uleb128(out, f.attributes);
    if (profile_.is_cs) return;
    append_uleb128(out, inlinee_count(f));
    for_each_inlinee(f, [&](LineLocation loc, const FunctionSamples& inlinee) {
      append_location(out, loc);
      write_metadata(out, inlinee, false);
    });
  }

  uint64_t name_index(const FunctionId& id) const {
    auto it = index_.find(id);
    return it == index_.end() ? 0 : it->second;
  }

 private:
  void add_name(const FunctionId& id) { index_.try_emplace(id, 0); }
  void add_names(const FunctionSamples& f) {
    for (const auto& [loc, rec] : f.body)
      for (const auto& [target, n] : rec.targets) add_name(target);
    for_each_inlinee(f, [&](LineLocation, const FunctionSamples& inlinee) {
      add_name(inlinee.name);
      add_names(inlinee);
    });
    if (options_.write_vtables)
      for (const auto& [loc, types] : f.vtables)
        for (const auto& [type, n] : types) add_name(type);
  }

  const Profile& profile_;
  const WriteOptions& options_;
  std::unordered_map<FunctionId, uint32_t, FunctionIdHash, FunctionIdEq> index_;
  std::vector<FunctionId> names_;
  std::vector<const FunctionSamples*> contexts_;
  std::unordered_map<const FunctionSamples*, uint64_t> context_index_;
};

void write_magic(std::string& out, uint64_t magic) {
  append_uleb128(out, magic);
  append_uleb128(out, kVersion);
}

void write_summary(std::string& out, const Summary& s) {
  append_uleb128(out, s.total_count);
  append_uleb128(out, s.max_count);
  append_uleb128(out, s.max_function_count);
  append_uleb128(out, s.num_counts);
  append_uleb128(out, s.num_functions);
  append_uleb128(out, s.detailed.size());
  for (const SummaryEntry& e : s.detailed) {
    append_uleb128(out, e.cutoff);
    append_uleb128(out, e.min_count);
    append_uleb128(out, e.num_counts);
  }
}

std::string write_binary(const Profile& profile, const WriteOptions& options) {
  std::string out;
  write_magic(out, kMagicBinary);
  write_summary(out, compute_summary(profile));
  BinaryWriter w(profile, options);
  w.build_name_table();
  w.write_name_table(out, false);
  for (const FunctionSamples* f : sorted_functions(profile)) w.write_record(out, *f);
  return out;
}

// ---- extbinary ---------------------------------------------------------------------------

std::string write_extbinary(const Profile& profile, const WriteOptions& options) {
  BinaryWriter w(profile, options);
  w.build_name_table();
  if (profile.is_cs && !options.split_layout) w.build_context_table();
  const std::vector<const FunctionSamples*> order = sorted_functions(profile);

  // One entry per section of the header table, in table order.
  struct Section {
    SectionType type;
    uint64_t flags = 0;
    uint64_t offset = 0, size = 0;
  };
  std::vector<Section> table;
  if (!options.split_layout) {
    table = {{SectionType::summary}, {SectionType::name_table}, {SectionType::cs_name_table},
             {SectionType::func_offset_table}, {SectionType::lbr_profile},
             {SectionType::symbol_list}, {SectionType::func_metadata}};
  } else {
    table = {{SectionType::summary},           {SectionType::name_table},
             {SectionType::func_offset_table}, {SectionType::lbr_profile},
             {SectionType::func_offset_table}, {SectionType::lbr_profile},
             {SectionType::symbol_list},       {SectionType::func_metadata}};
    table[4].flags |= kFlagFlat;
    table[5].flags |= kFlagFlat;
  }
  for (Section& s : table) {
    if (options.compress_all_sections) s.flags |= kFlagCompressed;
    switch (s.type) {
      case SectionType::summary:
        if (options.partial) s.flags |= kSummaryPartial;
        if (profile.is_cs) s.flags |= kSummaryContext;
        if (profile.is_fs) s.flags |= kSummaryFsDiscriminator;
        if (profile.is_preinlined) s.flags |= kSummaryPreInlined;
        if (options.write_vtables) s.flags |= kSummaryVTables;
        break;
      case SectionType::name_table:
        if (options.use_md5) s.flags |= kNameTableMd5 | kNameTableFixedLengthMd5;
        else if (w.has_uniq_name()) s.flags |= kNameTableUniq;
        break;
      case SectionType::func_offset_table:
        if (profile.is_cs) s.flags |= kOffsetTableOrdered;
        break;
      case SectionType::func_metadata:
        if (profile.is_probe_based) s.flags |= kMetadataProbe;
        if (profile.is_cs || profile.is_preinlined) s.flags |= kMetadataAttributes;
        break;
      default:
        break;
    }
  }

  std::string out;
  write_magic(out, kMagicExtBinary);
  append_le<uint64_t>(out, table.size());
  const size_t table_offset = out.size();
  out.append(table.size() * 32, '\xff');

  // Records of one LBRProfile section and the offsets FuncOffsetTable lists.
  std::vector<std::pair<const FunctionSamples*, uint64_t>> offsets;
  auto lbr = [&](bool with_inlinees, bool all) {
    std::string data;
    offsets.clear();
    for (const FunctionSamples* f : order) {
      if (!all && f->callsites.empty() == with_inlinees) continue;
      offsets.emplace_back(f, data.size());
      w.write_record(data, *f);
    }
    return data;
  };
  auto offset_table = [&] {
    if (profile.is_cs)
      std::sort(offsets.begin(), offsets.end(),
                [](const auto& a, const auto& b) { return context_less(*a.first, *b.first); });
    std::string data;
    append_uleb128(data, offsets.size());
    for (const auto& [f, offset] : offsets) {
      append_uleb128(data, w.top_index(*f));
      append_uleb128(data, offset);
    }
    return data;
  };
  auto put = [&](size_t index, std::string data) {
    Section& s = table[index];
    s.offset = out.size();
    if ((s.flags & kFlagCompressed) && !data.empty()) {
      std::string z = zlib_compress(data);
      append_uleb128(out, data.size());
      append_uleb128(out, z.size());
      out += z;
    } else {
      out += data;
    }
    s.size = out.size() - s.offset;
  };
  auto summary = [&] {
    std::string d;
    write_summary(d, compute_summary(profile));
    return d;
  };
  auto names = [&] {
    std::string d;
    w.write_name_table(d, options.use_md5);
    return d;
  };
  auto symbols = [&] {
    std::vector<std::string_view> list = options.symbol_list;
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    std::string d;
    for (std::string_view s : list) {
      d += s;
      d.push_back('\0');
    }
    return d;
  };
  auto metadata = [&] {
    std::string d;
    if (!profile.is_probe_based && !profile.is_cs && !profile.is_preinlined) return d;
    for (const auto& [key, f] : profile.functions) w.write_metadata(d, f, true);
    return d;
  };
  if (!options.split_layout) {
    put(0, summary());
    put(1, names());
    std::string contexts;
    w.write_context_table(contexts);
    put(2, std::move(contexts));
    put(4, lbr(false, true));
    put(5, symbols());
    put(3, offset_table());
    put(6, metadata());
  } else {
    put(0, summary());
    put(1, names());
    put(3, lbr(true, false));
    put(2, offset_table());
    put(5, lbr(false, false));
    put(4, offset_table());
    put(6, symbols());
    put(7, metadata());
  }
  for (size_t i = 0; i < table.size(); ++i) {
    uint8_t* p = reinterpret_cast<uint8_t*>(out.data()) + table_offset + i * 32;
    store_le<uint64_t>(p, static_cast<uint64_t>(table[i].type));
    store_le<uint64_t>(p + 8, table[i].flags);
    store_le<uint64_t>(p + 16, table[i].offset);
    store_le<uint64_t>(p + 24, table[i].size);
  }
  return out;
}

}  // namespace

namespace {

// The first line offset above 65535 among those the binary readers check (body lines,
// context frames, vtable sites; not inlinee call sites), or 0. Text profiles may hold larger
// ones; llvm-profdata writes them into binary profiles it then refuses to read.
uint64_t first_unreadable_line(const FunctionSamples& f, bool vtables) {
  for (const auto& [loc, rec] : f.body)
    if (loc.line > 0xffff) return loc.line;
  if (vtables)
    for (const auto& [loc, types] : f.vtables)
      if (loc.line > 0xffff) return loc.line;
  uint64_t found = 0;
  for_each_inlinee(f, [&](LineLocation, const FunctionSamples& inlinee) {
    if (found == 0) found = first_unreadable_line(inlinee, vtables);
  });
  return found;
}

Expected<void> check_binary_writable(const Profile& profile, const WriteOptions& options) {
  for (const auto& [key, f] : profile.functions) {
    if (profile.is_cs && !f.has_context())
      return make_error(ErrorCode::invalid_argument, kNoOffset,
                        "function " + f.name.str() +
                            " has no calling context in a context-sensitive profile");
    uint64_t line = first_unreadable_line(f, options.write_vtables);
    for (const Frame& frame : f.context)
      if (line == 0 && frame.location.line > 0xffff) line = frame.location.line;
    if (line != 0)
      return make_error(ErrorCode::invalid_argument, kNoOffset,
                        "line offset " + std::to_string(line) + " in " + f.context_string() +
                            " does not fit a binary sample profile (at most 65535): write text");
  }
  return {};
}

}  // namespace

Expected<std::string> write_profile(const Profile& profile, const WriteOptions& options) {
  if (options.format != Format::text) PROFKIT_TRY(check_binary_writable(profile, options));
  switch (options.format) {
    case Format::text:
      return write_text(profile, options.mark_flat);
    case Format::binary:
      if (profile.is_cs || profile.is_probe_based)
        return make_error(ErrorCode::invalid_argument, kNoOffset,
                          "the binary sample format cannot hold context-sensitive or "
                          "probe-based profiles: write extbinary or text");
      return write_binary(profile, options);
    case Format::extbinary:
      return write_extbinary(profile, options);
  }
  return std::string();
}

}  // namespace profkit::sampleprof
