// `profkit profgen`: a perf recording of a binary turned into a sample profile, as
// llvm-profgen does it (docs/profgen.md). The library entry point: options in, the output
// file's bytes out; warnings and informational lines go to the given sinks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "format/bytes/expected.h"
#include "format/sampleprof/profile.h"
#include "profgen/cs_generate.h"
#include "profgen/generate.h"

namespace profkit::profgen {

struct ProfgenOptions {
  std::string binary;
  // Exactly one input: a perf script, a perf.data file (turned into a perf script by
  // running `perf script`), or an unsymbolized profile (--skip-symbolization's output).
  std::string perfscript;
  std::string perfdata;
  std::string unsymbolized_profile;

  sampleprof::Format format = sampleprof::Format::extbinary;
  std::optional<int64_t> pid;
  bool skip_symbolization = false;
  bool use_offset = true;
  bool use_first_loadable_segment_as_base = false;
  bool ignore_stack_samples = false;
  bool show_mmap_events = false;
  bool use_dwarf_correlation = false;
  bool use_md5 = false;                       // extbinary only
  bool populate_profile_symbol_list = false;  // extbinary only
  GenerateOptions generate;
  PostProcessOptions post;
  CsOptions cs;                               // hybrid samples (context-sensitive profiles)
  bool merge_cold_context_given = false;      // --csprof-merge-cold-context on the command line
};

// Runs the whole pipeline and returns what belongs in the output file. On failure,
// `failing_input` is set to the file the error is about (the binary or the input).
Expected<std::string> run_profgen(const ProfgenOptions& options, const LineSink& warn,
                                  const LineSink& out, std::string* failing_input);

}  // namespace profkit::profgen
