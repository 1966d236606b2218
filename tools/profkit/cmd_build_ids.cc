// `profkit build-ids FILE...`: the GNU build ids a file carries, one line per file:
//   KIND<TAB>ID[,ID...]<TAB>FILE
// KIND is `elf` (the binary's NT_GNU_BUILD_ID note) or `memprof-raw` (the build id of each
// segment a raw memprof profile maps, in segment order; `-` for a segment without one, as
// LLVM 14's v1 profiles have). The fleet merger groups raw memprof profiles by these ids
// and finds the matching binaries the same way, so neither has to read a format itself.
#include <cstdio>
#include <string>
#include <vector>

#include "format/bytes/number_text.h"
#include "format/elf/elf_file.h"
#include "format/memprof/raw_reader.h"
#include "io/mapped_file.h"
#include "tools/profkit/command.h"

namespace profkit::cli {

namespace {

struct BuildIdsCommand {
  std::vector<std::string> files;
};

bool is_elf(Bytes bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
         bytes[3] == 'F';
}

// Returns false after printing an error for `path`.
bool print_build_ids(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) {
    report_error(path, file.error());
    return false;
  }
  const Bytes bytes = file->bytes();
  std::string line;
  if (is_elf(bytes)) {
    auto elf = elf::ElfFile::parse(bytes);
    if (!elf) {
      report_error(path, elf.error());
      return false;
    }
    auto id = elf->build_id();
    if (!id) {
      report_error(path, id.error());
      return false;
    }
    line = "elf\t" + (*id ? hex_bytes(**id) : std::string("-"));
  } else if (memprof::is_raw_memprof(bytes)) {
    auto profiles = memprof::read_raw_profiles(bytes);
    if (!profiles) {
      report_error(path, profiles.error());
      return false;
    }
    line = "memprof-raw\t";
    // Chained profiles of one file share their segment list (the reader's merge checks it);
    // the first one's is the file's.
    const auto& segments = profiles->empty() ? std::vector<memprof::Segment>{}
                                             : profiles->front().segments;
    for (size_t i = 0; i < segments.size(); ++i) {
      if (i) line += ',';
      line += segments[i].build_id.empty() ? std::string("-") : hex_bytes(segments[i].build_id);
    }
    if (segments.empty()) line += '-';
  } else {
    report_error(path + ": error: not an ELF file or a raw memprof profile");
    return false;
  }
  line += '\t';
  line += path;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  return true;
}

void add_build_ids_command(CLI::App& app, int& exit_status) {
  auto cmd = std::make_shared<BuildIdsCommand>();
  CLI::App* sub = app.add_subcommand(
      "build-ids", "Print the GNU build ids of ELF binaries and raw memprof profiles");
  sub->add_option("files", cmd->files, "ELF files or raw memprof profiles")->required();
  sub->callback([cmd, &exit_status] {
    exit_status = 0;
    for (const auto& f : cmd->files)
      if (!print_build_ids(f)) exit_status = 1;
    if (std::fflush(stdout) != 0) {
      report_error("build-ids: cannot write to standard output");
      exit_status = 1;
    }
  });
}

}  // namespace

static CommandRegistration reg(80, &add_build_ids_command);

}  // namespace profkit::cli
