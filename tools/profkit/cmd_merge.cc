// `profkit merge`: merges raw, indexed and text IR-PGO profiles into one indexed (or text)
// profile, byte-identical to `llvm-profdata merge --num-threads=1` (v13/v11 vs LLVM 22,
// v7 vs LLVM 14). -j N decodes inputs on N threads; one thread merges them in input order,
// so the output does not depend on N.
#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "format/instrprof/indexed_writer.h"
#include "format/instrprof/merge.h"
#include "format/instrprof/raw_reader.h"
#include "format/instrprof/reader.h"
#include "format/instrprof/text_writer.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

struct WeightedInput {
  std::string path;
  uint64_t weight = 1;
};

struct MergeCommand {
  std::vector<std::string> inputs;
  std::vector<std::string> weighted_inputs;  // "W,FILE"
  std::string input_files;                   // -f LIST
  std::string output = "-";
  bool text = false;
  bool sparse = false;
  std::string failure_mode = "any";
  unsigned threads = 0;  // 0: min(hardware threads, (inputs + 1) / 2), like llvm-profdata
  int profile_version = 13;
  bool write_prev_version = false;
};

std::optional<WeightedInput> parse_weighted(std::string_view spec) {
  const size_t comma = spec.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  uint64_t w = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + comma, w);
  if (ec != std::errc() || end != spec.data() + comma || w < 1) return std::nullopt;
  return WeightedInput{std::string(spec.substr(comma + 1)), w};
}

// One decoded input, waiting to be merged.
struct Decoded {
  bool ready = false;
  std::optional<Error> error;
  bool raw = false;
  instrprof::DecodedRawInput raw_input;
  instrprof::Profile profile;
};

void decode_input(const WeightedInput& in, instrprof::RawReader& reader, Decoded& out) {
  auto file = MappedFile::open(in.path);
  if (!file) {
    out.error = file.error();
    return;
  }
  if (instrprof::has_raw_magic(file->bytes())) {
    out.raw = true;
    auto info = reader.read(file->bytes(), out.raw_input);
    if (!info) {
      out.error = info.error();
      return;
    }
    out.raw_input.info = std::move(*info);
    return;
  }
  auto profile = instrprof::read_profile(file->bytes());
  if (!profile) {
    out.error = profile.error();
    return;
  }
  out.profile = std::move(*profile);
}

