// What every subcommand shares (command.h): one-line errors and warnings on stderr, the
// outputs-are-not-inputs check, and whole-or-nothing output.
#include <cstdio>
#include <optional>
#include <string>

#include "io/output_file.h"
#include "io/same_file.h"
#include "tools/profkit/command.h"
#include "tools/profkit/name_filter.h"

namespace profkit::cli {

void report_error(std::string_view file, const Error& error) {
  std::string line = format_error(file, error);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

void report_error(std::string_view message) {
  std::fprintf(stderr, "profkit: error: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

bool outputs_are_safe(std::vector<std::string> outputs, std::vector<std::string> inputs) {
  const auto clash = find_output_clash(outputs, inputs);
  if (!clash) return true;
  const std::string line = describe(*clash) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return false;
}

void report_warning(std::string_view file, std::string_view message) {
  std::fprintf(stderr, "%.*s: warning: %.*s\n", static_cast<int>(file.size()), file.data(),
               static_cast<int>(message.size()), message.data());
}

int write_output_streamed(const std::string& output,
                          const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  const bool to_stdout = is_stdout_path(output);
  if (to_stdout && std::fflush(stdout) != 0) {  // what stdio holds goes first
    report_error("cannot write to standard output");
    return 1;
  }
  auto out = OutputFile::create(output);
  if (!out) {
    report_error(output, out.error());
    return 1;
  }
  std::optional<Error> failed;  // the first write error; later pieces are dropped
  produce([&](std::string_view piece) {
    if (failed) return;
    if (auto w = out->write(piece); !w) failed = w.error();
  });
  if (!failed)
    if (auto c = out->commit(); !c) failed = c.error();
  if (!failed) return 0;
  if (to_stdout)
    report_error("cannot write to standard output");
  else
    report_error(output, *failed);
  return 1;
}

int write_output(const std::string& output, const std::string& text) {
  return write_output_streamed(output, [&](const auto& emit) { emit(text); });
}

std::optional<NameFilter> make_name_filter(const std::string& function,
                                           const std::string& no_function) {
  NameFilter filter;
  try {
    if (!function.empty()) filter.keep.emplace(function);
    if (!no_function.empty()) filter.drop.emplace(no_function);
  } catch (const std::regex_error& e) {
    report_error(std::string("merge: invalid --function/--no-function pattern: ") + e.what());
    return std::nullopt;
  }
  return filter;
}

}  // namespace profkit::cli
