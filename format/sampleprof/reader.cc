#include "format/sampleprof/reader.h"

#include <cstring>

#include "format/bytes/zlib.h"
#include "format/sampleprof/layout.h"
#include "format/sampleprof/text_reader.h"

namespace profkit::sampleprof {
namespace {

// Layout of a binary profile (magic ...ff):
//
//   uleb magic  uleb version(103)  Summary  NameTable  FunctionRecord* (to the end)
//
// and of an extbinary profile (magic ...04):
//
//   uleb magic  uleb version  u64 N  N x {u64 type, flags, offset, size}  section data
//
// FunctionRecord := uleb head  uleb name-or-context index  Body
// Body := uleb total  uleb nbody  nbody x (uleb line  uleb disc  uleb samples
//           uleb ntargets  ntargets x (uleb name index  uleb count))
//         uleb ncallsites  ncallsites x (uleb line  uleb disc  uleb name index  Body)
//         [vtable sites, when the summary says so]

Expected<uint64_t> uleb(Cursor& c, std::string_view what) { return c.read_uleb128(what); }

Expected<uint32_t> uleb32(Cursor& c, std::string_view what) {
  const uint64_t at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t v, c.read_uleb128(what));
  if (v > 0xffffffffu)
    return make_error(ErrorCode::malformed, at,
                      std::string(what) + " is " + std::to_string(v) + ", more than 2^32-1");
  return static_cast<uint32_t>(v);
}

Expected<uint64_t> read_magic(Cursor& c) {
  PROFKIT_TRY_ASSIGN(uint64_t magic, uleb(c, "the sample profile magic"));
  const uint64_t at = c.offset();
  PROFKIT_TRY_ASSIGN(uint64_t version, uleb(c, "the sample profile version"));
  if (version != kVersion)
    return make_error(ErrorCode::unsupported_version, at,
                      "unsupported sample profile format version " + std::to_string(version) +
                          " (expected 103)");
  return magic;
}

Expected<Summary> read_summary(Cursor& c) {
  Summary s;
  PROFKIT_TRY_ASSIGN(s.total_count, uleb(c, "the summary's total count"));
  PROFKIT_TRY_ASSIGN(s.max_count, uleb(c, "the summary's maximum count"));
  PROFKIT_TRY_ASSIGN(s.max_function_count, uleb(c, "the summary's maximum function count"));
  PROFKIT_TRY_ASSIGN(s.num_counts, uleb(c, "the summary's number of counts"));
  PROFKIT_TRY_ASSIGN(s.num_functions, uleb(c, "the summary's number of functions"));
  PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "the number of summary entries"));
  for (uint64_t i = 0; i < n; ++i) {
    SummaryEntry e;
    PROFKIT_TRY_ASSIGN(e.cutoff, uleb(c, "a summary cutoff"));
    e.cutoff &= 0xffffffffu;  // LLVM keeps cutoffs in 32 bits
    PROFKIT_TRY_ASSIGN(e.min_count, uleb(c, "a summary minimum count"));
    PROFKIT_TRY_ASSIGN(e.num_counts, uleb(c, "a summary number of counts"));
    s.detailed.push_back(e);
  }
  return s;
}

class BinaryReader {
 public:
  explicit BinaryReader(Profile& profile) : p_(profile) {}