int run_merge(MergeCommand& cmd) {
  std::vector<WeightedInput> inputs;
  for (const std::string& p : cmd.inputs) inputs.push_back({p, 1});
  for (const std::string& w : cmd.weighted_inputs) {
    auto parsed = parse_weighted(w);
    if (!parsed) {
      report_error("merge: --weighted-input expects W,FILE with an integer weight >= 1, got '" +
                   w + "'");
      return 1;
    }
    inputs.push_back(*parsed);
  }
  if (!cmd.input_files.empty()) {
    auto list = MappedFile::open(cmd.input_files);
    if (!list) {
      report_error(cmd.input_files, list.error());
      return 1;
    }
    std::string_view text = as_string_view(list->bytes());
    size_t line_no = 0;
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
      ++line_no;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.remove_suffix(1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (line.empty() || line.front() == '#') continue;
      if (line.find(',') == std::string_view::npos) {
        inputs.push_back({std::string(line), 1});
        continue;
      }
      auto parsed = parse_weighted(line);
      if (!parsed) {
        report_error(cmd.input_files + ":" + std::to_string(line_no) +
                     ": expected FILE or W,FILE with an integer weight >= 1");
        return 1;
      }
      inputs.push_back(*parsed);
    }
  }
  if (inputs.empty()) {
    report_error("merge: no input files specified");
    return 1;
  }
  int version = cmd.write_prev_version ? 11 : cmd.profile_version;
  if (version != 7 && version != 11 && version != 13) {
    report_error("merge: --profile-version must be 7, 11 or 13");
    return 1;
  }
  if (cmd.failure_mode != "any" && cmd.failure_mode != "all") {
    report_error("merge: --failure-mode must be 'any' or 'all'");
    return 1;
  }
  const bool fail_any = cmd.failure_mode == "any";

  instrprof::MergeOptions options;
  options.llvm14_semantics = version == 7;
  std::string current;
  instrprof::Merger merger(options, [&](std::string_view source, std::string_view function,
                                        std::string_view message) {
    std::string msg = std::string(function.empty() ? "<unknown>" : function) + ": " +
                      std::string(message);
    report_warning(source, msg);
  });

  unsigned threads = cmd.threads;
  if (threads == 0) {
    threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                              static_cast<unsigned>((inputs.size() + 1) / 2)));
  }
  threads = std::min<unsigned>(threads, static_cast<unsigned>(inputs.size()));

  size_t failures = 0;
  // Merges one decoded input; returns false when the command must stop.
  auto consume = [&](const WeightedInput& in, Decoded& d) -> bool {
    Expected<void> added;
    if (!d.error) {
      added = d.raw ? merger.add_decoded(d.raw_input, in.weight, in.path)
                    : merger.add(d.profile, in.weight, in.path);
      if (!added && added.error().code != ErrorCode::mismatch) d.error = added.error();
    }
    if (!added) {
      if (!d.error) {  // IR vs front-end: always fatal, as in llvm-profdata
        report_error(in.path, added.error());
        return false;
      }
    }
    if (d.error) {
      ++failures;
      if (fail_any) {
        report_error(in.path, *d.error);
        return false;
      }
      report_warning(in.path, format_error(in.path, *d.error));
    }
    return true;
  };

  if (threads <= 1) {
    instrprof::RawReader reader;
    for (const WeightedInput& in : inputs) {
      Decoded d;
      auto file = MappedFile::open(in.path);
      if (!file) {
        d.error = file.error();
      } else if (instrprof::has_raw_magic(file->bytes())) {
        // Fast path: decode straight into the merge, no intermediate copy.
        auto added = merger.add_raw(file->bytes(), in.weight, reader, in.path);
        if (!added) {
          if (added.error().code == ErrorCode::mismatch) {
            report_error(in.path, added.error());
            return 1;
          }
          d.error = added.error();
        }
        if (!d.error) continue;
      } else {
        auto profile = instrprof::read_profile(file->bytes());
        if (!profile) {
          d.error = profile.error();
        } else {
          d.profile = std::move(*profile);
        }
      }
      if (!consume(in, d)) return 1;
    }
  } else {
    // Workers decode inputs ahead (at most 2*threads in flight); this thread merges them
    // strictly in input order.
    std::vector<std::unique_ptr<Decoded>> slots(inputs.size());
    std::mutex mu;
    std::condition_variable cv;
    size_t next = 0, merged_upto = 0;
    bool stop = false;
    const size_t window = 2 * threads;
    auto worker = [&] {
      instrprof::RawReader reader;
      for (;;) {
        size_t i;
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return stop || next >= inputs.size() || next < merged_upto + window; });
          if (stop || next >= inputs.size()) return;
          i = next++;
        }
        auto d = std::make_unique<Decoded>();
        decode_input(inputs[i], reader, *d);
        {
          std::lock_guard lock(mu);
          d->ready = true;
          slots[i] = std::move(d);
        }
        cv.notify_all();
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    bool ok = true;
    for (size_t i = 0; i < inputs.size() && ok; ++i) {
      std::unique_ptr<Decoded> d;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return slots[i] && slots[i]->ready; });
        d = std::move(slots[i]);
      }
      ok = consume(inputs[i], *d);
      d.reset();
      {
        std::lock_guard lock(mu);
        merged_upto = i + 1;
        if (!ok) stop = true;
      }
      cv.notify_all();
    }
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    cv.notify_all();
    for (auto& t : pool) t.join();
    if (!ok) return 1;
  }
  if (failures == inputs.size()) {
    report_error("merge: no profile can be merged (every input failed)");
    return 1;
  }

  instrprof::Profile merged = merger.finish();
  std::string bytes;
  if (cmd.text) {
    if (cmd.sparse) instrprof::drop_zero_names(merged);
    bytes = instrprof::write_text_profile(
        merged, version == 7 ? instrprof::TextFlavor::llvm14 : instrprof::TextFlavor::llvm22);
  } else {
    auto written = instrprof::write_indexed_profile(merged, static_cast<uint32_t>(version),
                                                    {.sparse = cmd.sparse});
    if (!written) {
      report_error(cmd.output, written.error());
      return 1;
    }
    bytes = std::move(*written);
  }
  auto out = OutputFile::create(cmd.output);
  if (!out) {
    report_error(cmd.output, out.error());
    return 1;
  }
  if (auto w = out->write(bytes); !w) {
    report_error(cmd.output, w.error());
    return 1;
  }
  if (auto c = out->commit(); !c) {
    report_error(cmd.output, c.error());
    return 1;
  }
  return 0;
}

void add_merge_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<MergeCommand>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge IR-PGO profiles (raw, indexed, text) into one indexed or text profile");
  sub->add_option("inputs", cmd->inputs, "Input profiles (weight 1)");
  sub->add_option("-o,--output", cmd->output, "Output file ('-' = standard output)");
  sub->add_flag("--text", cmd->text, "Write the text format instead of indexed");
  sub->add_option("--weighted-input", cmd->weighted_inputs,
                  "W,FILE: merge FILE with its counts multiplied by W")
      ->allow_extra_args(false);
  sub->add_option("-f,--input-files", cmd->input_files,
                  "File listing inputs, one FILE or W,FILE per line");
  sub->add_flag("--sparse", cmd->sparse, "Leave out functions whose counters are all zero");
  sub->add_option("--failure-mode", cmd->failure_mode,
                  "any: fail if any input is invalid (default); all: only if all are");
  sub->add_option("-j,--num-threads", cmd->threads,
                  "Threads decoding inputs (default: min(cores, (inputs+1)/2))");
  sub->add_option("--profile-version", cmd->profile_version,
                  "Indexed version to write: 13 (LLVM 22, default), 11, or 7 (LLVM 14)");
  sub->add_flag("--write-prev-version", cmd->write_prev_version,
                "Same as --profile-version=11 (llvm-profdata 22's spelling)");
  sub->callback([cmd, &exit_status] { exit_status = run_merge(*cmd); });
}

}  // namespace

static CommandRegistration reg(20, &add_merge_command);

}  // namespace profkit::cli
