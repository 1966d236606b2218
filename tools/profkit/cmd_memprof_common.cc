// MemProf support for `profkit merge` / `profkit show` (see memprof_cli.h). Registers no
// subcommand of its own.
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "format/memprof/indexed_writer.h"
#include "format/memprof/input.h"
#include "io/mapped_file.h"
#include "report/memprof_show.h"
#include "symbolize/memprof_pipeline.h"
#include "symbolize/memprof_symbolizer.h"
#include "tools/profkit/command.h"
#include "tools/profkit/memprof_cli.h"

namespace profkit::cli {

struct MemProfMerged {
  memprof::MemProfData data;
};

namespace {

// One line per input whose dropped contexts (every frame in an object without debug info,
// so nothing to attribute them to) hold a noticeable share of its allocations, 1% or more;
// with --verbose any share, plus the count of PCs without a DWARF subprogram. Counted in
// allocations, the unit every view shares (raw call stacks are not show's contexts).
void warn_dropped(const std::vector<symbolize::MemProfInputReport>& reports, bool verbose) {
  for (const auto& r : reports) {
    const double share =
        r.alloc_count != 0 ? static_cast<double>(r.dropped_alloc_count) / static_cast<double>(r.alloc_count)
                           : 0.0;
    if (r.dropped_mibs > 0 && (verbose || share >= 0.01)) {
      std::set<std::string> ids;
      for (const auto& o : r.dropped_objects)
        if (!o.build_id.empty() && o.path.empty()) ids.insert(o.build_id);
      const auto paths = symbolize::find_system_objects(ids);  // names, for this line only
      std::string objects;
      size_t shown = 0;
      for (const auto& o : r.dropped_objects) {
        if (shown++ == 3) {
          objects += ", ...";
          break;
        }
        if (!objects.empty()) objects += ", ";
        if (!o.path.empty())
          objects += o.path;
        else if (o.build_id.empty())
          objects += "outside every mapped object";
        else if (auto it = paths.find(o.build_id); it != paths.end())
          objects += it->second;
        else
          objects += "build id " + o.build_id;
      }
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", share * 100);
      report_warning(r.path, std::string(pct) + " of the allocations (" +
                                 std::to_string(r.dropped_alloc_count) + " of " +
                                 std::to_string(r.alloc_count) +
                                 ") are left out: every frame of their call stacks lies in objects "
                                 "without debug info (" + objects +
                                 "); install their debug symbols (Debian: the -dbgsym "
                                 "packages) or pass binaries with them to --profiled-binary");
    }
    const auto& s = r.symbolizer;
    if (verbose && s.no_debug_info > 0)
      report_warning(r.path, std::to_string(s.no_debug_info) +
                                 " PCs inside the profiled binaries have no DWARF subprogram");
  }
}

}  // namespace

bool load_memprof(const std::vector<std::string>& inputs, const MemProfCliOptions& options,
                  std::shared_ptr<MemProfMerged>& out, const std::vector<std::string>& outputs) {
  if (options.memprof_version < 2 || options.memprof_version > 4) {
    report_error("merge: --memprof-version must be 2, 3 or 4");
    return false;
  }
  std::vector<std::optional<MappedFile>> files;
  std::vector<symbolize::MemProfInput> in;
  for (const auto& p : inputs) {
    auto f = MappedFile::open(p);
    if (!f) {
      report_error(p, f.error());
      return false;
    }
    files.emplace_back(std::move(*f));
  }
  // A raw input's pages are dropped as it is parsed, and it is unmapped once parsed (its
  // pages would count in peak RSS).
  for (size_t i = 0; i < files.size(); ++i)
    in.push_back({inputs[i], files[i]->bytes(), [&files, i] { files[i].reset(); },
                  [&files, i](uint64_t offset, uint64_t size) {
                    files[i]->drop_pages(offset, size);
                  }});
  symbolize::MemProfLoadOptions load;
  load.binaries = options.profiled_binaries;
  std::vector<symbolize::MemProfInputReport> reports;
  std::string failed;
  auto data = symbolize::load_memprof_inputs(in, load, &reports, &failed);
  if (!data) {
    report_error(failed, data.error());
    return false;
  }
  std::vector<std::string> binaries;
  for (const auto& r : reports) binaries.insert(binaries.end(), r.binaries.begin(), r.binaries.end());
  if (!outputs_are_safe(outputs, binaries)) return false;
  warn_dropped(reports, options.verbose);
  out = std::make_shared<MemProfMerged>();
  out->data = std::move(*data);
  return true;
}

std::shared_ptr<MemProfMerged> empty_memprof() { return std::make_shared<MemProfMerged>(); }

std::string memprof_section_at(const MemProfMerged& merged, const MemProfCliOptions& options,
                               uint64_t offset) {
  memprof::IndexedWriteOptions o;
  o.version = static_cast<uint64_t>(options.memprof_version);
  o.full_schema = options.full_schema;
  o.section_offset = offset;
  return memprof::write_memprof_section(merged.data, o);
}

std::string memprof_only_profile(const MemProfMerged& merged, const MemProfCliOptions& options) {
  memprof::IndexedWriteOptions o;
  o.version = static_cast<uint64_t>(options.memprof_version);
  o.full_schema = options.full_schema;
  return memprof::write_memprof_only_profile(merged.data, o);
}

namespace {
int emit(const std::string& text, const std::string& output) { return write_output(output, text); }
}  // namespace

int show_memprof(const std::string& input, const MemProfCliOptions& options,
                 const std::string& output) {
  auto file = MappedFile::open(input);
  if (!file) {
    report_error(input, file.error());
    return 1;
  }
  auto read = memprof::read_memprof_file(file->bytes());
  if (!read) {
    report_error(input, read.error());
    return 1;
  }
  memprof::MemProfFile& in = *read;
  switch (in.kind) {
    case memprof::InputKind::indexed:
      return emit(report::show_memprof_indexed(in.indexed), output);
    case memprof::InputKind::raw: {
      symbolize::MemProfLoadOptions load;
      load.binaries = options.profiled_binaries;
      symbolize::MemProfInputReport report;
      report.path = input;
      std::string failed = input;
      auto data = symbolize::load_memprof_records(std::move(in), load, report, &failed);
      if (!data) {
        report_error(failed, data.error());
        return 1;
      }
      if (!outputs_are_safe({output}, report.binaries)) return 1;
      warn_dropped({report}, options.verbose);
      return emit(report::show_memprof_raw(report.raw_version, report.segments, *data,
                                           report.stacks_kept),
                  output);
    }
    case memprof::InputKind::yaml: {
      // As `llvm-profdata merge YAML -o P; llvm-profdata show --memory P` would print.
      memprof::IndexedWriteOptions o;
      o.version = static_cast<uint64_t>(options.memprof_version);
      const std::string file_bytes = memprof::write_memprof_only_profile(in.yaml.data, o);
      auto idx = memprof::read_indexed_memprof(as_bytes(file_bytes));
      if (!idx) {
        report_error(input, idx.error());
        return 1;
      }
      return emit(report::show_memprof_indexed(*idx), output);
    }
    case memprof::InputKind::other:
      break;
  }
  report_error(input, memprof::unknown_input_error());
  return 1;
}

}  // namespace profkit::cli