  Expected<void> read_name_table(Cursor& c, bool md5, bool fixed_length) {
    PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "the number of names"));
    names_.clear();
    name_hashes_.clear();
    if (fixed_length) {
      uint64_t bytes = 0;
      if (mul_overflows(n, 8, &bytes) || bytes > c.remaining())
        return c.truncated("a fixed-length MD5 name table of " + std::to_string(n) + " entries");
      names_.reserve(n);
      for (uint64_t i = 0; i < n; ++i)
        names_.push_back(FunctionId::from_md5(*c.read_le<uint64_t>("an MD5 name")));
      return {};
    }
    if (n > c.remaining()) return c.truncated("a name table of " + std::to_string(n) + " names");
    names_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (md5) {
        PROFKIT_TRY_ASSIGN(uint64_t v, uleb(c, "an MD5 name"));
        names_.push_back(FunctionId::from_md5(v));
        continue;
      }
      const Bytes rest = c.data().subspan(c.position());
      const void* nul = std::memchr(rest.data(), 0, rest.size());
      if (nul == nullptr) return c.truncated("a NUL-terminated name");
      const size_t len = static_cast<const uint8_t*>(nul) - rest.data();
      names_.push_back(FunctionId(std::string_view(reinterpret_cast<const char*>(rest.data()), len)));
      (void)c.skip(len + 1, "a name");
    }
    return {};
  }

  Expected<void> read_context_table(Cursor& c) {
    PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "the number of contexts"));
    if (n > c.remaining()) return c.truncated("a context table of " + std::to_string(n) + " contexts");
    contexts_.clear();
    context_keys_.clear();
    contexts_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t at = c.offset();
      PROFKIT_TRY_ASSIGN(uint32_t frames, uleb32(c, "the number of frames of a context"));
      if (frames == 0)
        return make_error(ErrorCode::malformed, at, "a calling context without frames");
      if (frames > c.remaining()) return c.truncated("the frames of a context");
      std::vector<Frame> context;
      context.reserve(frames);
      for (uint32_t j = 0; j < frames; ++j) {
        Frame f;
        PROFKIT_TRY_ASSIGN(f.name, read_name(c));
        PROFKIT_TRY(read_location(c, f.location));
        context.push_back(f);
      }
      contexts_.push_back(std::move(context));
    }
    context_keys_.assign(contexts_.size(), 0);
    return {};
  }

  // Records until the end of `c`.
  Expected<void> read_records(Cursor& c) {
    while (!c.at_end()) PROFKIT_TRY(read_record(c));
    return {};
  }

  // The offset table of a default-layout profile, for merging its records directly: the
  // keys in record order. False (nothing done) when a function is listed twice.
  Expected<bool> read_offset_table(Cursor& c) {
    PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "the number of function offsets"));
    if (n > c.remaining()) return c.truncated("a function offset table of " + std::to_string(n) + " entries");
    std::vector<std::pair<uint64_t, uint64_t>> entries;  // (offset, key)
    entries.reserve(n);
    std::unordered_map<uint64_t, char> seen;
    seen.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      PROFKIT_TRY_ASSIGN(uint64_t key, read_top_key(c, nullptr));
      PROFKIT_TRY_ASSIGN(uint64_t offset, uleb(c, "a function offset"));
      if (!seen.try_emplace(key, 0).second) return false;
      entries.emplace_back(offset, key);
    }
    std::sort(entries.begin(), entries.end());
    for (size_t i = 1; i < entries.size(); ++i)
      if (entries[i].first == entries[i - 1].first) return false;
    direct_offsets_.clear();
    direct_keys_.clear();
    for (const auto& [offset, key] : entries) {
      direct_offsets_.push_back(offset);
      direct_keys_.push_back(key);
    }
    return true;
  }

  // Merges the records of an LBRProfile section straight into `into`, weighted, as reading
  // them into a profile of their own and merging that would (see Merger::add).
  Expected<void> merge_records(Cursor& c, std::unordered_map<uint64_t, FunctionSamples>& into,
                               uint64_t weight, const DirectMerge& direct) {
    // Keys first, in the order the input's own map would iterate them.
    {
      std::unordered_map<uint64_t, char> order;
      for (uint64_t key : direct_keys_) order.try_emplace(key, 0);
      for (const auto& [key, unused] : order) into.try_emplace(key);
    }
    size_t k = 0;
    while (!c.at_end()) {
      const uint64_t at = c.offset();
      if (k >= direct_keys_.size() || c.position() != direct_offsets_[k])
        return make_error(ErrorCode::malformed, at,
                          "function record at section offset " + std::to_string(c.position()) +
                              " is not where the function offset table puts it");
      PROFKIT_TRY_ASSIGN(uint64_t head, uleb(c, "a function's head samples"));
      PROFKIT_TRY_ASSIGN(uint64_t index, uleb(c, "a name index"));
      if (index >= names_.size())
        return make_error(ErrorCode::malformed, at, "name index " + std::to_string(index) +
                                                        " is past the end of the name table");
      const uint64_t key = name_hash(index);
      if (key != direct_keys_[k])
        return make_error(ErrorCode::malformed, at,
                          "function record does not belong to the function the offset table names");
      ++k;
      FunctionSamples& f = into.find(key)->second;
      if (f.name.empty() && !f.has_context()) f.name = names_[index];
      MergeResult result = MergeResult::ok;
      const bool merge = f.checksum == 0;  // a non-zero checksum never matches ours (0)
      if (!merge) result = MergeResult::hash_mismatch;
      PROFKIT_TRY_ASSIGN(uint64_t total, uleb(c, "a function's total samples"));
      if (merge) {
        f.total = saturating_add_mul(f.total, total, weight, result);
        f.head = saturating_add_mul(f.head, head, weight, result);
      }
      PROFKIT_TRY(merge_body(c, merge ? &f : nullptr, weight, result, 0));
      if (result != MergeResult::ok && direct.report) direct.report(f, result);
    }
    if (k != direct_keys_.size())
      return c.fail(ErrorCode::malformed, "the function offset table lists " +
                                              std::to_string(direct_keys_.size()) +
                                              " functions but the section holds " +
                                              std::to_string(k));
    return {};
  }

  Expected<void> read_metadata(Cursor& c, bool probe, bool attributes) {
    while (!c.at_end()) {
      PROFKIT_TRY_ASSIGN(uint64_t key, read_top_key(c, nullptr));
      auto it = p_.functions.find(key);
      FunctionSamples* f = it == p_.functions.end() ? nullptr : &it->second;
      PROFKIT_TRY(read_metadata_entry(c, f, probe, attributes, 0));
    }
    return {};
  }

 private:
  // The body of a record (after its total) added into `f` (null: parsed and dropped).
  Expected<void> merge_body(Cursor& c, FunctionSamples* f, uint64_t weight, MergeResult& result,
                            uint32_t depth) {
    if (depth > kMaxInlineDepth)
      return c.fail(ErrorCode::malformed, "inlinees nested deeper than " +
                                              std::to_string(kMaxInlineDepth) + " levels");
    PROFKIT_TRY_ASSIGN(uint32_t records, uleb32(c, "the number of body records"));
    for (uint32_t i = 0; i < records; ++i) {
      LineLocation loc;
      PROFKIT_TRY(read_location(c, loc));
      PROFKIT_TRY_ASSIGN(uint64_t samples, uleb(c, "a sample count"));
      PROFKIT_TRY_ASSIGN(uint32_t targets, uleb32(c, "the number of call targets"));
      SampleRecord* rec = nullptr;
      if (f != nullptr) {
        // Records come in location order, so this appends (any order costs n log n).
        rec = &f->body[loc];
        rec->samples = saturating_add_mul(rec->samples, samples, weight, result);
      }
      for (uint32_t j = 0; j < targets; ++j) {
        PROFKIT_TRY_ASSIGN(FunctionId target, read_name(c));
        PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "a call target count"));
        if (rec == nullptr) continue;
        bool found = false;
        for (auto& [t, count] : rec->targets) {
          if (t == target) {
            count = saturating_add_mul(count, n, weight, result);
            found = true;
            break;
          }
        }
        if (!found) rec->targets.emplace_back(target, saturating_add_mul(0, n, weight, result));
      }
    }
    PROFKIT_TRY_ASSIGN(uint32_t callsites, uleb32(c, "the number of inlined callsites"));
    for (uint32_t i = 0; i < callsites; ++i) {
      LineLocation loc;
      PROFKIT_TRY(read_callsite_location(c, loc));
      PROFKIT_TRY_ASSIGN(FunctionId callee, read_name(c));
      PROFKIT_TRY_ASSIGN(uint64_t total, uleb(c, "a function's total samples"));
      FunctionSamples* inlinee = nullptr;
      if (f != nullptr) {
        inlinee = &f->callsites[loc][callee];
        if (inlinee->name.empty() && !inlinee->has_context()) inlinee->name = callee;
        if (inlinee->checksum != 0) {
          note(result, MergeResult::hash_mismatch);
          inlinee = nullptr;
        } else {
          inlinee->total = saturating_add_mul(inlinee->total, total, weight, result);
        }
      }
      PROFKIT_TRY(merge_body(c, inlinee, weight, result, depth + 1));
    }
    if (!vtables_) return {};
    PROFKIT_TRY_ASSIGN(uint32_t sites, uleb32(c, "the number of vtable sites"));
    for (uint32_t i = 0; i < sites; ++i) {
      LineLocation loc;
      PROFKIT_TRY(read_location(c, loc));
      PROFKIT_TRY_ASSIGN(uint32_t types, uleb32(c, "the number of vtable types"));
      for (uint32_t j = 0; j < types; ++j) {
        PROFKIT_TRY_ASSIGN(FunctionId type, read_name(c));
        PROFKIT_TRY_ASSIGN(uint64_t n, uleb(c, "a vtable count"));
        if (f == nullptr) continue;
        uint64_t& count = f->vtables[loc][type];
        count = saturating_add_mul(count, n, weight, result);
      }
    }
    return {};
  }

  // A body record's location (the line checked, the discriminator cut to 32 bits).
  Expected<void> read_location(Cursor& c, LineLocation& loc) {
    PROFKIT_TRY_ASSIGN(loc.line, read_line(c));
    PROFKIT_TRY_ASSIGN(uint64_t disc, uleb(c, "a discriminator"));
    loc.discriminator = static_cast<uint32_t>(disc);
    return {};
  }

  // An inlinee's location: the line is not checked (LLVM does not), only cut to 32 bits.
  Expected<void> read_callsite_location(Cursor& c, LineLocation& loc) {
    PROFKIT_TRY_ASSIGN(uint64_t line, uleb(c, "a callsite line offset"));
    loc.line = static_cast<uint32_t>(line);
    PROFKIT_TRY_ASSIGN(uint64_t disc, uleb(c, "a discriminator"));
    loc.discriminator = static_cast<uint32_t>(disc);
    return {};
  }

  uint64_t name_hash(uint64_t index) {
    if (name_hashes_.size() != names_.size()) name_hashes_.assign(names_.size(), 0);
    uint64_t& h = name_hashes_[index];
    if (h == 0) h = names_[index].hash();
    return h;
  }

  Expected<FunctionId> read_name(Cursor& c) {
    const uint64_t at = c.offset();
    PROFKIT_TRY_ASSIGN(uint64_t i, uleb(c, "a name index"));
    if (i >= names_.size())
      return make_error(ErrorCode::malformed, at,
                        "name index " + std::to_string(i) + " is past the end of the name table (" +
                            std::to_string(names_.size()) + " names)");
    return names_[i];
  }

  Expected<uint32_t> read_line(Cursor& c) {
    const uint64_t at = c.offset();
    PROFKIT_TRY_ASSIGN(uint64_t line, uleb(c, "a line offset"));
    if (line > 0xffff)
      return make_error(ErrorCode::malformed, at,
                        "illegal line offset " + std::to_string(line) + " (at most 65535)");
    return static_cast<uint32_t>(line);
  }

  // The key of a top-level profile's name or context index; fills `fresh` when given.
  Expected<uint64_t> read_top_key(Cursor& c, FunctionSamples* fresh) {
    if (!p_.is_cs) {
      const uint64_t at = c.offset();
      PROFKIT_TRY_ASSIGN(uint64_t i, uleb(c, "a name index"));
      if (i >= names_.size())
        return make_error(ErrorCode::malformed, at,
                          "name index " + std::to_string(i) +
                              " is past the end of the name table (" +
                              std::to_string(names_.size()) + " names)");
      if (fresh != nullptr) {
        fresh->name = names_[i];
        fresh->context.clear();
      }
      return name_hash(i);
    }
    const uint64_t at = c.offset();
    PROFKIT_TRY_ASSIGN(uint64_t i, uleb(c, "a context index"));
    if (i >= contexts_.size())
      return make_error(ErrorCode::malformed, at,
                        "context index " + std::to_string(i) +
                            " is past the end of the context table (" +
                            std::to_string(contexts_.size()) + " contexts)");
    if (context_keys_[i] == 0) context_keys_[i] = context_key(contexts_[i]);
    if (fresh != nullptr) {
      fresh->context = contexts_[i];
      fresh->name = contexts_[i].back().name;
    }
    return context_keys_[i];
  }

  Expected<void> read_record(Cursor& c) {
    PROFKIT_TRY_ASSIGN(uint64_t head, uleb(c, "a function's head samples"));
    FunctionSamples fresh;
    PROFKIT_TRY_ASSIGN(uint64_t key, read_top_key(c, &fresh));
    PROFKIT_TRY_ASSIGN(uint64_t total, uleb(c, "a function's total samples"));
    FunctionSamples& f = p_.functions[key];
    f.name = fresh.name;
    f.context = std::move(fresh.context);
    f.attributes = 0;
    MergeResult ignored = MergeResult::ok;  // LLVM's binary readers ignore overflow
    f.head = saturating_add_mul(f.head, head, 1, ignored);
    f.total = saturating_add_mul(f.total, total, 1, ignored);
    return merge_body(c, &f, 1, ignored, 0);
  }

  Expected<void> read_metadata_entry(Cursor& c, FunctionSamples* f, bool probe, bool attributes,
                                     uint32_t depth) {
    if (depth > kMaxInlineDepth)
      return c.fail(ErrorCode::malformed, "inlinees nested deeper than " +
                                              std::to_string(kMaxInlineDepth) + " levels");
    if (c.at_end()) return {};
    if (probe) {
      PROFKIT_TRY_ASSIGN(uint64_t checksum, uleb(c, "a CFG checksum"));
      if (f != nullptr) f->checksum = checksum;
    }
    if (attributes) {
      PROFKIT_TRY_ASSIGN(uint32_t attr, uleb32(c, "context attributes"));
      if (f != nullptr) f->attributes = attr;
    }
    if (p_.is_cs) return {};
    PROFKIT_TRY_ASSIGN(uint32_t callsites, uleb32(c, "the number of inlined callsites"));
    for (uint32_t i = 0; i < callsites; ++i) {
      LineLocation loc;
      PROFKIT_TRY(read_callsite_location(c, loc));
      PROFKIT_TRY_ASSIGN(FunctionId callee, read_name(c));
      FunctionSamples* inlinee = nullptr;
      if (f != nullptr) {
        inlinee = &f->callsites[loc][callee];
        if (inlinee->name.empty()) inlinee->name = callee;
      }
      PROFKIT_TRY(read_metadata_entry(c, inlinee, probe, attributes, depth + 1));
    }
    return {};
  }

 public:
  bool vtables_ = false;

 private:
  Profile& p_;
  std::vector<FunctionId> names_;
  std::vector<std::vector<Frame>> contexts_;
  std::vector<uint64_t> context_keys_;
  std::vector<uint64_t> name_hashes_;
  std::vector<uint64_t> direct_offsets_, direct_keys_;
};

