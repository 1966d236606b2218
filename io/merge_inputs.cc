#include "io/merge_inputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "format/instrprof/indexed_header.h"
#include "format/instrprof/profile.h"
#include "format/instrprof/raw_reader.h"
#include "format/memprof/indexed_reader.h"
#include "format/memprof/input.h"
#include "io/mapped_file.h"

namespace profkit {

std::optional<WeightedPath> parse_weighted_input(std::string_view spec) {
  const size_t comma = spec.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  uint64_t w = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + comma, w);
  if (ec != std::errc() || end != spec.data() + comma || w < 1) return std::nullopt;
  return WeightedPath{std::string(spec.substr(comma + 1)), w};
}

namespace {

Unexpected command_line_error(std::string message) {
  return make_error(ErrorCode::invalid_argument, kNoOffset, std::move(message));
}

// The -f list: one FILE or W,FILE per line, blanks around it and '#' comment lines ignored.
Expected<void> read_input_list(const std::string& list_path, std::vector<WeightedPath>& inputs,
                               std::string* failed_path) {
  auto list = MappedFile::open(list_path);
  if (!list) {
    *failed_path = list_path;
    return unexpected(list.error());
  }
  std::string_view text = as_string_view(list->bytes());
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
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
    auto parsed = parse_weighted_input(line);
    if (!parsed)
      return command_line_error(list_path + ":" + std::to_string(line_no) +
                                ": expected FILE or W,FILE with an integer weight >= 1");
    inputs.push_back(std::move(*parsed));
  }
  return {};
}

}  // namespace

Expected<std::vector<WeightedPath>> collect_merge_inputs(const MergeInputSpec& spec,
                                                         std::string* failed_path) {
  failed_path->clear();
  std::vector<WeightedPath> inputs;
  for (const std::string& p : spec.paths) inputs.push_back({p, 1});
  for (const std::string& w : spec.weighted) {
    auto parsed = parse_weighted_input(w);
    if (!parsed)
      return command_line_error(
          "merge: --weighted-input expects W,FILE with an integer weight >= 1, got '" + w + "'");
    inputs.push_back(std::move(*parsed));
  }
  if (!spec.list_file.empty())
    if (auto read = read_input_list(spec.list_file, inputs, failed_path); !read)
      return unexpected(read.error());

  std::vector<WeightedPath> expanded;
  for (const WeightedPath& in : inputs) {
    struct stat st {};
    if (::stat(in.path.c_str(), &st) != 0) {
      *failed_path = in.path;
      return make_error(ErrorCode::io, kNoOffset,
                        std::string("cannot read the input: ") + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
      expanded.push_back(in);
      continue;
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::recursive_directory_iterator it(in.path, fs::directory_options::follow_directory_symlink,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec)) expanded.push_back({it->path().string(), in.weight});
    }
    if (ec) {
      *failed_path = in.path;
      return make_error(ErrorCode::io, kNoOffset, "cannot list the directory: " + ec.message());
    }
  }
  return expanded;
}

namespace {

// A file's first bytes, read once: enough for the largest indexed header, and more than the
// raw IR-PGO, raw MemProf and YAML checks look at. `size` is -1 when they cannot be read
// with pread (a pipe; a file that cannot be opened).
struct Head {
  uint8_t bytes[72];
  ssize_t size = -1;
  Bytes view() const { return Bytes(bytes, size > 0 ? static_cast<size_t>(size) : 0); }
};

Head read_head(const std::string& path) {
  Head head;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return head;
  head.size = ::pread(fd, head.bytes, sizeof head.bytes, 0);
  ::close(fd);
  return head;
}

InstrProfFileKind instrprof_kind(const Head& head) {
  if (head.size < 8) return InstrProfFileKind::other;
  const Bytes bytes = head.view();
  if (instrprof::has_indexed_magic(bytes)) {
    const auto h = instrprof::read_indexed_header(bytes);
    const bool memprof =
        h && h->version() >= 8 && (h->version_word & instrprof::kFlagMemProf) != 0;
    return memprof ? InstrProfFileKind::indexed_memprof : InstrProfFileKind::indexed;
  }
  return instrprof::has_raw_magic(bytes.subspan(0, 8)) ? InstrProfFileKind::raw
                                                       : InstrProfFileKind::other;
}

bool is_raw_or_yaml_memprof(Bytes data) {
  const memprof::InputKind kind = memprof::input_kind(data);
  return kind == memprof::InputKind::raw || kind == memprof::InputKind::yaml;
}

}  // namespace

InstrProfFileKind sniff_instrprof_file(const std::string& path) {
  return instrprof_kind(read_head(path));
}

MemProfRoute route_memprof_inputs(std::vector<WeightedPath>& inputs) {
  MemProfRoute route;
  std::erase_if(inputs, [&](const WeightedPath& in) {
    const Head head = read_head(in.path);
    switch (instrprof_kind(head)) {
      case InstrProfFileKind::raw:
      case InstrProfFileKind::indexed:
        return false;  // the usual case: nothing mapped
      case InstrProfFileKind::indexed_memprof: {
        route.memprof_flag_seen = true;
        auto f = MappedFile::open(in.path);
        if (f && memprof::indexed_has_memprof_content(f->bytes()))
          route.memprof_inputs.push_back(in.path);
        return false;
      }
      case InstrProfFileKind::other:
        break;
    }
    // Raw MemProf and YAML are told by their first bytes (input_kind): only an input whose
    // head could not be read (a pipe) is read whole to tell; a sparse file or a device of
    // zeros is never mapped here.
    bool memprof = false;
    if (head.size >= 0) {
      memprof = is_raw_or_yaml_memprof(head.view());
    } else {
      auto f = MappedFile::open(in.path);
      memprof = f && is_raw_or_yaml_memprof(f->bytes());  // else the IR-PGO merge reports it
    }
    if (memprof) route.memprof_inputs.push_back(in.path);
    return memprof;
  });
  return route;
}

}  // namespace profkit
