// Heap profile -> pprof profile.proto. The schema is pprof's own (Debian's
// golang-github-google-pprof-dev), compiled by protoc at build time; see report/CMakeLists.txt.
#include "report/pprof_export.h"

#include <cstdio>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/bytes/zlib.h"
#include "profile.pb.h"

namespace profkit::report {
namespace {

namespace pb = perftools::profiles;

// pprof values are int64; memprof's are unsigned. Saturate rather than wrap.
int64_t to_int64(uint64_t value) {
  return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(value);
}

// Builds the message with interned strings, functions and locations (pprof wants each
// once, referenced by index or id; 0 is reserved for "none" everywhere).
class Builder {
 public:
  explicit Builder(pb::Profile& out) : out_(out) { out_.add_string_table(""); }

  int64_t str(std::string_view s) {
    if (s.empty()) return 0;
    auto [it, inserted] = strings_.try_emplace(std::string(s), out_.string_table_size());
    if (inserted) out_.add_string_table(std::string(s));
    return it->second;
  }

  uint64_t function(const HeapFrame& frame) {
    const std::string& system = frame.linkage_name.empty() ? frame.function : frame.linkage_name;
    auto key = std::make_tuple(frame.function, system, frame.file);
    auto [it, inserted] = functions_.try_emplace(key, out_.function_size() + 1);
    if (inserted) {
      pb::Function* f = out_.add_function();
      f->set_id(it->second);
      f->set_name(str(frame.function));
      f->set_system_name(str(system));
      f->set_filename(str(frame.file));
    }
    return it->second;
  }

  // `frames` is one physical location: inlined frames first, the frame they are inlined
  // into last (the order of pprof's Location.line).
  uint64_t location(const HeapFrame* frames, size_t count) {
    LocationKey key;
    key.address = frames[count - 1].pc;
    for (size_t i = 0; i < count; ++i)
      key.lines.emplace_back(function(frames[i]), frames[i].line);
    auto [it, inserted] = locations_.try_emplace(key, out_.location_size() + 1);
    if (inserted) {
      pb::Location* loc = out_.add_location();
      loc->set_id(it->second);
      loc->set_mapping_id(1);
      loc->set_address(key.address);
      for (const auto& [function_id, line] : key.lines) {
        pb::Line* l = loc->add_line();
        l->set_function_id(function_id);
        l->set_line(line);
      }
    }
    return it->second;
  }

 private:
  struct LocationKey {
    uint64_t address = 0;
    std::vector<std::pair<uint64_t, int64_t>> lines;  // (function id, line)
    bool operator<(const LocationKey& o) const {
      return std::tie(address, lines) < std::tie(o.address, o.lines);
    }
  };

  pb::Profile& out_;
  std::unordered_map<std::string, int64_t> strings_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> functions_;
  std::map<LocationKey, uint64_t> locations_;
};

void add_sample_type(pb::Profile& out, Builder& b, std::string_view type, std::string_view unit) {
  pb::ValueType* vt = out.add_sample_type();
  vt->set_type(b.str(type));
  vt->set_unit(b.str(unit));
}

void add_label(pb::Sample* sample, Builder& b, std::string_view key, std::string_view value) {
  pb::Label* label = sample->add_label();
  label->set_key(b.str(key));
  label->set_str(b.str(value));
}

std::string hex(uint64_t value) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(value));
  return buf;
}

pb::Profile build(const HeapProfile& profile) {
  pb::Profile out;
  Builder b(out);
  add_sample_type(out, b, "alloc_objects", "count");
  add_sample_type(out, b, "alloc_space", "bytes");
  add_sample_type(out, b, "accesses", "count");
  add_sample_type(out, b, "lifetime", "milliseconds");
  out.set_default_sample_type(b.str("alloc_space"));
  pb::ValueType* period_type = out.mutable_period_type();
  period_type->set_type(b.str("space"));
  period_type->set_unit(b.str("bytes"));
  out.set_period(1);  // memprof records every allocation: nothing to scale

  // Symbolization is done: one mapping that says so keeps pprof from trying again.
  pb::Mapping* mapping = out.add_mapping();
  mapping->set_id(1);
  mapping->set_filename(b.str(profile.path));
  mapping->set_has_functions(true);
  mapping->set_has_filenames(true);
  mapping->set_has_line_numbers(true);
  mapping->set_has_inline_frames(true);

  out.add_comment(b.str("profkit report: " + profile.path + " (" + profile.kind + ")"));
  if (profile.dropped_contexts != 0)
    out.add_comment(b.str("not symbolized, left out: " + std::to_string(profile.dropped_contexts) +
                          " contexts, " + std::to_string(profile.dropped_allocations) +
                          " allocations"));

  for (const HeapContext& context : profile.contexts) {
    pb::Sample* sample = out.add_sample();
    // Leaf first, as pprof wants; a run of inlined frames ends at the frame they are in.
    const std::vector<HeapFrame>& frames = context.frames;
    for (size_t start = 0; start < frames.size();) {
      size_t end = start;
      while (end + 1 < frames.size() && frames[end].inlined) ++end;
      sample->add_location_id(b.location(&frames[start], end - start + 1));
      start = end + 1;
    }
    const memprof::MemInfoBlock& mib = context.mib;
    sample->add_value(mib.AllocCount);
    sample->add_value(to_int64(mib.TotalSize));
    sample->add_value(to_int64(mib.TotalAccessCount));
    sample->add_value(to_int64(mib.TotalLifetime));
    add_label(sample, b, "hint", verdict_name(context.verdict));
    add_label(sample, b, "context", hex(context.id));
    if (mib.AllocCount != 0) {
      pb::Label* size = sample->add_label();
      size->set_key(b.str("bytes"));
      size->set_num(to_int64(mib.TotalSize / mib.AllocCount));
      size->set_num_unit(b.str("bytes"));
    }
  }
  return out;
}

}  // namespace

std::string pprof_profile_proto(const HeapProfile& profile) {
  std::string bytes;
  build(profile).SerializeToString(&bytes);
  return bytes;
}

std::string pprof_profile_gz(const HeapProfile& profile) {
  return gzip_compress(pprof_profile_proto(profile));
}

}  // namespace profkit::report