Expected<Profile> read_binary(Bytes data) {
  Profile p;
  p.format = Format::binary;
  Cursor c(data);
  PROFKIT_TRY(read_magic(c));
  PROFKIT_TRY_ASSIGN(p.summary, read_summary(c));
  BinaryReader r(p);
  PROFKIT_TRY(r.read_name_table(c, false, false));
  PROFKIT_TRY(r.read_records(c));
  return p;
}

Expected<std::vector<SectionHeader>> read_table(Cursor& c) {
  PROFKIT_TRY(read_magic(c));
  PROFKIT_TRY_ASSIGN(uint64_t n, c.read_le<uint64_t>("the number of sections"));
  uint64_t bytes = 0;
  if (mul_overflows(n, 32, &bytes) || bytes > c.remaining())
    return c.truncated("a section header table of " + std::to_string(n) + " entries");
  std::vector<SectionHeader> table(n);
  for (SectionHeader& s : table) {
    s.type = *c.read_le<uint64_t>("a section type");
    s.flags = *c.read_le<uint64_t>("section flags");
    s.offset = *c.read_le<uint64_t>("a section offset");
    s.size = *c.read_le<uint64_t>("a section size");
  }
  return table;
}

Expected<Profile> read_extbinary(Bytes data, DirectMerge* direct) {
  Profile p;
  p.format = Format::extbinary;
  Cursor header(data);
  PROFKIT_TRY_ASSIGN(p.sections, read_table(header));
  BinaryReader r(p);
  bool offsets_ready = false, records_read = false;
  if (direct != nullptr) {
    // Merging record by record needs the default layout (the offset table read before the
    // one LBRProfile section) and no function metadata (checksums, attributes).
    int lbr = -1, offsets = -1, lbr_count = 0, offsets_count = 0;
    for (size_t i = 0; i < p.sections.size(); ++i) {
      const SectionHeader& s = p.sections[i];
      if (s.type == static_cast<uint64_t>(SectionType::lbr_profile)) lbr = static_cast<int>(i), ++lbr_count;
      if (s.type == static_cast<uint64_t>(SectionType::func_offset_table)) offsets = static_cast<int>(i), ++offsets_count;
      if (s.type == static_cast<uint64_t>(SectionType::func_metadata) && s.size != 0) lbr_count = 99;
    }
    if (lbr_count != 1 || offsets_count != 1 || offsets > lbr) {
      direct->declined = true;
      return p;
    }
  }
  for (size_t i = 0; i < p.sections.size(); ++i) {
    const SectionHeader& s = p.sections[i];
    if (s.size == 0) continue;
    uint64_t end = 0;
    if (add_overflows(s.offset, s.size, &end) || end > data.size())
      return make_error(ErrorCode::truncated, 10 + 8 + 32 * i,
                        "section " + std::to_string(i) + " (" +
                            std::string(section_name(s.type)) + ") spans bytes " +
                            std::to_string(s.offset) + ".." + std::to_string(end) +
                            " but the file has " + std::to_string(data.size()));
    Cursor c(data.subspan(s.offset, s.size), s.offset);
    if (s.flags & kFlagCompressed) {
      PROFKIT_TRY_ASSIGN(uint64_t raw_size, uleb(c, "a section's uncompressed size"));
      PROFKIT_TRY_ASSIGN(uint64_t z_size, uleb(c, "a section's compressed size"));
      PROFKIT_TRY_ASSIGN(Bytes z, c.read_bytes(z_size, "the compressed section"));
      if (raw_size > (uint64_t{1} << 32) || raw_size / 1032 > z_size + 1)
        return make_error(ErrorCode::malformed, s.offset,
                          "compressed section claims " + std::to_string(raw_size) +
                              " bytes, more than zlib can produce from " +
                              std::to_string(z_size));
      PROFKIT_TRY_ASSIGN(std::string raw, zlib_uncompress(z, raw_size, c.offset() - z_size));
      std::string_view owned = p.own(std::move(raw));
      c = Cursor(as_bytes(owned), s.offset);
    }
    switch (static_cast<SectionType>(s.type)) {
      case SectionType::summary: {
        // Its flags say how records are read; LLVM writes it before them.
        const bool cs = (s.flags & kSummaryContext) != 0, vtables = (s.flags & kSummaryVTables) != 0;
        if (records_read && ((cs && !p.is_cs) || (vtables && !r.vtables_)))
          return make_error(ErrorCode::malformed, 10 + 8 + 32 * i,
                            "section " + std::to_string(i) +
                                " is a summary whose flags change how function records are "
                                "read, after the function records (expected it before them)");
        PROFKIT_TRY_ASSIGN(p.summary, read_summary(c));
        if (cs) p.is_cs = true;
        if (s.flags & kSummaryPreInlined) p.is_preinlined = true;
        if (s.flags & kSummaryFsDiscriminator) p.is_fs = true;
        if (vtables) r.vtables_ = true;
        break;
      }
      case SectionType::name_table:
        PROFKIT_TRY(r.read_name_table(c, (s.flags & kNameTableMd5) != 0,
                                      (s.flags & kNameTableFixedLengthMd5) != 0));
        break;
      case SectionType::cs_name_table:
        PROFKIT_TRY(r.read_context_table(c));
        break;
      case SectionType::lbr_profile:
        if (direct != nullptr) {
          if (!offsets_ready || p.is_cs || r.vtables_) {
            direct->declined = true;
            return p;
          }
          PROFKIT_TRY(direct->before_records(p));
          PROFKIT_TRY(r.merge_records(c, *direct->into, direct->weight, *direct));
          records_read = true;
          break;
        }
        PROFKIT_TRY(r.read_records(c));
        records_read = true;
        break;
      case SectionType::func_offset_table:
        if (direct != nullptr && !p.is_cs) {
          PROFKIT_TRY_ASSIGN(offsets_ready, r.read_offset_table(c));
          if (!offsets_ready) {
            direct->declined = true;
            return p;
          }
          break;
        }
        (void)c.skip(c.remaining(), "");  // only compilers use it, to load some functions
        break;
      case SectionType::func_metadata:
        p.is_probe_based = (s.flags & kMetadataProbe) != 0;
        PROFKIT_TRY(r.read_metadata(c, p.is_probe_based, (s.flags & kMetadataAttributes) != 0));
        break;
      case SectionType::symbol_list: {
        std::string_view rest = as_string_view(c.data());
        while (!rest.empty()) {
          const size_t nul = rest.find('\0');
          if (nul == std::string_view::npos)
            return make_error(ErrorCode::truncated, c.base_offset() + c.size() - rest.size(),
                              "expected a NUL-terminated symbol in the profile symbol list");
          p.symbol_list.push_back(rest.substr(0, nul));
          rest.remove_prefix(nul + 1);
        }
        (void)c.skip(c.remaining(), "");
        break;
      }
      default:
        return make_error(ErrorCode::malformed, 10 + 8 + 32 * i,
                          "unknown section type " + std::to_string(s.type));
    }
    if (!c.at_end())
      return make_error(ErrorCode::malformed, c.offset(),
                        std::string(section_name(s.type)) + " ends after " +
                            std::to_string(c.position()) + " of its " +
                            std::to_string(c.size()) + " bytes");
  }
  return p;
}

}  // namespace

