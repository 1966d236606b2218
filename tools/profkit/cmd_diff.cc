// `profkit diff BASE NEW`: per allocation context, what changed between two heap profiles
// (terminal or --json). The comparison and its views live in report/heap_diff.
#include <memory>
#include <string>
#include <vector>

#include "io/output_file.h"
#include "report/heap_diff.h"
#include "tools/profkit/command.h"
#include "tools/profkit/heap_cli.h"

namespace profkit::cli {
namespace {

struct DiffCommand {
  std::string base, now;
  HeapCliOptions heap;
  size_t top = 20;
  bool json = false;
  std::string output;
};

int run_diff(DiffCommand& cmd) {
  report::ViewOptions view;
  view.top = cmd.top;
  view.thresholds = cmd.heap.thresholds;
  if (!resolve_color(cmd.heap, view.color)) return 1;
  if (!resolve_frame_filter(cmd.heap, view.frames)) return 1;
  if (!is_stdout_path(cmd.output) && cmd.heap.color != "always") view.color = false;
  view.width = output_width(cmd.heap.width);
  std::vector<std::string> inputs = cmd.heap.profiled_binaries;
  inputs.push_back(cmd.base);
  inputs.push_back(cmd.now);
  if (!outputs_are_safe({cmd.output}, inputs)) return 1;
  report::HeapProfile base, now;
  if (!load_heap(cmd.base, cmd.heap, base) || !load_heap(cmd.now, cmd.heap, now)) return 1;
  // The binaries symbolization read (found beside the profiles, under a directory) too.
  std::vector<std::string> binaries = base.binaries;
  binaries.insert(binaries.end(), now.binaries.begin(), now.binaries.end());
  if (!outputs_are_safe({cmd.output}, binaries)) return 1;
  const report::HeapDiff diff = report::diff_heap_profiles(base, now);
  return write_output(cmd.output, cmd.json ? report::render_diff_json(base, now, diff, view)
                                           : report::render_diff_text(base, now, diff, view));
}

void add_diff_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<DiffCommand>();
  CLI::App* sub = app.add_subcommand(
      "diff", "What changed between two heap profiles, per allocation context");
  sub->add_option("BASE", cmd->base, "The earlier profile (raw, YAML or indexed)")->required();
  sub->add_option("NEW", cmd->now, "The later profile")->required();
  add_heap_options(sub, cmd->heap);
  sub->add_option("--top", cmd->top, "Changes shown (0: all; default 20)")
      ->check(CLI::Range(0, 1000000000));
  sub->add_flag("--json", cmd->json, "The same data as JSON");
  sub->add_option("-o,--output", cmd->output, "Write here (default: standard output)");
  sub->callback([cmd, &exit_status] { exit_status = run_diff(*cmd); });
}

CommandRegistration reg(45, &add_diff_command);

}  // namespace
}  // namespace profkit::cli
