// Programs a profiled process starts that the heap profiler cannot follow. Under `profkit
// run` every descendant inherits LD_PRELOAD, but a statically linked program, a
// set-user-ID one (the loader ignores LD_PRELOAD there) or one started with an environment
// that lost LD_PRELOAD runs unprofiled and writes nothing. The process that starts it
// still has the runtime, so the exec family and posix_spawn are wrapped here: they look at
// the file about to run and leave one note in the file `profkit run` named in
// PROFKIT_MEMPROF_NOTES, which it summarizes once the program has ended (one line per
// program, not one per start). Without that variable (the runtime linked into an
// instrumented program) the wrappers only forward.
//
// The wrappers run where only async-signal-safe calls are allowed (between fork and exec
// in a multi-threaded program, in a vfork child): open, pread, fstat, access and write on
// fixed buffers, no allocation. The real functions are looked up once, in the library's
// constructor.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/base.h"
#include "runtime/globals.h"
#include "runtime/line_writer.h"

extern "C" char** environ;

namespace profkit::rt {
namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,
                        const posix_spawnattr_t*, char* const[], char* const[]);

ExecveFn real_execve = nullptr;
ExecvpeFn real_execvpe = nullptr;
SpawnFn real_posix_spawn = nullptr;
SpawnFn real_posix_spawnp = nullptr;

constexpr size_t kPathMax = 4096;
char g_notes_path[kPathMax];  // empty: not under profkit run, no notes

const char* env_value(char* const* env, const char* name) {
  if (env == nullptr) return nullptr;
  const size_t n = strlen(name);
  for (; *env != nullptr; ++env)
    if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
  return nullptr;
}

void resolve_real_functions() {
  real_execve = reinterpret_cast<ExecveFn>(dlsym(RTLD_NEXT, "execve"));
  real_execvpe = reinterpret_cast<ExecvpeFn>(dlsym(RTLD_NEXT, "execvpe"));
  real_posix_spawn = reinterpret_cast<SpawnFn>(dlsym(RTLD_NEXT, "posix_spawn"));
  real_posix_spawnp = reinterpret_cast<SpawnFn>(dlsym(RTLD_NEXT, "posix_spawnp"));
}

__attribute__((constructor(102))) void init_exec_wrappers() {
  resolve_real_functions();
  const char* notes = env_value(environ, "PROFKIT_MEMPROF_NOTES");
  if (notes == nullptr || strlen(notes) >= kPathMax) return;
  memcpy(g_notes_path, notes, strlen(notes) + 1);
}

// `file` as execvp would find it: PATH searched (glibc's default when PATH is unset) for
// the first executable entry. False when there is none (the exec will fail by itself).
bool search_path(const char* file, char (&out)[kPathMax]) {
  if (strchr(file, '/') != nullptr) {
    if (strlen(file) >= kPathMax) return false;
    memcpy(out, file, strlen(file) + 1);
    return true;
  }
  const char* path = env_value(environ, "PATH");
  if (path == nullptr) path = "/bin:/usr/bin";
  const size_t file_len = strlen(file);
  for (const char* p = path;; ++p) {
    const char* end = strchrnul(p, ':');
    const size_t dir_len = static_cast<size_t>(end - p);
    if (dir_len + 1 + file_len < kPathMax) {
      size_t n = 0;
      if (dir_len == 0) {
        out[n++] = '.';
      } else {
        memcpy(out, p, dir_len);
        n = dir_len;
      }
      out[n++] = '/';
      memcpy(out + n, file, file_len + 1);
      if (access(out, X_OK) == 0) return true;
    }
    if (*end == '\0') return false;
    p = end;
  }
}

// Why the program at `path` will not load the runtime, or nullptr. A script is judged by
// its interpreter (one level, as the kernel allows), which `path` then names.
const char* unprofilable_reason(char (&path)[kPathMax], int depth = 0) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;  // exec fails, or runs something we cannot read: say nothing
  const char* reason = nullptr;
  struct stat st {};
  unsigned char head[256];
  const ssize_t got = fstat(fd, &st) == 0 ? pread(fd, head, sizeof head, 0) : -1;
  if (got >= 2 && head[0] == '#' && head[1] == '!') {
    close(fd);
    if (depth > 0) return nullptr;
    size_t i = 2, n = 0;
    while (i < static_cast<size_t>(got) && (head[i] == ' ' || head[i] == '\t')) ++i;
    while (i < static_cast<size_t>(got) && head[i] != ' ' && head[i] != '\t' && head[i] != '\n')
      path[n++] = static_cast<char>(head[i++]);
    path[n] = '\0';
    return n > 0 ? unprofilable_reason(path, 1) : nullptr;
  }
  if ((st.st_mode & S_ISUID && st.st_uid != getuid()) ||
      (st.st_mode & S_ISGID && st.st_gid != getgid())) {
    reason = "set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it";
  } else if (got >= static_cast<ssize_t>(sizeof(Elf64_Ehdr)) && memcmp(head, ELFMAG, SELFMAG) == 0 &&
             head[EI_CLASS] == ELFCLASS64) {
    Elf64_Ehdr eh;
    memcpy(&eh, head, sizeof eh);
    bool interp = false;
    Elf64_Phdr ph;
    for (uint32_t i = 0; i < eh.e_phnum && i < 256 && eh.e_phentsize == sizeof ph; ++i) {
      if (pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph)) !=
          static_cast<ssize_t>(sizeof ph))
        break;
      if (ph.p_type == PT_INTERP) interp = true;
    }
    if (!interp && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
      reason = "statically linked: LD_PRELOAD cannot load the heap profiler into it";
  }
  close(fd);
  return reason;
}

