// profkit-branch-trace: sample a program's taken branches as LBR hardware would, for
// machines without LBR, and write `perf script` text llvm-profgen reads (docs/branch-trace.md).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>

#include "tools/branch-trace/tracer.h"

int main(int argc, char** argv) {
  using namespace profkit::branch_trace;
  TraceOptions options;
  CLI::App app{
      "profkit-branch-trace: run PROGRAM one instruction at a time and write the samples a "
      "`perf record -b` (LBR-only) or `perf record -b -g` (call stack + LBR) would give, as "
      "`perf script -F ip,brstack --show-mmap-events` text"};
  app.add_option("--lbr", options.lbr_output, "write the LBR-only script here");
  app.add_option("--hybrid", options.hybrid_output, "write the call stack + LBR script here");
  app.add_option("--event", options.event, "what --period counts")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, SampleEvent>{{"instructions", SampleEvent::instructions},
                                             {"branches", SampleEvent::branches}}))
      ->default_str("instructions");
  app.add_option("--period", options.period, "one sample every PERIOD events")
      ->default_val(options.period)
      ->check(CLI::PositiveNumber);
  app.add_option("--depth", options.depth, "branches per sample (LBR entries)")
      ->default_val(options.depth)
      ->check(CLI::PositiveNumber);
  app.add_option("--stack", options.stack, "call stacks of --hybrid samples")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, StackSource>{{"shadow", StackSource::shadow},
                                             {"fp", StackSource::frame_pointer}}))
      ->default_str("shadow");
  app.add_option("--max-stack", options.max_stack, "frames per call stack, the IP included")
      ->default_val(options.max_stack)
      ->check(CLI::PositiveNumber);
  app.add_option("--flags", options.flags, "how branch flags are printed")
      ->transform(CLI::CheckedTransformer(std::map<std::string, FlagStyle>{
          {"classic", FlagStyle::classic}, {"spec", FlagStyle::spec}, {"typed", FlagStyle::typed}}))
      ->default_str("classic");
  app.add_option("--step", options.step,
                 "block: run straight-line code to a breakpoint, step only branches (faster); "
                 "insn: step every instruction")
      ->transform(CLI::CheckedTransformer(std::map<std::string, StepMode>{
          {"block", StepMode::block}, {"insn", StepMode::instruction}}))
      ->default_str("block");
  app.add_flag("--from-exec", options.from_exec,
               "trace the dynamic loader too (default: start at the program's entry point)");
  app.add_flag("--no-aslr", options.no_aslr, "disable address randomization for the program");
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "no summary on standard error");
  app.add_option("command", options.command, "PROGRAM [ARGS...] (after --)")->required();
  CLI11_PARSE(app, argc, argv);

  auto stats = run_trace(options);
  if (!stats) {
    fprintf(stderr, "profkit-branch-trace: error: %s\n", stats.error().message.c_str());
    return 125;
  }
  if (!quiet) {
    fprintf(stderr,
            "profkit-branch-trace: %llu instructions, %llu taken branches, %llu samples, %llu "
            "mmap events, %.2f s (%.0f instructions/s), exit status %d\n",
            static_cast<unsigned long long>(stats->instructions),
            static_cast<unsigned long long>(stats->branches),
            static_cast<unsigned long long>(stats->samples),
            static_cast<unsigned long long>(stats->mmap_events), stats->seconds,
            stats->seconds > 0 ? static_cast<double>(stats->instructions) / stats->seconds : 0.0,
            stats->exit_status);
  }
  return stats->exit_status;
}
