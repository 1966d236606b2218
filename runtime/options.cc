// MEMPROF_OPTIONS parser. Freestanding: byte loops only, no libc, no allocation.
#include "runtime/options.h"

namespace profkit::rt {
namespace {

// compiler-rt options (memprof_flags.inc and sanitizer_common_flags.inc, LLVM 22) that
// profkit accepts for compatibility and ignores (docs/formats/memprof.md A.12).
const char* const kIgnoredOptions[] = {
    "unmap_shadow_on_exit", "protect_shadow_gap", "print_legend", "print_full_thread_history",
    "halt_on_error", "log_fallback_to_stderr", "allocator_release_to_os_interval_ms",
    "clear_shadow_mmap_threshold", "handle_segv", "handle_sigbus", "handle_sigfpe",
    "use_madv_dontdump", "no_huge_pages_for_shadow", "disable_coredump", "print_module_map",
    "symbolize", "external_symbolizer_path", "allow_addr2line", "strip_path_prefix",
    "fast_unwind_on_check", "fast_unwind_on_fatal", "handle_ioctl", "log_to_syslog",
    "strip_env", "verify_interceptors", "detect_leaks", "leak_check_at_exit", "print_summary",
    "check_printf", "handle_abort", "handle_sigill", "handle_sigtrap",
    "allow_user_segv_handler", "cloak_sanitizer_signal_handlers", "use_sigaltstack",
    "detect_deadlocks", "color", "legacy_pthread_cond", "intercept_tls_get_addr",
    "mmap_limit_mb", "hard_rss_limit_mb", "soft_rss_limit_mb", "heap_profile",
    "can_use_proc_maps_statm", "coverage", "coverage_dir", "cov_8bit_counters_out",
    "cov_pcs_out", "full_address_space", "print_suppressions", "symbolize_inline_frames",
    "demangle", "symbolize_vs_style", "dedup_token_length", "stack_trace_format",
    "compress_stack_depot", "strict_string_checks", "intercept_strstr", "intercept_strspn",
    "intercept_strtok", "intercept_strpbrk", "intercept_strcmp", "intercept_strlen",
    "intercept_strndup", "intercept_strchr", "intercept_memcmp", "strict_memcmp",
    "intercept_memmem", "intercept_intrin", "intercept_stat", "intercept_send",
    "decorate_proc_maps", "exitcode", "abort_on_error", "suppress_equal_pcs", "print_cmdline",
    "html_cov_report", "sancov_path", "dump_instruction_bytes", "dump_registers",
    "detect_write_exec", "test_only_emulate_no_memorymap",
    "test_only_replace_dlopen_main_program", "enable_symbolizer_markup", "detect_invalid_join",
    "include", "include_if_exists",
};

bool is_separator(char c) { return c == ':' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool equals(const char* a, size_t a_size, const char* b) {
  size_t i = 0;
  for (; i < a_size; ++i)
    if (b[i] != a[i] || b[i] == '\0') return false;
  return b[i] == '\0';
}

// A line buffer for error messages; truncates silently at its capacity.
struct Line {
  char bytes[512];
  size_t size = 0;
  void add(const char* s, size_t n) {
    for (size_t i = 0; i < n && size < sizeof bytes; ++i) bytes[size++] = s[i];
  }
  void add(const char* s) {
    while (*s && size < sizeof bytes) bytes[size++] = *s++;
  }
};

void report(OptionErrorSink sink, void* context, const char* source, const char* what,
            const char* token, size_t token_size, const char* tail) {
  Line line;
  line.add("profkit-memprof: error: ");
  line.add(source);
  line.add(": ");
  line.add(what);
  line.add(" '");
  line.add(token, token_size > 200 ? 200 : token_size);
  line.add("'");
  line.add(tail);
  if (sink) sink(context, line.bytes, line.size);
}

bool parse_bool(const char* v, size_t n, bool* out) {
  if (equals(v, n, "1") || equals(v, n, "true") || equals(v, n, "yes")) {
    *out = true;
    return true;
  }
  if (equals(v, n, "0") || equals(v, n, "false") || equals(v, n, "no")) {
    *out = false;
    return true;
  }
  return false;
}

bool parse_int(const char* v, size_t n, int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < n && (v[i] == '-' || v[i] == '+')) negative = v[i++] == '-';
  if (i == n) return false;
  uint64_t value = 0;
  for (; i < n; ++i) {
    if (v[i] < '0' || v[i] > '9') return false;
    value = value * 10 + static_cast<uint64_t>(v[i] - '0');
    if (value > (uint64_t{1} << 62)) return false;
  }
  *out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
  return true;
}

// Decimal seconds ("10", "0.25", ".5") to milliseconds; digits past the third decimal must
// be 0 (no silent rounding), and at most 10^9 seconds.
bool parse_seconds_ms(const char* v, size_t n, int64_t* out) {
  size_t i = 0;
  int64_t ms = 0;
  bool digits = false;
  for (; i < n && v[i] >= '0' && v[i] <= '9'; ++i, digits = true) {
    ms = ms * 10 + (v[i] - '0');
    if (ms > 1'000'000'000) return false;
  }
  ms *= 1000;
  if (i < n && v[i] == '.') {
    int64_t scale = 100;
    for (++i; i < n && v[i] >= '0' && v[i] <= '9'; ++i, digits = true) {
      if (scale == 0 && v[i] != '0') return false;
      ms += (v[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (!digits || i != n) return false;
  *out = ms;
  return true;
}

// Each setter returns nullptr on success or the error text.
const char* set(Options::BoolOption* option, const char* v, size_t n) {
  return parse_bool(v, n, &option->value) ? nullptr : "invalid value for bool option";
}
const char* set(Options::IntOption* option, const char* v, size_t n) {
  return parse_int(v, n, &option->value) ? nullptr : "invalid value for int option";
}
const char* set(Options::SecondsOption* option, const char* v, size_t n) {
  return parse_seconds_ms(v, n, &option->value)
             ? nullptr
             : "invalid value (seconds, at most 3 decimals) for option";
}
const char* set(Options::StringOption* option, const char* v, size_t n) {
  if (n >= kOptionStringMax) return "value too long for option";
  for (size_t i = 0; i < n; ++i) option->value[i] = v[i];
  option->value[n] = '\0';
  return nullptr;
}

void set_default(Options::BoolOption* option, bool value) { option->value = value; }
void set_default(Options::IntOption* option, int64_t value) { option->value = value; }
void set_default(Options::SecondsOption* option, int64_t seconds) { option->value = seconds * 1000; }
void set_default(Options::StringOption* option, const char* value) {
  size_t i = 0;
  for (; value[i] && i + 1 < kOptionStringMax; ++i) option->value[i] = value[i];
  option->value[i] = '\0';
}

}  // namespace

void set_default_options(Options* options) {
#define PROFKIT_RT_OPTION(Kind, Name, Default, Help) set_default(&options->Name, Default);
#include "runtime/options.def"
}

int parse_options(const char* text, size_t size, const char* source, Options* options,
                  OptionErrorSink sink, void* context) {
  int errors = 0;
  size_t pos = 0;
  while (pos < size) {
    while (pos < size && is_separator(text[pos])) ++pos;
    if (pos >= size) break;
    const size_t name_begin = pos;
    while (pos < size && text[pos] != '=' && !is_separator(text[pos])) ++pos;
    const char* name = text + name_begin;
    const size_t name_size = pos - name_begin;
    if (pos >= size || text[pos] != '=') {
      report(sink, context, source, "malformed option (expected name=value)", name, name_size, "");
      ++errors;
      continue;
    }
    ++pos;  // '='
    const char* value = text + pos;
    size_t value_size = 0;
    if (pos < size && (text[pos] == '\'' || text[pos] == '"')) {
      const char quote = text[pos++];
      value = text + pos;
      while (pos < size && text[pos] != quote) ++pos;
      if (pos >= size) {
        report(sink, context, source, "unterminated quote in value of option", name, name_size, "");
        ++errors;
        break;
      }
      value_size = static_cast<size_t>(text + pos - value);
      ++pos;  // closing quote
    } else {
      while (pos < size && !is_separator(text[pos])) ++pos;
      value_size = static_cast<size_t>(text + pos - value);
    }
    const char* problem = "unknown option";
    bool known = false;
#define PROFKIT_RT_OPTION(Kind, Name, Default, Help)          \
    if (!known && equals(name, name_size, #Name)) {           \
      known = true;                                           \
      problem = set(&options->Name, value, value_size);       \
    }
#include "runtime/options.def"
    if (!known) {
      for (const char* ignored : kIgnoredOptions)
        if (equals(name, name_size, ignored)) {
          known = true;
          problem = nullptr;
        }
    }
    if (problem == nullptr && options->malloc_context_size.value < 1) {
      options->malloc_context_size.value = 1;
      problem = "malloc_context_size must be 1..255, using 1 for";
    } else if (problem == nullptr && options->malloc_context_size.value > 255) {
      options->malloc_context_size.value = 255;
      problem = "malloc_context_size must be 1..255, using 255 for";
    }
    if (problem == nullptr &&
        (options->fold_recursion.value < 0 || options->fold_recursion.value > 2)) {
      options->fold_recursion.value = 0;
      problem = "fold_recursion must be 0, 1 or 2, using 0 for";
    }
    if (problem == nullptr &&
        (options->sample_interval.value < 0 || options->sample_interval.value > (int64_t{1} << 40))) {
      options->sample_interval.value = 0;
      problem = "sample_interval must be 0..2^40 bytes, profiling every allocation for";
    }
    if (problem == nullptr &&
        (options->max_threads.value < 1 || options->max_threads.value > kMaxThreadsLimit)) {
      options->max_threads.value = kMaxThreadsLimit;
      problem = "max_threads must be 1..131072, using 131072 for";
    }
    if (problem != nullptr) {
      report(sink, context, source, problem, name, name_size, known ? "" : " (ignored)");
      ++errors;
    }
  }
  return errors;
}

void print_option_help(OptionErrorSink sink, void* context) {
#define PROFKIT_RT_OPTION(Kind, Name, Default, Help)  \
  {                                                   \
    Line line;                                        \
    line.add("\t" #Name " (" #Kind ", default " #Default ")\n\t\t- " Help); \
    sink(context, line.bytes, line.size);             \
  }
#include "runtime/options.def"
}

}  // namespace profkit::rt
