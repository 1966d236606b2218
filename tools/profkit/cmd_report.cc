// `profkit report PROFILE...`: what a heap profile (or several, merged) says, for people
// (terminal) and tools (--json). Options are parsed into ReportCommand; the views live in
// report/.
// Output options other than the terminal/JSON ones (HTML, pprof, DHAT) are added to
// ReportCommand and handled in run_report after the profile is loaded.
#include <memory>
#include <string>
#include <vector>

#include "io/output_file.h"
#include "io/same_file.h"
#include "report/dhat_export.h"
#include "report/heap_profile.h"
#include "report/heap_view.h"
#include "report/html_report.h"
#include "report/pprof_export.h"
#include "tools/profkit/command.h"
#include "tools/profkit/heap_cli.h"

namespace profkit::cli {
namespace {

struct ReportCommand {
  std::vector<std::string> inputs;  // several: merged into one (the processes of one run)
  HeapCliOptions heap;
  std::string sort = "bytes";
  std::string view = "contexts";
  size_t top = 10;
  bool json = false;
  std::string output;  // -o: the terminal/JSON text goes here instead of stdout
  std::string html, pprof, dhat;  // exports (docs/report-exports.md); empty: not written
};

int run_report(ReportCommand& cmd) {
  report::ViewOptions view;
  if (!report::parse_sort_key(cmd.sort, view.sort)) {
    report_error("report: --sort must be bytes, count, accesses, density, lifetime, live or peak");
    return 1;
  }
  if (!report::parse_view_kind(cmd.view, view.view)) {
    report_error("report: --view must be contexts, leaks or peak");
    return 1;
  }
  view.top = cmd.top;
  view.thresholds = cmd.heap.thresholds;
  const bool to_stdout = is_stdout_path(cmd.output);
  if (!resolve_color(cmd.heap, view.color)) return 1;
  if (!resolve_frame_filter(cmd.heap, view.frames)) return 1;
  if (!to_stdout && cmd.heap.color != "always") view.color = false;
  view.width = output_width(cmd.heap.width);

  std::vector<std::string> outputs;
  for (const std::string* o : {&cmd.output, &cmd.html, &cmd.pprof, &cmd.dhat})
    if (!o->empty() && !(o == &cmd.output && is_stdout_path(*o))) outputs.push_back(*o);
  std::vector<std::string> inputs = cmd.heap.profiled_binaries;
  inputs.insert(inputs.end(), cmd.inputs.begin(), cmd.inputs.end());
  if (!outputs_are_safe(outputs, inputs)) return 1;
  report::HeapProfile profile;
  if (!load_heaps(cmd.inputs, cmd.heap, profile)) return 1;
  // The binaries symbolization read (found beside the profile, under a directory) too.
  if (!outputs_are_safe(outputs, profile.binaries)) return 1;
  if (const std::string missing = report::live_peak_missing(profile, view); !missing.empty()) {
    report_error("report: " + missing);
    return 1;
  }
  int status = 0;
  // An export sent to standard output ("-", or a path to the file fd 1 is open on, as
  // /dev/stdout) replaces the text there.
  bool export_on_stdout = false;
  for (const std::string* e : {&cmd.html, &cmd.pprof, &cmd.dhat})
    if (!e->empty() && names_standard_output(*e)) export_on_stdout = true;
  if (!(to_stdout && export_on_stdout)) {
    if (cmd.json)
      status |= write_output_streamed(cmd.output, [&](const auto& emit) {
        report::render_report_json(profile, view, emit);
      });
    else
      status |= write_output(cmd.output, report::render_report_text(profile, view));
  }
  if (!cmd.html.empty()) status |= write_output(cmd.html, report::html_report(profile, view.frames));
  if (!cmd.pprof.empty()) status |= write_output(cmd.pprof, report::pprof_profile_gz(profile));
  if (!cmd.dhat.empty()) status |= write_output(cmd.dhat, report::dhat_json(profile));
  return status;
}

void add_report_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<ReportCommand>();
  CLI::App* sub = app.add_subcommand(
      "report", "Heap report of a memprof profile (raw, YAML or indexed): summary, top "
                "allocation contexts, LLVM 22's cold/hot verdicts");
  sub->add_option("PROFILE", cmd->inputs,
                  "Raw (.memprofraw), YAML or indexed memprof profile; several (the processes of "
                  "one `profkit run`, runs of one program) are merged into one report")
      ->required();
  add_heap_options(sub, cmd->heap);
  sub->add_option("--sort", cmd->sort,
                  "Rank by bytes, count, accesses, density, lifetime, live (bytes live at exit) "
                  "or peak (bytes at the heap's peak); live and peak need profkit's runtime")
      ->check(CLI::IsMember({"bytes", "count", "accesses", "density", "lifetime", "live", "peak"}));
  sub->add_option("--view", cmd->view,
                  "contexts (default), leaks (bytes live at exit per context) or peak (the "
                  "contexts that make up the heap's peak); leaks and peak need profkit's runtime")
      ->check(CLI::IsMember({"contexts", "leaks", "peak"}));
  sub->add_option("--top", cmd->top, "Contexts shown (0: all; default 10)")
      ->check(CLI::Range(0, 1000000000));
  sub->add_flag("--json", cmd->json, "The same data as JSON");
  sub->add_option("-o,--output", cmd->output, "Write the report here (default: standard output)");
  sub->add_option("--html", cmd->html, "Also write a self-contained HTML report (table, icicle)");
  sub->add_option("--pprof", cmd->pprof, "Also write pprof's profile.proto, gzipped (.pb.gz)");
  sub->add_option("--dhat", cmd->dhat, "Also write DHAT's JSON, for valgrind's dh_view.html");
  sub->callback([cmd, &exit_status] { exit_status = run_report(*cmd); });
}

CommandRegistration reg(40, &add_report_command);

}  // namespace
}  // namespace profkit::cli
