#include "report/sample_show.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "format/bytes/number_text.h"
#include "format/sampleprof/layout.h"
#include "format/sampleprof/writer.h"

namespace profkit::report {
namespace {

using sampleprof::FunctionSamples;
using sampleprof::Profile;

// FunctionSamples::print: the checksum, the totals, the body, then the inlinees.
void print_samples(std::string& out, const FunctionSamples& f, unsigned indent) {
  if (f.checksum != 0) {
    out += "CFG checksum ";
    append_decimal(out, f.checksum);
    out.push_back('\n');
  }
  append_decimal(out, f.total);
  out += ", ";
  append_decimal(out, f.head);
  out += ", ";
  append_decimal(out, f.body.size());
  out += " sampled lines\n";
  out.append(indent, ' ');
  if (!f.body.empty()) {
    out += "Samples collected in the function's body {\n";
    for (const auto& [loc, rec] : f.body) {
      out.append(indent + 2, ' ');
      loc.append_to(out);
      out += ": ";
      append_decimal(out, rec.samples);
      if (!rec.targets.empty()) {
        out += ", calls:";
        for (const auto& [target, n] : rec.sorted_targets()) {
          out.push_back(' ');
          target.append_to(out);
          out.push_back(':');
          append_decimal(out, n);
        }
      }
      out.push_back('\n');
      sampleprof::append_vtable_line(out, f, loc, indent + 2, ": vtables: ");
    }
    out.append(indent, ' ');
    out += "}\n";
  } else {
    out += "No samples collected in the function's body\n";
  }
  out.append(indent, ' ');
  if (!f.callsites.empty()) {
    out += "Samples collected in inlined callsites {\n";
    for (const auto& [loc, callees] : f.callsites) {
      for (const auto& [callee, samples] : callees) {
        out.append(indent + 2, ' ');
        loc.append_to(out);
        out += ": inlined callee: ";
        samples.name.append_to(out);
        out += ": ";
        print_samples(out, samples, indent + 4);
      }
      sampleprof::append_vtable_line(out, f, loc, indent + 2, ": vtables: ");
    }
    out.append(indent, ' ');
    out += "}\n";
  } else {
    out += "No inlined callsites in this function\n";
  }
}

void print_function(std::string& out, const FunctionSamples& f) {
  out += "Function: ";
  out += f.context_string();
  out += ": ";
  print_samples(out, f, 0);
}

// llvm::json::OStream's string quoting.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c >= 0x20) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    out.push_back('\\');
    if (c == '\t') out.push_back('t');
    else if (c == '\n') out.push_back('n');
    else if (c == '\r') out.push_back('r');
    else append_printf(out, "u%04x", c);
  }
  out.push_back('"');
}

// A writer of llvm::json::OStream's layout with indent 2: one value per line, "key": value.
class Json {
 public:
  explicit Json(std::string& out) : out_(out) {}
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void key(std::string_view k) {
    separate();
    append_json_string(out_, k);
    out_ += ": ";
    after_key_ = true;
  }
  void value(uint64_t v) {
    separate();
    append_decimal(out_, v);
  }
  void value(std::string_view s) {
    separate();
    append_json_string(out_, s);
  }

 private:
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_.push_back(',');
      first_.back() = false;
      out_.push_back('\n');
      out_.append(2 * first_.size(), ' ');
    }
  }
  void open(char c) {
    separate();
    out_.push_back(c);
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) {
      out_.push_back('\n');
      out_.append(2 * first_.size(), ' ');
    }
    out_.push_back(c);
  }

  std::string& out_;
  std::vector<bool> first_;  // per open container: no element yet
  bool after_key_ = false;
};

// "line" and, when not 0, "discriminator" of a location.
void json_location(Json& j, sampleprof::LineLocation loc) {
  j.key("line");
  j.value(loc.line);
  if (loc.discriminator != 0) {
    j.key("discriminator");
    j.value(loc.discriminator);
  }
}

