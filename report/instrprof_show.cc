// `show` for IR-PGO profiles. The output is built in one string with to_chars so that
// `show --all-functions --counts` on a large profile costs little more than reading it;
// printf-style formatting is used only where LLVM's exact float rendering matters.
#include "report/instrprof_show.h"

#include "format/bytes/number_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "format/instrprof/name_resolver.h"
#include "format/instrprof/summary.h"
#include "format/instrprof/text_writer.h"

namespace profkit::report {

namespace {

using instrprof::Profile;
using instrprof::Record;
using instrprof::ValueKind;

// printf("0x%016" PRIx64, v).
void append_hash(std::string& out, uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[18] = {'0', 'x'};
  for (int i = 0; i < 16; ++i) buf[2 + i] = kHex[(v >> (60 - 4 * i)) & 0xF];
  out.append(buf, sizeof buf);
}

// Direct writers for the per-record text, the bulk of `show --all-functions --counts`: the
// caller resizes `out` to an upper bound once, writes with these, and trims (a third of the
// instructions of appending piece by piece).
char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
char* put_u64(char* p, uint64_t v) { return std::to_chars(p, p + 20, v).ptr; }
char* put_hash(char* p, uint64_t v) {  // printf("0x%016" PRIx64, v)
  static constexpr char kHex[] = "0123456789abcdef";
  *p++ = '0';
  *p++ = 'x';
  for (int i = 0; i < 16; ++i) *p++ = kHex[(v >> (60 - 4 * i)) & 0xF];
  return p;
}
// Runs `write(char*) -> char*` that writes at most `bound` bytes at the end of `out`.
template <class Write>
void append_direct(std::string& out, size_t bound, Write write) {
  const size_t at = out.size();
  out.resize(at + bound);
  char* const begin = out.data() + at;
  char* const end = write(begin);
  out.resize(at + static_cast<size_t>(end - begin));
}

// printf("%.2f", v). to_chars and glibc's printf both print the exact binary value
// rounded to nearest, so they agree digit for digit.
void append_fixed2(std::string& out, double v) {
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
  out.append(buf, res.ptr);
}

// NameRef -> name, as LLVM's reader symbol table resolves it for `show`: the record
// names, the extra names the file defines and vtable names; "" when unknown.
class NameTable {
 public:
  explicit NameTable(const Profile& profile)
      : resolver_(instrprof::NameResolver::for_reader(profile)) {}
  std::string_view find(uint64_t ref) const {
    const std::string* name = resolver_.find(ref);
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }
  const instrprof::NameResolver& resolver() const { return resolver_; }

