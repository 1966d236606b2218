// `profkit merge`: merges raw, indexed and text IR-PGO profiles into one indexed (or text)
// profile, byte-identical to `llvm-profdata merge --num-threads=1` (v13/v11 vs LLVM 22,
// v7 vs LLVM 14). -j N decodes inputs on N threads; one thread merges them in input order,
// so the output does not depend on N.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "format/instrprof/indexed_reader.h"
#include "format/instrprof/indexed_writer.h"
#include "format/instrprof/merge.h"
#include "format/instrprof/raw_reader.h"
#include "format/instrprof/reader.h"
#include "format/instrprof/text_writer.h"
#include "format/memprof/indexed_reader.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "tools/profkit/command.h"
#include "tools/profkit/memprof_cli.h"

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
  MemProfCliOptions memprof;  // --profiled-binary, --memprof-version (memprof_cli.h)
};

std::optional<WeightedInput> parse_weighted(std::string_view spec) {
  const size_t comma = spec.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  uint64_t w = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + comma, w);
  if (ec != std::errc() || end != spec.data() + comma || w < 1) return std::nullopt;
  return WeightedInput{std::string(spec.substr(comma + 1)), w};
}

// One input's bytes, reused from input to input. Anonymous memory that the kernel may back
// with 2 MiB pages (MADV_HUGEPAGE): a 3 MB raw profile then costs a few page faults instead
// of ~700, and nothing is zero-filled before read(2) overwrites it (std::vector's resize did;
// on the benchmark machine those faults were a tenth of the merge).
class InputBuffer {
 public:
  InputBuffer() = default;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer() {
    if (data_ != nullptr) ::munmap(data_, capacity_);
  }
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void set_size(size_t n) { size_ = n; }
  // Makes room for n bytes, keeping the first size() bytes.
  bool reserve(size_t n) {
    if (n <= capacity_) return true;
    constexpr size_t kHuge = size_t{2} << 20;
    const size_t want = (n + n / 4 + kHuge - 1) / kHuge * kHuge;
    void* p = data_ == nullptr ? ::mmap(nullptr, want, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                               : ::mremap(data_, capacity_, want, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) return false;
    ::madvise(p, want, MADV_HUGEPAGE);  // advice only: fine if THP is off
    data_ = static_cast<uint8_t*>(p);
    capacity_ = want;
    return true;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Reads a whole file into `buf`.
Expected<void> read_into(const std::string& path, InputBuffer& buf) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorCode::io, kNoOffset,
                      std::string("cannot open for reading: ") + std::strerror(errno));
  auto fail = [&](uint64_t at, const char* what) {
    const int e = errno;
    ::close(fd);
    return make_error(ErrorCode::io, at, std::string(what) + std::strerror(e));
  };
  struct stat st {};
  size_t size = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) size = static_cast<size_t>(st.st_size);
  buf.set_size(0);
  if (!buf.reserve(std::max<size_t>(size + 1, 1 << 16)))  // +1: EOF shows without growing
    return fail(0, "cannot allocate the input buffer: ");
  size_t got = 0;
  for (;;) {
    if (got == buf.capacity() && !buf.reserve(buf.capacity() * 2))
      return fail(got, "cannot allocate the input buffer: ");
    const ssize_t n = ::read(fd, buf.data() + got, buf.capacity() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(got, "read failed: ");
    if (n == 0) break;
    got += static_cast<size_t>(n);
    buf.set_size(got);
  }
  ::close(fd);
  return {};
}

// True when the file starts with a raw or indexed IR-PGO magic (its header read, nothing
// mapped). `memprof_flag`: an indexed profile (version 8 or later) with the MemProf flag.
bool starts_with_instrprof_magic(const std::string& path, bool* memprof_flag) {
  *memprof_flag = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  uint8_t head[72];  // the largest indexed header
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (n < 8) return false;
  const Bytes bytes(head, static_cast<size_t>(n));
  if (instrprof::has_indexed_magic(bytes)) {
    if (auto h = instrprof::read_indexed_header(bytes))
      *memprof_flag = h->version() >= 8 && (h->version_word & instrprof::kFlagMemProf) != 0;
    return true;
  }
  return instrprof::has_raw_magic(bytes.subspan(0, 8));
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
  {
    std::vector<std::string> read = cmd.memprof.profiled_binaries;
    if (!cmd.input_files.empty()) read.push_back(cmd.input_files);
    for (const WeightedInput& in : inputs) read.push_back(in.path);
    if (!outputs_are_safe({cmd.output}, read)) return 1;
  }
  // MemProf raw/YAML inputs take the memprof path (cmd_memprof_common.cc). Indexed inputs
  // whose MemProf section holds records or a data-access profile take both paths: their
  // counters are merged as usual and their memprof data joins the memprof merge.
  std::vector<std::string> memprof_inputs;
  std::erase_if(inputs, [&](const WeightedInput& in) {
    bool memprof_flag = false;
    if (starts_with_instrprof_magic(in.path, &memprof_flag)) {  // the usual case: no mapping
      if (memprof_flag) {
        auto f = MappedFile::open(in.path);
        if (f && memprof::indexed_has_memprof_content(f->bytes()))
          memprof_inputs.push_back(in.path);
      }
      return false;
    }
    auto f = MappedFile::open(in.path);
    if (!f || !is_memprof_input(f->bytes())) return false;
    memprof_inputs.push_back(in.path);
    return true;
  });
  std::shared_ptr<MemProfMerged> memprof;
  if (!memprof_inputs.empty()) {
    if (!load_memprof(memprof_inputs, cmd.memprof, memprof)) return 1;
    if (inputs.empty()) return write_output(cmd.output, memprof_only_profile(*memprof, cmd.memprof));
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

  // Merges inputs [begin, end) into `m` in order. Returns false when the command must stop
  // (after reporting, when `report` is set).
  size_t failures = 0;
  auto merge_range = [&](instrprof::Merger& m, size_t begin, size_t end, bool report,
                         size_t& failed) -> bool {
    instrprof::RawReader reader;
    InputBuffer buf;
    for (size_t i = begin; i < end; ++i) {
      const WeightedInput& in = inputs[i];
      Expected<void> added;
      if (auto r = read_into(in.path, buf); !r) {
        added = Unexpected{r.error()};
      } else if (buf.size() == 0) {
        continue;  // llvm-profdata skips empty inputs silently
      } else if (const Bytes bytes(buf.data(), buf.size()); instrprof::has_raw_magic(bytes)) {
        // Fast path: decode straight into the merge, no intermediate Profile.
        added = m.add_raw(bytes, in.weight, reader, in.path);
      } else {
        auto profile = instrprof::read_profile(bytes);
        added = profile ? m.add(*profile, in.weight, in.path) : Unexpected{profile.error()};
      }
      if (added) continue;
      // Mixing IR and front-end profiles is fatal whatever the failure mode, as in LLVM.
      if (fail_any || added.error().code == ErrorCode::mismatch) {
        if (report) report_error(in.path, added.error());
        return false;
      }
      ++failed;
      if (report) {
        const Error& e = added.error();
        report_warning(in.path, "skipped: " + e.message +
                                    (e.has_offset() ? " at offset " + std::to_string(e.offset) : ""));
      }
    }
    return true;
  };

  bool merged_in_parallel = false;
  if (threads > 1) {
    // Contiguous chunks merged on their own threads, then folded in input order. When the
    // grouping could change the result (warnings, weights, truncated sites) or any input
    // failed, the merge is redone on one thread so that the output never depends on -j.
    std::vector<instrprof::Merger> parts;
    parts.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) parts.emplace_back(options);
    std::vector<char> ok(threads, 0);
    std::vector<size_t> failed(threads, 0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      const size_t begin = inputs.size() * t / threads, end = inputs.size() * (t + 1) / threads;
      pool.emplace_back([&, t, begin, end] { ok[t] = merge_range(parts[t], begin, end, false, failed[t]); });
    }
    for (auto& th : pool) th.join();
    bool usable = std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; }) &&
                  std::all_of(failed.begin(), failed.end(), [](size_t f) { return f == 0; });
    for (unsigned t = 1; t < threads && usable; ++t) usable = parts[0].absorb(std::move(parts[t])).has_value();
    usable = usable && !parts[0].order_sensitive();
    if (usable) {
      merger = std::move(parts[0]);
      merged_in_parallel = true;
    }
  }
  if (!merged_in_parallel) {
    if (!merge_range(merger, 0, inputs.size(), true, failures)) return 1;
  }
  if (failures == inputs.size()) {
    report_error("merge: no profile can be merged (every input failed)");
    return 1;
  }

  std::vector<uint64_t> name_refs;
  instrprof::Profile merged = merger.finish(&name_refs);
  std::string bytes;
  if (cmd.text) {
    if (cmd.sparse) instrprof::drop_zero_names(merged);
    bytes = instrprof::write_text_profile(
        merged, version == 7 ? instrprof::TextFlavor::llvm14 : instrprof::TextFlavor::llvm22);
  } else {
    instrprof::IndexedWriteOptions write;
    write.sparse = cmd.sparse;
    write.name_refs = name_refs;
    if (memprof)
      write.memprof_section = [&](uint64_t offset) {
        return memprof_section_at(*memprof, cmd.memprof, offset);
      };
    auto written = instrprof::write_indexed_profile(merged, static_cast<uint32_t>(version), write);
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
  keep_until_exit(std::move(merged));  // see keep_until_exit
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
                  "Threads merging inputs (default: min(cores, (inputs+1)/2)); output is the same for any N");
  sub->add_option("--profile-version", cmd->profile_version,
                  "Indexed version to write: 13 (LLVM 22, default), 11, or 7 (LLVM 14)");
  sub->add_flag("--write-prev-version", cmd->write_prev_version,
                "Same as --profile-version=11 (llvm-profdata 22's spelling)");
  sub->add_option("--profiled-binary", cmd->memprof.profiled_binaries,
                  "MemProf: profiled binary or directory searched by build id (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--memprof-version", cmd->memprof.memprof_version,
                  "MemProf section version to write: 2, 3 (default) or 4");
  sub->add_flag("--memprof-full-schema", cmd->memprof.full_schema,
                "MemProf: store all MIB fields instead of the hot/cold schema");
  sub->callback([cmd, &exit_status] { exit_status = run_merge(*cmd); });
}

}  // namespace

static CommandRegistration reg(20, &add_merge_command);

}  // namespace profkit::cli