bool preloads_runtime(char* const* envp) {
  const char* preload = env_value(envp, "LD_PRELOAD");
  return preload != nullptr && strstr(preload, "libprofkit_memprof") != nullptr;
}

// One line "reason<TAB>absolute path" appended to the notes file (O_APPEND: one write per
// line, so processes writing at once do not interleave).
void note_if_unprofilable(const char* file, char* const* envp) {
  if (PROFKIT_RT_UNLIKELY(real_execve == nullptr)) resolve_real_functions();  // before our constructor
  // --follow-children=none: the user asked for no descendants, so there is nothing to explain.
  if (g_notes_path[0] == '\0' || file == nullptr ||
      strcmp(g.options.follow_children.value, "none") == 0)
    return;
  char path[kPathMax];
  size_t n = 0;
  if (file[0] != '/') {
    if (getcwd(path, sizeof path) == nullptr) return;
    n = strlen(path);
    path[n++] = '/';
  }
  if (n + strlen(file) >= kPathMax) return;
  memcpy(path + n, file, strlen(file) + 1);
  const char* reason = !preloads_runtime(envp)
                           ? "started with an environment without LD_PRELOAD"
                           : unprofilable_reason(path);
  if (reason == nullptr) return;
  const int fd = open(g_notes_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  LineWriter line;
  line.str(reason).str("\t").str(path);
  line.flush_to(fd);
  close(fd);
}

void note_searched(const char* file, char* const* envp) {
  if (PROFKIT_RT_UNLIKELY(real_execve == nullptr)) resolve_real_functions();
  if (g_notes_path[0] == '\0' || file == nullptr) return;
  char resolved[kPathMax];
  if (search_path(file, resolved)) note_if_unprofilable(resolved, envp);
}

// execl's arguments as an argv array on the stack (a NULL-terminated list), as glibc
// builds it; `extra` reads what follows the list (execle's environment).
#define PROFKIT_COLLECT_ARGS(arg0, argv, extra)                                       \
  va_list ap;                                                                          \
  va_start(ap, arg0);                                                                  \
  size_t argc = 1;                                                                     \
  {                                                                                    \
    va_list count;                                                                     \
    va_copy(count, ap);                                                                \
    while (va_arg(count, char*) != nullptr) ++argc;                                    \
    va_end(count);                                                                     \
  }                                                                                    \
  char** argv = static_cast<char**>(__builtin_alloca((argc + 1) * sizeof(char*)));     \
  argv[0] = const_cast<char*>(arg0);                                                   \
  for (size_t i = 1; i <= argc; ++i) argv[i] = va_arg(ap, char*);                      \
  extra;                                                                               \
  va_end(ap)

}  // namespace
}  // namespace profkit::rt

using namespace profkit::rt;

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                  char* const envp[]) {
  note_if_unprofilable(path, envp);
  return real_execve(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) {
  note_if_unprofilable(path, environ);
  return real_execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                   char* const envp[]) {
  note_searched(file, envp);
  return real_execvpe(file, argv, envp);
}

__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) {
  note_searched(file, environ);
  return real_execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) {
  PROFKIT_COLLECT_ARGS(arg, argv, (void)0);
  return execv(path, argv);
}

__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) {
  PROFKIT_COLLECT_ARGS(arg, argv, (void)0);
  return execvp(file, argv);
}

__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) {
  char* const* envp = nullptr;
  PROFKIT_COLLECT_ARGS(arg, argv, envp = va_arg(ap, char* const*));
  return execve(path, argv, envp);
}

__attribute__((visibility("default"))) int posix_spawn(
    pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
    const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  note_if_unprofilable(path, envp);
  return real_posix_spawn(pid, path, actions, attr, argv, envp);
}

__attribute__((visibility("default"))) int posix_spawnp(
    pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
    const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  note_searched(file, envp);
  return real_posix_spawnp(pid, file, actions, attr, argv, envp);
}

}  // extern "C"