 private:
  instrprof::NameResolver resolver_;
};

// Per value kind, accumulated over the shown functions (LLVM's ValueSitesStats).
struct ValueSiteStats {
  uint64_t total_sites = 0;
  uint64_t sites_with_values = 0;
  uint64_t total_values = 0;
  std::vector<uint64_t> histogram;  // [k-1] = number of sites with exactly k values
};

// The value lines of one kind for one function, and their statistics.
void append_value_sites(std::string& out, const Record& record, ValueKind kind,
                        ValueSiteStats& stats, const NameTable* names) {
  const auto& sites = record.value_sites[static_cast<size_t>(kind)];
  stats.total_sites += sites.size();
  for (size_t i = 0; i < sites.size(); ++i) {
    const instrprof::ValueSite& site = sites[i];
    if (site.empty()) continue;
    stats.total_values += site.size();
    ++stats.sites_with_values;
    if (site.size() > stats.histogram.size()) stats.histogram.resize(site.size(), 0);
    ++stats.histogram[site.size() - 1];
    uint64_t site_sum = 0;  // wraps like LLVM's
    for (const auto& v : site) site_sum += v.count;
    if (site_sum == 0) site_sum = 1;
    for (const auto& v : site) {
      out += "\t[ ";
      append_decimal(out, static_cast<uint32_t>(i), 2);  // %2u
      out += ", ";
      if (names != nullptr)
        out += names->find(v.value);
      else
        append_decimal(out, v.value, 4);  // %4 PRIu64
      out += ", ";
      append_decimal(out, static_cast<int64_t>(v.count), 10);  // %10 PRId64
      out += " ] (";
      append_fixed2(out, static_cast<double>(v.count) * 100.0 / static_cast<double>(site_sum));
      out += "%)\n";
    }
  }
}

void append_value_stats(std::string& out, const ValueSiteStats& stats) {
  out += "  Total number of sites: ";
  // LLVM keeps the site total in 32 bits when printing.
  append_decimal(out, static_cast<uint32_t>(stats.total_sites));
  out += "\n  Total number of sites with values: ";
  append_decimal(out, stats.sites_with_values);
  out += "\n  Total number of profiled values: ";
  append_decimal(out, stats.total_values);
  out += "\n  Value sites histogram:\n\tNumTargets, SiteCount\n";
  for (size_t k = 0; k < stats.histogram.size(); ++k) {
    if (stats.histogram[k] == 0) continue;
    out += '\t';
    append_decimal(out, k + 1);
    out += ", ";
    append_decimal(out, stats.histogram[k]);
    out += '\n';
  }
}

// Hands the output to a sink in pieces of about kChunkBytes, reusing one buffer, so a
// large profile's text never has to exist whole (saves the page faults of a second copy
// of it). Without a sink the buffer just grows.
class Chunker {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  Chunker(std::string& out, const ShowSink* sink) : out_(out), sink_(sink) {}
  // The most the buffer holds at once (plus one record).
  size_t max_piece_bytes() const { return sink_ == nullptr ? SIZE_MAX : kChunkBytes + 65536; }
  // Call between records. False once the sink has refused a piece.
  bool after_record() { return sink_ == nullptr || out_.size() < kChunkBytes || flush(); }
  bool flush() {
    if (sink_ == nullptr) return true;
    if (ok_ && !out_.empty()) ok_ = (*sink_)(out_);
    out_.clear();
    return ok_;
  }

