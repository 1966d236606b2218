// `profkit probes BINARY`: the pseudo probes of a CSSPGO binary (report/probes_view.h).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "io/output_file.h"
#include "report/probes_view.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

int run_probes(const report::ProbesOptions& options, const std::string& output) {
  if (!outputs_are_safe({output}, {options.binary})) return 1;
  const auto warn = [&](std::string_view message) { report_warning(options.binary, message); };
  if (is_stdout_path(output)) {
    const auto sink = [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
    if (auto shown = report::show_probes(options, sink, warn); !shown) {
      std::fflush(stdout);
      report_error(options.binary, shown.error());
      return 1;
    }
    return 0;
  }
  // A file appears whole or not at all (written to a temporary file, then renamed).
  auto out = OutputFile::create(output);
  if (!out) {
    report_error(output, out.error());
    return 1;
  }
  std::optional<Error> write_error;
  const auto sink = [&](std::string_view text) {
    if (write_error) return;
    if (auto w = out->write(text); !w) write_error = w.error();
  };
  if (auto shown = report::show_probes(options, sink, warn); !shown) {
    report_error(options.binary, shown.error());
    return 1;
  }
  if (write_error) {
    report_error(output, *write_error);
    return 1;
  }
  if (auto c = out->commit(); !c) {
    report_error(output, c.error());
    return 1;
  }
  return 0;
}

void add_probes_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<report::ProbesOptions>();
  auto output = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "probes", "Show the pseudo probes (CSSPGO) of an ELF binary, optionally with disassembly");
  cmd->add_option("binary", options->binary, "ELF executable, shared library or object")
      ->required();
  cmd->add_flag("--disassemble", options->disassemble,
                "Print llvm-profgen's --show-pseudo-probe --show-disassembly-only listing");
  cmd->add_option("--functions", options->functions,
                  "Only these functions (ELF symbol names, comma-separated)")
      ->delimiter(',');
  cmd->add_flag("--canonical-names", options->canonical_names,
                "Show and match symbol names without .llvm./.part. suffixes");
  cmd->add_flag("--json", options->json, "Print descriptors and probes as JSON");
  cmd->add_flag("--source-locations", options->source_locations,
                "Show the DWARF inline frames of each address (llvm-profgen's "
                "--show-source-locations); JSON adds file, line and column");
  cmd->add_option("-j,--threads", options->threads,
                  "Threads formatting the --disassemble listing (default: one per CPU, at "
                  "most 8; the output does not depend on it)");
  cmd->add_flag("--emulate-llvm22-mixed", options->emulate_llvm22,
                "Decode binaries mixing LLVM 14 and 22 objects as llvm-profgen 22 does "
                "(misplacing probes)");
  cmd->add_option("-o,--output", *output, "Write here (default: standard output)");
  cmd->callback([options, output, &exit_status] { exit_status = run_probes(*options, *output); });
}

}  // namespace

static CommandRegistration reg(50, &add_probes_command);

}  // namespace profkit::cli