bool has_binary_magic(Bytes data) {
  Cursor c(data);
  auto magic = c.read_uleb128("magic");
  return magic && (*magic == kMagicBinary || *magic == kMagicExtBinary);
}

bool is_sample_profile(Bytes data) { return has_binary_magic(data) || has_text_format(data); }

Expected<Profile> read_profile(Bytes data) {
  Cursor c(data);
  auto magic = c.read_uleb128("magic");
  if (magic && *magic == kMagicBinary) return read_binary(data);
  if (magic && *magic == kMagicExtBinary) return read_extbinary(data, nullptr);
  return read_text(data);
}

Expected<Profile> read_extbinary_merging(Bytes data, DirectMerge& direct) {
  Cursor c(data);
  auto magic = c.read_uleb128("magic");
  if (!magic || *magic != kMagicExtBinary) {
    direct.declined = true;
    return Profile();
  }
  return read_extbinary(data, &direct);
}

Expected<std::vector<SectionHeader>> read_section_headers(Bytes data) {
  Cursor c(data);
  auto magic = c.read_uleb128("magic");
  if (!magic || *magic != kMagicExtBinary)
    return make_error(ErrorCode::bad_magic, 0, "not an extbinary sample profile");
  Cursor t(data);
  return read_table(t);
}

}  // namespace profkit::sampleprof