 private:
  std::string& out_;
  const ShowSink* sink_;
  bool ok_ = true;
};

bool append_text_records(std::string& out, const Profile& profile, const ShowOptions& options,
                         Chunker& chunker) {
  // Only IR profiles get a marker; `show --text` writes no comment line and no other flag.
  if (profile.is_ir()) out += ":ir\n";
  if (!options.all_functions && options.function.empty()) return true;
  NameTable names(profile);
  // LLVM 22's text reader reuses one record while iterating and only assigns the bitmap
  // when a record has one, so in `show` a record without a bitmap prints the bitmap of the
  // last earlier record (shown or not) that had one. Reproduced for text inputs only; the
  // raw and indexed readers reset it.
  const std::vector<uint8_t>* stale_bitmap = nullptr;
  const bool text_input = profile.format == instrprof::ProfileFormat::text;
  Record with_stale_bitmap;
  for (const Record& r : profile.records) {
    const std::vector<uint8_t>* bitmap_before = stale_bitmap;
    if (text_input && !r.bitmap.empty()) stale_bitmap = &r.bitmap;
    if (profile.is_ir() && r.is_context_sensitive() != options.showcs) continue;
    if (!options.all_functions && r.name.find(options.function) == std::string::npos) continue;
    if (text_input && r.bitmap.empty() && bitmap_before != nullptr) {
      with_stale_bitmap = r;
      with_stale_bitmap.bitmap = *bitmap_before;
      instrprof::append_text_record(out, with_stale_bitmap, names.resolver());
    } else {
      instrprof::append_text_record(out, r, names.resolver());
    }
    if (!chunker.after_record()) return false;
  }
  return true;
}

void append_detailed_summary(std::string& out, const instrprof::Summary& summary) {
  for (const auto& e : summary.detailed)
    append_detailed_summary_line(out, e.num_counts, summary.total_num_blocks, e.min_count,
                                 e.cutoff);
}

void append_binary_ids(std::string& out, const Profile& profile) {
  // LLVM 22: indexed readers print the heading even with no ids, raw readers only when
  // there are some, the text reader never.
  if (profile.format == instrprof::ProfileFormat::text) return;
  if (profile.format == instrprof::ProfileFormat::raw && profile.binary_ids.empty()) return;
  out += "Binary IDs: \n";
  for (const auto& id : profile.binary_ids) {
    append_hex_bytes(out, id);
    out += '\n';
  }
}

uint64_t shown_profile_version(const Profile& profile) {
  switch (profile.format) {
    case instrprof::ProfileFormat::raw:
      return profile.version_word;  // LLVM prints the whole word, flags included
    case instrprof::ProfileFormat::indexed:
      return profile.version;
    case instrprof::ProfileFormat::text:
      return 0;
  }
  return 0;
}

void append_temporal_traces(std::string& out, const Profile& profile) {
  out += "Temporal Profile Traces (samples=";
  append_decimal(out, profile.traces.size());
  out += " seen=";
  append_decimal(out, profile.trace_stream_size);
  out += "):\n";
  if (profile.traces.empty()) return;
  NameTable names(profile);
  for (size_t i = 0; i < profile.traces.size(); ++i) {
    const auto& trace = profile.traces[i];
    out += "  Temporal Profile Trace ";
    append_decimal(out, static_cast<uint32_t>(i));
    out += " (weight=";
    append_decimal(out, trace.weight);
    out += " count=";
    append_decimal(out, trace.function_refs.size());
    out += "):\n";
    for (uint64_t ref : trace.function_refs) {
      out += "    ";
      out += names.find(ref);
      out += '\n';
    }
  }
}

size_t estimate_size(const Profile& profile, const ShowOptions& options) {
  if (!options.all_functions) return 4096;
  size_t n = 1024;
  for (const Record& r : profile.records) {
    n += r.name.size() + 64;
    if (options.counts) n += r.counts.size() * 4;
  }
  return n;
}

// Renders into `out`; false if the chunker's sink refused a piece (output incomplete).
bool render(std::string& out, const Profile& profile, const ShowOptions& options,
            Chunker& chunker) {
  if (options.text) return append_text_records(out, profile, options, chunker);
  out.reserve(out.size() + std::min(estimate_size(profile, options), chunker.max_piece_bytes()));

  const bool is_ir = profile.is_ir();
  const bool want_names = options.ic_targets || options.show_vtables;
  std::optional<NameTable> names;
  if (want_names && (options.all_functions || !options.function.empty())) names.emplace(profile);

  // The per-count histogram is only needed for the detailed summary (and the hot threshold).
  const bool detailed = options.detailed_summary || options.hot_func_list ||
                        !options.detailed_summary_cutoffs.empty();
  instrprof::SummaryBuilder builder(/*skip_pseudo_counts=*/true, !detailed);
  size_t shown = 0;
  uint64_t below_cutoff = 0;
  std::vector<std::pair<std::string_view, uint64_t>> hottest;  // (name, max counter)
  std::array<ValueSiteStats, instrprof::kNumValueKinds> stats;

  if (options.list_below_cutoff) {
    out += "The list of functions with the maximum counter less than ";
    append_decimal(out, options.value_cutoff);
    out += ":\n";
  }

  for (const Record& r : profile.records) {
    if (!chunker.after_record()) return false;
    if (is_ir && r.is_context_sensitive() != options.showcs) continue;
    const bool show = options.all_functions ||
                      (!options.function.empty() &&
                       r.name.find(options.function) != std::string::npos);
    builder.add_record(r);
    if (options.covered) {
      if (std::any_of(r.counts.begin(), r.counts.end(), [](uint64_t c) { return c != 0; })) {
        out += r.name;
        out += '\n';
      }
      continue;
    }

    const uint64_t first = r.counts.empty() ? 0 : r.counts[0];
    if (!r.counts.empty() && (first == instrprof::kPseudoHot || first == instrprof::kPseudoWarm)) {
      if (show) {
        if (shown == 0) out += "Counters:\n";
        ++shown;
        out += "  ";
        out += r.name;
        out += ":\n    Hash: ";
        append_hash(out, r.hash);
        out += "\n    Counters: ";
        append_decimal(out, r.counts.size());
        out += first == instrprof::kPseudoHot ? "    <PseudoHot>\n" : "    <PseudoWarm>\n";
      }
      continue;
    }

    uint64_t max = 0;
    uint64_t sum = 0;
    for (uint64_t c : r.counts) {
      max = std::max(max, c);
      sum += c;
    }
    if (max < options.value_cutoff) {
      ++below_cutoff;
      if (options.list_below_cutoff) {
        out += "  ";
        out += r.name;
        out += ": (Max = ";
        append_decimal(out, max);
        out += " Sum = ";
        append_decimal(out, sum);
        out += ")\n";
      }
      continue;
    }
    if (options.list_below_cutoff) continue;
    if (options.topn != 0 || options.hot_func_list) hottest.emplace_back(r.name, max);
    if (!show) continue;

    if (shown == 0) out += "Counters:\n";
    ++shown;
    append_direct(out, r.name.size() + 128, [&](char* p) {
      p = put(p, "  ");
      p = put(p, r.name);
      p = put(p, ":\n    Hash: ");
      p = put_hash(p, r.hash);
      p = put(p, "\n    Counters: ");
      p = put_u64(p, r.counts.size());
      *p++ = '\n';
      if (!is_ir) {
        p = put(p, "    Function count: ");
        p = put_u64(p, first);
        *p++ = '\n';
      }
      return p;
    });
    const auto& vs = r.value_sites;
    const size_t num_ic = vs[static_cast<size_t>(ValueKind::indirect_call_target)].size();
    const size_t num_vt = vs[static_cast<size_t>(ValueKind::vtable_target)].size();
    const size_t num_memop = vs[static_cast<size_t>(ValueKind::mem_op_size)].size();
    if (options.ic_targets) {
      out += "    Indirect Call Site Count: ";
      append_decimal(out, static_cast<uint32_t>(num_ic));
      out += '\n';
    }
    if (options.show_vtables) {
      out += "    Number of instrumented vtables: ";
      append_decimal(out, static_cast<uint32_t>(num_vt));
      out += '\n';
    }
    const bool show_memop = options.memop_sizes && static_cast<uint32_t>(num_memop) > 0;
    if (show_memop) {
      out += "    Number of Memory Intrinsics Calls: ";
      append_decimal(out, static_cast<uint32_t>(num_memop));
      out += '\n';
    }
    if (options.counts) {
      // Front-end profiles keep the function count apart from the block counts.
      const size_t start = is_ir ? 0 : 1;
      append_direct(out, 32 + 22 * r.counts.size(), [&](char* p) {
        p = put(p, "    Block counts: [");
        for (size_t i = start; i < r.counts.size(); ++i) {
          if (i != start) p = put(p, ", ");
          p = put_u64(p, r.counts[i]);
        }
        return put(p, "]\n");
      });
    }
    if (options.ic_targets) {
      out += "    Indirect Target Results:\n";
      append_value_sites(out, r, ValueKind::indirect_call_target,
                         stats[static_cast<size_t>(ValueKind::indirect_call_target)], &*names);
    }
    if (options.show_vtables) {
      out += "    VTable Results:\n";
      append_value_sites(out, r, ValueKind::vtable_target,
                         stats[static_cast<size_t>(ValueKind::vtable_target)], &*names);
    }
    if (show_memop) {
      out += "    Memory Intrinsic Size Results:\n";
      append_value_sites(out, r, ValueKind::mem_op_size,
                         stats[static_cast<size_t>(ValueKind::mem_op_size)], nullptr);
    }
  }
  if (options.covered) return true;

  // As LLVM: the given cutoffs, or the default ones when a detailed summary or the hot
  // list needs them.
  std::vector<uint32_t> cutoffs = options.detailed_summary_cutoffs;
  std::sort(cutoffs.begin(), cutoffs.end());
  if (cutoffs.empty() && (options.detailed_summary || options.hot_func_list))
    cutoffs.assign(instrprof::kDefaultCutoffs.begin(), instrprof::kDefaultCutoffs.end());
  const instrprof::Summary summary = builder.finish(cutoffs);

  out += "Instrumentation level: ";
  if (is_ir) {
    out += "IR  entry_first = ";
    out += (profile.flags & instrprof::kFlagEntryFirst) != 0 ? '1' : '0';
    out += "  instrument_loop_entries = ";
    out += (profile.flags & instrprof::kFlagInstrLoopEntries) != 0 ? '1' : '0';
    out += '\n';
  } else {
    out += "Front-end\n";
  }
  if (options.all_functions || !options.function.empty()) {
    out += "Functions shown: ";
    append_decimal(out, shown);
    out += '\n';
  }
  out += "Total functions: ";
  append_decimal(out, summary.total_num_functions);
  out += "\nMaximum function count: ";
  append_decimal(out, summary.max_function_count);
  out += "\nMaximum internal block count: ";
  append_decimal(out, summary.max_internal_block_count);
  out += "\nTotal number of blocks: ";
  append_decimal(out, summary.total_num_blocks);
  out += "\nTotal count: ";
  append_decimal(out, summary.total_block_count);
  out += '\n';
  if (options.value_cutoff > 0) {
    out += "Number of functions with maximum count (< ";
    append_decimal(out, options.value_cutoff);
    out += "): ";
    append_decimal(out, below_cutoff);
    out += "\nNumber of functions with maximum count (>= ";
    append_decimal(out, options.value_cutoff);
    out += "): ";
    append_decimal(out, summary.total_num_functions - below_cutoff);
    out += '\n';
  }
  // LLVM 22: stable sort by descending max, so ties keep iteration order.
  std::stable_sort(hottest.begin(), hottest.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (options.topn != 0) {
    out += "Top ";
    append_decimal(out, options.topn);
    out += " functions with the largest internal block counts: \n";
    const size_t n = std::min<size_t>(options.topn, hottest.size());
    for (size_t i = 0; i < n; ++i) {
      out += "  ";
      out += hottest[i].first;
      out += ", max count = ";
      append_decimal(out, hottest[i].second);
      out += '\n';
    }
  }
  if (options.hot_func_list) {
    // The hot threshold: the count of the first cutoff at or above 99% (LLVM's
    // -profile-summary-cutoff-hot); the functions whose largest counter reaches it.
    uint64_t threshold = 0;
    for (const auto& e : summary.detailed) {
      if (e.cutoff >= 990000) {
        threshold = e.min_count;
        break;
      }
    }
    out += "# Hot count threshold: ";
    append_decimal(out, threshold);
    out += '\n';
    for (const auto& [name, max] : hottest) {
      if (max < threshold) break;
      out += name;
      out += '\n';
    }
  }
  if (shown != 0 && options.ic_targets) {
    out += "Statistics for indirect call sites profile:\n";
    append_value_stats(out, stats[static_cast<size_t>(ValueKind::indirect_call_target)]);
  }
  if (shown != 0 && options.show_vtables) {
    out += "Statistics for vtable profile:\n";
    append_value_stats(out, stats[static_cast<size_t>(ValueKind::vtable_target)]);
  }
  if (shown != 0 && options.memop_sizes) {
    out += "Statistics for memory intrinsic calls sizes profile:\n";
    append_value_stats(out, stats[static_cast<size_t>(ValueKind::mem_op_size)]);
  }
  if (options.detailed_summary) {
    out += "Detailed summary:\n";
    append_detailed_summary(out, summary);
  }
  if (options.binary_ids) append_binary_ids(out, profile);
  if (options.profile_version) {
    out += "Profile version: ";
    append_decimal(out, shown_profile_version(profile));
    out += '\n';
  }
  if (options.temporal_profile_traces) append_temporal_traces(out, profile);
  return true;
}

}  // namespace

void append_show_instrprof(std::string& out, const Profile& profile,
                           const ShowOptions& options) {
  Chunker unbounded(out, nullptr);
  render(out, profile, options, unbounded);
}

std::string show_instrprof(const Profile& profile, const ShowOptions& options) {
  std::string out;
  append_show_instrprof(out, profile, options);
  return out;
}

bool write_show_instrprof(const Profile& profile, const ShowOptions& options,
                          const ShowSink& sink) {
  std::string buf;
  Chunker chunker(buf, &sink);
  return render(buf, profile, options, chunker) && chunker.flush();
}

}  // namespace profkit::report