void json_function(Json& j, const FunctionSamples& f, bool top) {
  j.begin_object();
  j.key("name");
  j.value(f.name.str());
  j.key("total");
  j.value(f.total);
  if (top) {
    j.key("head");
    j.value(f.head);
  }
  if (!f.body.empty()) {
    j.key("body");
    j.begin_array();
    for (const auto& [loc, rec] : f.body) {
      j.begin_object();
      json_location(j, loc);
      j.key("samples");
      j.value(rec.samples);
      if (!rec.targets.empty()) {
        j.key("calls");
        j.begin_array();
        for (const auto& [target, n] : rec.sorted_targets()) {
          j.begin_object();
          j.key("function");
          j.value(target.str());
          j.key("samples");
          j.value(n);
          j.end_object();
        }
        j.end_array();
      }
      j.end_object();
    }
    j.end_array();
  }
  if (!f.callsites.empty()) {
    j.key("callsites");
    j.begin_array();
    sampleprof::for_each_inlinee(f, [&](sampleprof::LineLocation loc, const FunctionSamples& inlinee) {
      j.begin_object();
      json_location(j, loc);
      j.key("samples");
      j.begin_array();
      json_function(j, inlinee, false);
      j.end_array();
      j.end_object();
    });
    j.end_array();
  }
  j.end_object();
}

void print_summary(std::string& out, const sampleprof::Summary& s) {
  out += "Total functions: ";
  append_decimal(out, s.num_functions);
  out += "\nMaximum function count: ";
  append_decimal(out, s.max_function_count);
  out += "\nMaximum internal block count: 0\nTotal number of blocks: ";
  append_decimal(out, s.num_counts);
  out += "\nTotal count: ";
  append_decimal(out, s.total_count);
  out += "\nDetailed summary:\n";
  for (const auto& e : s.detailed)
    append_detailed_summary_line(out, e.num_counts, s.num_counts, e.min_count, e.cutoff);

}

void hot_function_list(std::string& out, const Profile& profile, uint32_t topn) {
  uint64_t threshold = 0;
  for (const auto& e : profile.summary.detailed) {
    if (e.cutoff == 990000) {
      threshold = e.min_count;
      break;
    }
  }
  std::multimap<uint64_t, std::pair<const FunctionSamples*, uint64_t>, std::greater<>> hot;
  uint64_t total = 0, hot_total = 0, hot_count = 0;
  for (const auto& [key, f] : profile.functions) {
    total += f.total;
    const uint64_t max = f.max_body_samples();
    if (max >= threshold) {
      hot.emplace(f.total, std::make_pair(&f, max));
      hot_total += f.total;
      ++hot_count;
    }
  }
  const uint64_t functions = profile.functions.size();
  append_decimal(out, hot_count);
  out += " out of ";
  append_decimal(out, functions);
  append_printf(out, " functions with profile (%.2f%%) are considered hot functions",
                static_cast<double>(hot_count) / static_cast<double>(functions) * 100);
  out += " (max sample >= ";
  append_decimal(out, threshold);
  out += ").\n";
  append_decimal(out, hot_total);
  out += " out of ";
  append_decimal(out, total);
  append_printf(out, " profile counts (%.2f%%) are from hot functions.\n",
                total > 0 ? static_cast<double>(hot_total) / static_cast<double>(total) * 100 : 0.0);
  size_t line = out.size();
  const size_t columns[] = {0, 24, 42, 58};
  const char* titles[] = {"Total sample (%)", "Max sample", "Entry sample", "Function name"};
  for (int i = 0; i < 4; ++i) {
    pad_to_column(out, line, columns[i]);
    out += titles[i];
  }
  out.push_back('\n');
  uint32_t shown = 0;
  for (const auto& [samples, entry] : hot) {
    if (topn != 0 && shown++ == topn) break;
    const FunctionSamples& f = *entry.first;
    line = out.size();
    pad_to_column(out, line, columns[0]);
    append_decimal(out, f.total);
    append_printf(out, " (%.2f%%)",
                  total > 0 ? static_cast<double>(f.total) * 100.0 / static_cast<double>(total) : 0.0);
    pad_to_column(out, line, columns[1]);
    append_decimal(out, entry.second);
    pad_to_column(out, line, columns[2]);
    append_decimal(out, f.head_estimate(profile.is_cs));
    pad_to_column(out, line, columns[3]);
    out += f.context_string();
    out.push_back('\n');
  }
}

}  // namespace

std::string show_sample(const Profile& profile, const SampleShowOptions& options,
                        std::string* error) {
  std::string out;
  if (options.all_functions || options.function.empty()) {
    if (options.json) {
      Json j(out);
      j.begin_array();
      for (const FunctionSamples* f : sampleprof::sorted_functions(profile)) json_function(j, *f, true);
      j.end_array();
      out.push_back('\n');
    } else {
      for (const FunctionSamples* f : sampleprof::sorted_functions(profile)) print_function(out, *f);
    }
  } else {
    if (options.json) {
      *error = "the JSON format is supported only when all functions are to be printed";
      return {};
    }
    const uint64_t key = sampleprof::FunctionId(options.function).hash();
    auto it = profile.functions.find(key);
    if (it != profile.functions.end()) {
      print_function(out, it->second);
    } else {
      print_function(out, FunctionSamples());
    }
  }
  if (options.show_prof_sym_list) {
    std::vector<std::string_view> list = profile.symbol_list;
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    out += "======== Dump profile symbol list ========\n";
    for (std::string_view s : list) {
      out += s;
      out.push_back('\n');
    }
  }
  if (options.detailed_summary) print_summary(out, profile.summary);
  if (options.hot_func_list || options.topn != 0) hot_function_list(out, profile, options.topn);
  return out;
}

std::string show_sample_sections(const std::vector<sampleprof::SectionHeader>& sections) {
  using namespace sampleprof;
  std::string out;
  uint64_t total = 0, file_size = 0;
  for (const SectionHeader& s : sections) {
    out += section_name(s.type);
    out += " - Offset: ";
    append_decimal(out, s.offset);
    out += ", Size: ";
    append_decimal(out, s.size);
    out += ", Flags: ";
    std::string flags = (s.flags & kFlagCompressed) ? "{compressed," : "{";
    if (s.flags & kFlagFlat) flags += "flat,";
    switch (static_cast<SectionType>(s.type)) {
      case SectionType::name_table:
        if (s.flags & kNameTableFixedLengthMd5) flags += "fixlenmd5,";
        else if (s.flags & kNameTableMd5) flags += "md5,";
        if (s.flags & kNameTableUniq) flags += "uniq,";
        break;
      case SectionType::summary:
        if (s.flags & kSummaryPartial) flags += "partial,";
        if (s.flags & kSummaryContext) flags += "context,";
        if (s.flags & kSummaryPreInlined) flags += "preInlined,";
        if (s.flags & kSummaryFsDiscriminator) flags += "fs-discriminator,";
        break;
      case SectionType::func_offset_table:
        if (s.flags & kOffsetTableOrdered) flags += "ordered,";
        break;
      case SectionType::func_metadata:
        if (s.flags & kMetadataProbe) flags += "probe,";
        if (s.flags & kMetadataAttributes) flags += "attr,";
        break;
      default:
        break;
    }
    if (flags.back() == ',') flags.back() = '}';
    else flags += "}";
    out += flags;
    out.push_back('\n');
    total += s.size;
    file_size = std::max(file_size, s.offset + s.size);
  }
  out += "Header Size: ";
  append_decimal(out, sections.empty() ? 0 : sections.front().offset);
  out += "\nTotal Sections Size: ";
  append_decimal(out, total);
  out += "\nFile Size: ";
  append_decimal(out, file_size);
  out.push_back('\n');
  return out;
}

}  // namespace profkit::report
