// The `profkit` command as a new user meets it: help, mistyped commands, and `profkit run`
// behaving like the program it runs (exit status, signals, shells' 126/127), run through
// /bin/sh with the real binaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <string>

#include "tests/support/harness.h"

namespace profkit::test {
namespace {

std::string pk() { return sh_quote(profkit_bin()); }

TEST(Help, EveryCommandHasHelpThroughHelpAndDashDashHelp) {
  const CommandResult top = run_ok(pk() + " help");
  EXPECT_NE(top.out.find("Heap profiler runtime"), std::string::npos) << top.out;
  for (const char* cmd :
       {"run", "merge", "show", "order", "report", "diff", "probes", "build-ids"}) {
    const CommandResult via_help = run_ok(pk() + " help " + cmd);
    const CommandResult via_flag = run_ok(pk() + " " + cmd + " --help");
    EXPECT_FALSE(via_help.out.empty()) << cmd;
    EXPECT_EQ(via_help.out, via_flag.out) << cmd;
  }
  // `help help` explains help: the top-level help, as `help` alone (it was "unknown command
  // 'help'; did you mean 'help'?").
  const CommandResult help_help = run(pk() + " help help");
  EXPECT_EQ(help_help.status, 0) << help_help.err;
  EXPECT_EQ(help_help.out, top.out);
  EXPECT_TRUE(help_help.err.empty()) << help_help.err;
}

TEST(Help, AMistypedCommandSuggestsTheNearest) {
  const CommandResult r = run(pk() + " mrege a.profraw");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "profkit: error: unknown command 'mrege'; did you mean 'merge'?\n");
  const CommandResult far = run(pk() + " help xyzzy");
  EXPECT_EQ(far.status, 1);
  EXPECT_NE(far.err.find("the commands are run, merge"), std::string::npos) << far.err;
}

TEST(Run, ExitsLikeAShellWhenTheProgramCannotRun) {
  const std::string dir = work_dir("cannot_run");
  EXPECT_EQ(run("cd " + dir + " && " + pk() + " run -- no-such-program-here").status, 127);
  write_file(dir + "/not_executable", "#!/bin/sh\nexit 0\n");
  EXPECT_EQ(run("cd " + dir + " && " + pk() + " run -- ./not_executable").status, 126);
}

TEST(Run, PassesTheProgramsExitStatusAndSignalThrough) {
  const std::string dir = work_dir("status");
  EXPECT_EQ(run("cd " + dir + " && " + pk() + " run -- sh -c 'exit 7'").status, 7);
  // The program killing itself with SIGTERM: profkit dies of SIGTERM too (143 in sh).
  const CommandResult r = run("cd " + dir + " && " + pk() + " run -- sh -c 'kill -TERM $$'");
  EXPECT_EQ(r.status, 143) << r.err;
}

TEST(Run, ForwardsTerminationSignalsToTheProgram) {
  const std::string dir = work_dir("forward");
  // profkit runs a shell that records the signal it gets; profkit itself is sent SIGTERM
  // (as a supervisor would). Without forwarding the shell is orphaned and never sees it.
  const std::string script =
      "trap 'echo got-term > " + dir + "/seen; exit 3' TERM; i=0; "
      "while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done";
  const CommandResult r = run("cd " + dir + " && (" + pk() + " run -- sh -c " +
                              sh_quote(script) + " & p=$!; sleep 1; kill -TERM $p; wait $p)");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(read_file(dir + "/seen"), "got-term\n");
}

TEST(Run, SaysHowManyProfilesWereWrittenAndWhere) {
  const std::string dir = work_dir("summary");
  const CommandResult r =
      run_ok("cd " + dir + " && " + pk() + " run -o " + dir + "/p.raw -- sh -c 'ls > /dev/null'");
  EXPECT_NE(r.err.find("profkit run: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + "/p.raw"), std::string::npos) << r.err;
}

// A program that allocates, waits (with a second argument) and exits with argv[1].
std::string alloc_exit_program(const std::string& dir) {
  write_file(dir + "/alloc_exit.c",
             "#include <stdlib.h>\n#include <unistd.h>\n"
             "int main(int argc, char** argv) {\n"
             "  for (int i = 0; i < 2000; i++) { void* p = malloc(16 + i); if (i % 2) free(p); }\n"
             "  if (argc > 2) usleep(300000);\n"
             "  return atoi(argv[1]);\n}\n");
  run_ok("gcc -O1 -o " + dir + "/alloc_exit " + dir + "/alloc_exit.c");
  return dir + "/alloc_exit";
}

// Writing the profile past `ulimit -f` used to kill the program with SIGXFSZ (exit 153) and
// leave a .tmp file; a closed pipe as the profile's stdout killed it with SIGPIPE (141).
TEST(Run, AProfileThatCannotBeWrittenLeavesTheExitStatusAlone) {
  const std::string dir = work_dir("sigs");
  const std::string prog = alloc_exit_program(dir);
  CommandResult r = run("cd " + dir + " && sh -c 'ulimit -f 1; exec " + pk() + " run -o " + dir +
                        "/p.raw -- " + prog + " 5'");
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("file too large"), std::string::npos) << r.err;
  EXPECT_EQ(run("ls " + dir + " | grep -c tmp").out, "0\n");
  r = run("(" + pk() + " run --options=log_path=stdout -- " + prog +
          " 3 slowly; echo status=$? >&2) | sh -c 'exec 0<&-; sleep 1'");
  EXPECT_NE(r.err.find("status=3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken pipe"), std::string::npos) << r.err;
}

// A profile output that is not a regular file stays what it is. The runtime wrote
// PATH.tmp.PID and renamed it over the output, so a character device, a FIFO or a symlink
// given as the output became a regular file. Now a device or FIFO is written directly and a
// symlink is followed: the file at its end is replaced, the links stay.
TEST(Run, AnOutputThatIsADeviceFifoOrSymlinkStaysOne) {
  const std::string dir = work_dir("special_outputs");
  const std::string prog = alloc_exit_program(dir);
  const std::string d = sh_quote(dir);
  run_ok("cd " + d + " && rm -rf full fifo fifo.out links real && mkdir links real && "
         "mknod full c 1 7 && mkfifo fifo && ln -s ../real/hop links/p.raw && "
         "ln -s target.raw real/hop");
  // The private /dev/full: every write fails with ENOSPC.
  CommandResult r = run("cd " + d + " && " + pk() + " run -o " + dir + "/full -- " + prog + " 3");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("no space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(run_ok("stat -c %F " + d + "/full").out, "character special file\n");
  // A FIFO with a reader: the shell holds it open read-write while the program runs (so
  // nothing waits), then reads what was written once the program is done.
  r = run("cd " + d + " && exec 3<>fifo && " + pk() + " run -o " + dir + "/fifo -- " + prog +
          " 4; s=$?; exec 4<fifo 3>&-; cat <&4 > fifo.out; exit $s");
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(run_ok("stat -c %F " + d + "/fifo").out, "fifo\n");
  EXPECT_EQ(read_file(dir + "/fifo.out").substr(0, 8), std::string("\x81rforpm\xff", 8));
  // A chain of relative symlinks: the target at its end gets the profile.
  r = run("cd " + d + " && " + pk() + " run -o " + dir + "/links/p.raw -- " + prog + " 5");
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_EQ(run("cd " + d + " && test -L links/p.raw && test -L real/hop && test -f real/target.raw"
                " && test ! -L real/target.raw && echo ok").out, "ok\n");
  EXPECT_EQ(read_file(dir + "/real/target.raw").substr(0, 8), std::string("\x81rforpm\xff", 8));
  EXPECT_EQ(run("cd " + d + " && ls links real | grep -c tmp").out, "0\n");
  // output= through the runtime alone: the same.
  r = run("cd " + d + " && MEMPROF_OPTIONS=output=" + dir + "/full LD_PRELOAD=" +
          runtime_dir() + "/libprofkit_memprof.so " + prog + " 6");
  EXPECT_EQ(r.status, 6) << r.err;
  EXPECT_EQ(run_ok("stat -c %F " + d + "/full").out, "character special file\n");
  EXPECT_EQ(run("cd " + d + " && ls | grep -c tmp").out, "0\n");
  // A link to /proc/self/fd/1: the profile goes to the program's stdout (here a file),
  // which stays the file the program writes.
  r = run("cd " + d + " && rm -f fd1 fd1.out && ln -s /proc/self/fd/1 fd1 && MEMPROF_OPTIONS=output=" +
          dir + "/fd1 LD_PRELOAD=" + runtime_dir() + "/libprofkit_memprof.so " + prog + " 7 > fd1.out");
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_EQ(run("cd " + d + " && test -L fd1 && echo ok").out, "ok\n");
  EXPECT_EQ(read_file(dir + "/fd1.out").substr(0, 8), std::string("\x81rforpm\xff", 8));
}

// A program that prints with stdio (buffered: stdout is a pipe or a file), allocates from
// 4096 call paths (a profile of ~1 MB) and exits with 7.
std::string printing_program(const std::string& dir) {
  write_file(dir + "/printing.c",
             "#include <stdio.h>\n#include <stdlib.h>\n"
             "static void* keep[4096];\n"
             "__attribute__((noinline)) void rec(int d, int path) {\n"
             "  if (d == 0) { keep[path] = malloc(16 + path % 64); return; }\n"
             "  if (path & 1) rec(d - 1, path >> 1); else rec(d - 1, path >> 1);\n"
             "  __asm__ volatile(\"\" ::: \"memory\");\n}\n"
             "int main(void) { for (int i = 0; i < 4096; i++) rec(12, i);\n"
             "  printf(\"done 4096\\n\"); return 7; }\n");
  run_ok("gcc -O1 -fno-omit-frame-pointer -o " + dir + "/printing " + dir + "/printing.c");
  return dir + "/printing";
}

// log_path=stdout: the exit profile was written to fd 1 before exit() flushed the program's
// own stdio buffer, so the program's later flush died of SIGPIPE (`| head -c 10`: 141) or
// SIGXFSZ (`ulimit -f`: 153) and its output was lost. Its output now comes first.
TEST(Run, LogPathStdoutComesAfterTheProgramsOwnOutput) {
  const std::string dir = work_dir("stdout_order");
  const std::string prog = printing_program(dir);
  const std::string preload = "LD_PRELOAD=" + runtime_dir() + "/libprofkit_memprof.so ";
  CommandResult r = run("cd " + sh_quote(dir) + " && (ulimit -f 100; MEMPROF_OPTIONS=log_path=stdout " +
                        preload + prog + " > out.txt; echo status=$?)");
  EXPECT_NE(r.out.find("status=7"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(read_file(dir + "/out.txt").substr(0, 10), "done 4096\n");
  r = run("(MEMPROF_OPTIONS=log_path=stdout " + preload + prog +
          "; echo status=$? >&2) | head -c 10");
  EXPECT_EQ(r.out, "done 4096\n");
  EXPECT_NE(r.err.find("status=7"), std::string::npos) << r.err;
  r = run("(" + pk() + " run --options=log_path=stdout -- " + prog + "; echo status=$? >&2) | head -c 10");
  EXPECT_EQ(r.out, "done 4096\n");
  EXPECT_NE(r.err.find("status=7"), std::string::npos) << r.err;
}

// dump_signal: the program installing its own handler for the signal after start-up (with
// signal() or sigaction()) replaced the runtime's, and no dump happened any more. Now the
// runtime dumps and chains to the program's disposition, which sigaction still reports.
TEST(Run, DumpSignalStillDumpsAfterTheProgramSetsItsOwnHandler) {
  const std::string dir = work_dir("dumpsig_later");
  write_file(dir + "/later.c",
             "#include <signal.h>\n#include <stdlib.h>\n#include <string.h>\n"
             "static volatile sig_atomic_t got = 0;\n"
             "static void h(int s) { (void)s; got = 1; }\n"
             "static void hi(int s, siginfo_t* i, void* c) { (void)s; (void)i; (void)c; got = 2; }\n"
             "int main(int argc, char** argv) {\n"
             "  for (int i = 0; i < 100; i++) free(malloc(32 + i));\n"
             "  const char* m = argv[1];\n"
             "  struct sigaction sa, q;\n  memset(&sa, 0, sizeof sa);\n"
             "  if (!strcmp(m, \"signal\")) signal(SIGUSR1, h);\n"
             "  if (!strcmp(m, \"sigaction\")) { sa.sa_sigaction = hi; sa.sa_flags = SA_SIGINFO;"
             " sigaction(SIGUSR1, &sa, 0); }\n"
             "  if (!strcmp(m, \"default\")) signal(SIGUSR1, SIG_DFL);\n"
             "  if (!strcmp(m, \"ignore\")) signal(SIGUSR1, SIG_IGN);\n"
             "  sigaction(SIGUSR1, 0, &q);\n"
             "  int shown = !strcmp(m, \"signal\") ? q.sa_handler == h\n"
             "            : !strcmp(m, \"sigaction\") ? (q.sa_flags & SA_SIGINFO) && q.sa_sigaction == hi\n"
             "            : !strcmp(m, \"ignore\") ? q.sa_handler == SIG_IGN\n"
             "            : !(q.sa_flags & SA_SIGINFO) && q.sa_handler == SIG_DFL;\n"
             "  if (!shown) return 99;\n"
             "  raise(SIGUSR1);\n"
             "  return 40 + got;\n}\n");
  run_ok("gcc -O1 -o " + dir + "/later " + dir + "/later.c");
  auto written = [](const std::string& err) {
    size_t n = 0;
    for (size_t at = err.find("profile written"); at != std::string::npos;
         at = err.find("profile written", at + 1))
      ++n;
    return n;
  };
  auto under = [&](const std::string& mode) {
    return run("cd " + sh_quote(dir) + " && MEMPROF_OPTIONS=dump_signal=10:verbosity=2 LD_PRELOAD=" +
               runtime_dir() + "/libprofkit_memprof.so ./later " + mode);
  };
  CommandResult r = under("signal");
  EXPECT_EQ(r.status, 41) << r.err;
  EXPECT_EQ(written(r.err), 2u) << r.err;  // the signal's dump and the exit profile
  r = under("sigaction");
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(written(r.err), 2u) << r.err;
  r = under("ignore");
  EXPECT_EQ(r.status, 40) << r.err;
  EXPECT_EQ(written(r.err), 2u) << r.err;
  r = under("default");  // SIGUSR1's default action ends it, after the dump
  EXPECT_EQ(r.status, 128 + 10) << r.err;
  EXPECT_EQ(written(r.err), 1u) << r.err;
}

// dump_signal: refused for signals that cannot be caught or that the program needs; after
// the dump the signal does what it would have done (the program's handler, or the default
// action: SIGTERM still terminates, SIGWINCH is still ignored).
TEST(Run, DumpSignalKeepsWhatTheSignalDoes) {
  const std::string dir = work_dir("dumpsig");
  write_file(dir + "/ds_prog.c",
             "#include <signal.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
             "static volatile sig_atomic_t got = 0;\n"
             "static void on_usr1(int sig) { (void)sig; got = 1; }\n"
             "int main(int argc, char** argv) {\n"
             "  if (argc > 1 && strcmp(argv[1], \"handler\") == 0) signal(SIGUSR1, on_usr1);\n"
             "  for (int i = 0; i < 1000; i++) { void* p = malloc(32 + i); if (i % 3) free(p); }\n"
             "  for (int i = 0; i < 150 && !got; i++) usleep(10000);\n"
             "  return got ? 42 : 7;\n}\n");
  run_ok("gcc -O1 -o " + dir + "/ds_prog " + dir + "/ds_prog.c");
  auto with_signal = [&](const std::string& option, const std::string& arg, const char* kill_sig,
                         const std::string& out) {
    return run("cd " + dir + " && (" + pk() + " run --options=dump_signal=" + option + " -o " +
               dir + "/" + out + " -- ./ds_prog " + arg + " & sleep 0.5; pkill -" + kill_sig +
               " -x ds_prog; wait $!; echo status=$?)");
  };
  CommandResult r = run("cd " + dir + " && " + pk() + " run --options=dump_signal=9 -- ./ds_prog");
  EXPECT_EQ(r.status, 7);
  EXPECT_NE(r.err.find("dump_signal=9 is not a signal"), std::string::npos) << r.err;
  r = run("cd " + dir + " && " + pk() + " run --options=dump_signal=11 -- ./ds_prog");
  EXPECT_NE(r.err.find("dump_signal=11 is not a signal"), std::string::npos) << r.err;
  r = with_signal("15", "", "TERM", "term.raw");
  EXPECT_NE(r.out.find("status=143"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("term.raw"), std::string::npos) << r.err;  // dumped before ending
  r = with_signal("10", "handler", "USR1", "usr1.raw");
  EXPECT_NE(r.out.find("status=42"), std::string::npos) << r.out << r.err;  // handler ran
  EXPECT_NE(r.err.find("usr1.raw"), std::string::npos) << r.err;
  r = with_signal("28", "", "WINCH", "winch.raw");
  EXPECT_NE(r.out.find("status=7"), std::string::npos) << r.out << r.err;  // still ignored
}

// Allocation-only mode reserves no shadow memory it does not need: under `ulimit -v` the
// runtime's 16 TiB shadow reservation failed and ended the program with exit 1.
TEST(Run, WorksUnderAnAddressSpaceLimit) {
  const std::string dir = work_dir("ulimitv");
  const std::string prog = alloc_exit_program(dir);
  // The limit applies to the program only (an ASan build of profkit cannot start under it).
  const CommandResult r = run("cd " + dir + " && " + pk() + " run -o " + dir +
                              "/p.raw -- sh -c 'ulimit -v 2000000; exec " + prog + " 4'");
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.err.find("1 profile written"), std::string::npos) << r.err;
  // Tighter limits: the thread states' 256 MiB slot tables could not be reserved there, so
  // no thread got a state, the profile had no allocation and the exit warned about
  // max_threads.
  // (gcc -O1 removes alloc_exit's blocks, which nothing reads; this program keeps its own.)
  const std::string keeper = printing_program(dir);
  for (const char* limit : {"300000", "200000"}) {
    const std::string out = dir + "/v" + limit + ".raw";
    const CommandResult t = run("cd " + dir + " && " + pk() + " run -o " + out +
                                " -- sh -c 'ulimit -v " + limit + "; exec " + keeper + "' > /dev/null");
    EXPECT_EQ(t.status, 7) << limit << t.err;
    EXPECT_EQ(t.err.find("max_threads"), std::string::npos) << limit << t.err;
    const CommandResult rep = run_ok(pk() + " report " + out + " --profiled-binary " + keeper);
    EXPECT_EQ(rep.out.find(" 0 allocations"), std::string::npos) << limit << rep.out;
    EXPECT_EQ(rep.out.find(" 0 contexts"), std::string::npos) << limit << rep.out;
  }
}

// A program whose malloc is someone else's (here its own; compiler-rt's memprof runtime
// linked into a -fmemory-profile build is the usual case) used to give an empty profile
// without a word.
TEST(Run, WarnsWhenTheProgramsMallocIsNotProfkits) {
  const std::string dir = work_dir("ownmalloc");
  write_file(dir + "/own.c",
             "#include <stddef.h>\n"
             "extern void *__libc_malloc(size_t), __libc_free(void *);\n"
             "extern void *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);\n"
             "void *malloc(size_t n) { return __libc_malloc(n); }\n"
             "void free(void *p) { __libc_free(p); }\n"
             "void *calloc(size_t a, size_t b) { return __libc_calloc(a, b); }\n"
             "void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }\n"
             "int main(void) { for (int i = 0; i < 100; i++) free(malloc(10 + i)); return 6; }\n");
  run_ok("gcc -O1 -o " + dir + "/own " + dir + "/own.c");
  const CommandResult r = run("cd " + dir + " && " + pk() + " run -o " + dir + "/p.raw -- ./own");
  EXPECT_EQ(r.status, 6);
  EXPECT_NE(r.err.find("malloc is not profkit's"), std::string::npos) << r.err;
  const std::string prog = alloc_exit_program(dir);
  const CommandResult plain = run(pk() + " run -o " + dir + "/q.raw -- " + prog + " 0");
  EXPECT_EQ(plain.err.find("not profkit's"), std::string::npos) << plain.err;
}

// Another heap profiler in the process (compiler-rt's memprof runtime linked into a
// -fmemory-profile build beside ours) writes memprof.profraw.<pid> at exit; profkit's
// runtime then renamed its own, empty, profile over it. Here the program's own malloc and
// its atexit handler (which runs before the runtime's) stand for that runtime.
TEST(Run, AnotherRuntimesProfileIsNeverReplaced) {
  const std::string dir = work_dir("other_runtime");
  write_file(dir + "/other.c",
             "#include <stddef.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
             "extern void *__libc_malloc(size_t), __libc_free(void *);\n"
             "extern void *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);\n"
             "void *malloc(size_t n) { return __libc_malloc(n); }\n"
             "void free(void *p) { __libc_free(p); }\n"
             "void *calloc(size_t a, size_t b) { return __libc_calloc(a, b); }\n"
             "void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }\n"
             "static void write_theirs(void) { char name[64];\n"
             "  snprintf(name, sizeof name, \"memprof.profraw.%d\", (int)getpid());\n"
             "  FILE* f = fopen(name, \"w\"); fputs(\"theirs\\n\", f); fclose(f); }\n"
             "int main(void) { atexit(write_theirs); printf(\"%d\\n\", (int)getpid());\n"
             "  for (int i = 0; i < 100; i++) free(malloc(10 + i)); return 6; }\n");
  run_ok("gcc -O1 -o " + dir + "/other " + dir + "/other.c");
  run_ok("rm -f " + dir + "/memprof.profraw.*");
  const CommandResult r = run("cd " + sh_quote(dir) + " && LD_PRELOAD=" + runtime_dir() +
                              "/libprofkit_memprof.so ./other");
  EXPECT_EQ(r.status, 6) << r.err;
  const std::string pid = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(read_file(dir + "/memprof.profraw." + pid), "theirs\n");
  EXPECT_EQ(run("ls " + sh_quote(dir) + " | grep -c tmp").out, "0\n");
  // One line says what happened.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("malloc is not profkit's"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("left as it was"), std::string::npos) << r.err;
  // A file the process wrote itself (a dump_signal dump) is still replaced by its next
  // profile: the exit profile used to be refused as the other runtime's.
  write_file(dir + "/again.c",
             "#include <signal.h>\n#include <stddef.h>\n"
             "extern void *__libc_malloc(size_t), __libc_free(void *);\n"
             "void *malloc(size_t n) { return __libc_malloc(n); }\n"
             "void free(void *p) { __libc_free(p); }\n"
             "int main(void) { raise(SIGWINCH); return 3; }\n");
  run_ok("gcc -O1 -o " + dir + "/again " + dir + "/again.c");
  const CommandResult a = run("cd " + sh_quote(dir) + " && MEMPROF_OPTIONS=dump_signal=28:verbosity=2 "
                              "LD_PRELOAD=" + runtime_dir() + "/libprofkit_memprof.so ./again");
  EXPECT_EQ(a.status, 3) << a.err;
  EXPECT_EQ(a.err.find("left as it was"), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("profile written"), a.err.rfind("profile written")) << a.err;  // two
}

// --follow-children without --output: the option was ignored, and every descendant wrote
// a profile.
TEST(Run, FollowChildrenChoosesWithoutOutputToo) {
  const std::string dir = work_dir("follow_no_o");
  alloc_exit_program(dir);
  write_file(dir + "/spawner.c",
             "#include <stdlib.h>\n"
             "int main(void) { for (int i = 0; i < 50; i++) free(malloc(64));\n"
             "  system(\"./alloc_exit 0\"); system(\"./alloc_exit 0\"); return 0; }\n");
  run_ok("gcc -O1 -o " + dir + "/spawner " + dir + "/spawner.c");
  auto profiles = [&](const std::string& flags) {
    run_ok("rm -f " + dir + "/memprof.profraw.*");
    const CommandResult r = run_ok("cd " + dir + " && " + pk() + " run " + flags + " -- ./spawner");
    return run("ls " + dir + " | grep -c '^memprof.profraw.[0-9]*$'").out + r.err;
  };
  EXPECT_EQ(profiles("").substr(0, 2), "3\n");
  EXPECT_EQ(profiles("--follow-children=none").substr(0, 2), "1\n");
  EXPECT_EQ(profiles("--follow-children='^zzz'").substr(0, 2), "1\n");
  EXPECT_EQ(profiles("--follow-children='^alloc'").substr(0, 2), "3\n");
}

// --follow-children and --output patterns over a process tree: the started program (which
// allocates) runs two children through system(3).
TEST(Run, FollowChildrenAndOutputPatternsChooseWhoWritesWhat) {
  const std::string dir = work_dir("follow");
  const std::string child = alloc_exit_program(dir);
  write_file(dir + "/spawner.c",
             "#include <stdlib.h>\n"
             "int main(void) { for (int i = 0; i < 50; i++) free(malloc(64));\n"
             "  system(\"./alloc_exit 0\"); system(\"./alloc_exit 0\"); return 0; }\n");
  run_ok("gcc -O1 -o " + dir + "/spawner " + dir + "/spawner.c");
  auto written = [&](const std::string& flags, const std::string& out) {
    const CommandResult r =
        run_ok("cd " + dir + " && " + pk() + " run " + flags + " -o " + dir + "/" + out + " -- ./spawner");
    return r.err;
  };
  EXPECT_NE(written("", "all").find("3 profiles written"), std::string::npos);
  EXPECT_NE(written("--follow-children=none", "none").find("1 profile written"), std::string::npos);
  EXPECT_NE(written("--follow-children='^alloc'", "re").find("3 profiles written"), std::string::npos);
  EXPECT_NE(written("--follow-children='^zzz'", "re2").find("1 profile written"), std::string::npos);
  const std::string pattern = written("", "'p.%e.%p'");
  EXPECT_NE(pattern.find("3 profiles written"), std::string::npos) << pattern;
  EXPECT_NE(pattern.find("/p.spawner."), std::string::npos) << pattern;
  EXPECT_NE(pattern.find("/p.alloc_exit."), std::string::npos) << pattern;
  EXPECT_EQ(run(pk() + " run --follow-children='(' -- true").status, 1);
}

// Programs change directory (daemons to /, `make -C`, a shell's cd before it runs a tool):
// the default profiles still go to the directory `profkit run` started in, where its
// summary looks. They went to each process's directory at exit, and the summary said no
// profile was written. A user's own log_path still wins.
TEST(Run, DefaultProfilesStayInTheStartingDirectory) {
  const std::string dir = work_dir("chdir");
  run_ok("mkdir -p " + dir + "/start " + dir + "/elsewhere " + dir + "/mine");
  write_file(dir + "/chdir.c",
             "#include <stdlib.h>\n#include <unistd.h>\n"
             "int main(int argc, char** argv) {\n"
             "  for (int i = 0; i < 100; i++) free(malloc(32));\n"
             "  return chdir(argv[1]) == 0 ? 0 : 9;\n}\n");
  run_ok("gcc -O1 -o " + dir + "/chdir " + dir + "/chdir.c");
  const std::string prog = dir + "/chdir " + dir + "/elsewhere";
  CommandResult r = run_ok("cd " + dir + "/start && " + pk() + " run -- " + prog);
  EXPECT_NE(r.err.find("1 profile written"), std::string::npos) << r.err;
  EXPECT_EQ(run_ok("ls " + dir + "/start | grep -c '^memprof.profraw.[0-9]*$'").out, "1\n");
  EXPECT_EQ(run("ls " + dir + "/elsewhere | grep -c memprof").out, "0\n");
  r = run_ok("cd " + dir + "/start && " + pk() + " run --options=log_path=" + dir +
             "/mine/p -- " + prog);
  EXPECT_EQ(run_ok("ls " + dir + "/mine | grep -c '^p.[0-9]*$'").out, "1\n");
  // A directory name with a quote in it.
  run_ok("mkdir -p \"" + dir + "/it's\"");
  r = run_ok("cd \"" + dir + "/it's\" && " + pk() + " run -- " + prog);
  EXPECT_NE(r.err.find("1 profile written"), std::string::npos) << r.err;
  r = run_ok("cd \"" + dir + "/it's\" && " + pk() + " run -o p.raw -- " + prog);
  EXPECT_EQ(run_ok("ls \"" + dir + "/it's\" | grep -c '^p.raw$'").out, "1\n");
}

TEST(Run, WarnsThatAStaticProgramCannotBeProfiled) {
  const std::string dir = work_dir("static");
  write_file(dir + "/st.c", "int main(void) { return 5; }\n");
  run_ok("gcc -static -o " + dir + "/st " + dir + "/st.c");
  const CommandResult r = run("cd " + dir + " && " + pk() + " run -- ./st");
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.err.find("statically linked"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no profile was written"), std::string::npos) << r.err;
}


// Descendants that inherit the preload but cannot load it wrote no profile, and nobody said
// so: a static program run through system(3) (the shell execs it) and posix_spawn, a
// script whose interpreter is static, a program started with an environment without
// LD_PRELOAD. One warning per program, with how many times it was started.
TEST(Run, NamesTheDescendantsThatCannotBeProfiled) {
  const std::string dir = work_dir("unfollowed");
  write_file(dir + "/st.c", "int main(void) { return 0; }\n");
  run_ok("gcc -static -o " + dir + "/st " + dir + "/st.c");
  write_file(dir + "/script", "#!" + dir + "/st\n");
  run_ok("chmod +x " + dir + "/script");
  alloc_exit_program(dir);
  write_file(dir + "/spawner.c",
             "#include <spawn.h>\n#include <stdlib.h>\n#include <sys/wait.h>\n"
             "#include <unistd.h>\nextern char** environ;\n"
             "static void wait_for(pid_t p) { int s; waitpid(p, &s, 0); }\n"
             "int main(void) {\n"
             "  free(malloc(64));\n"
             "  system(\"./st\"); system(\"./st\");\n"
             "  pid_t p; char* argv[] = {\"st\", 0};\n"
             "  if (posix_spawnp(&p, \"./st\", 0, 0, argv, environ) == 0) wait_for(p);\n"
             "  system(\"./script\");\n"
             "  char* bare[] = {0};\n"
             "  if ((p = fork()) == 0) { execle(\"./alloc_exit\", \"alloc_exit\", \"0\", (char*)0, bare); _exit(9); }\n"
             "  wait_for(p);\n"
             "  if ((p = fork()) == 0) { execl(\"./alloc_exit\", \"alloc_exit\", \"0\", (char*)0); _exit(9); }\n"
             "  wait_for(p);\n"
             "  return 0; }\n");
  run_ok("gcc -O1 -o " + dir + "/spawner " + dir + "/spawner.c");
  const CommandResult r = run("cd " + dir + " && " + pk() + " run -o " + dir + "/p.raw -- ./spawner");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(dir + "/st: warning: statically linked: LD_PRELOAD cannot load the heap profiler "
                              "into it, so it wrote no profile (started 4 times)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(dir + "/alloc_exit: warning: started with an environment without "
                             "LD_PRELOAD, so it wrote no profile\n"),
            std::string::npos)
      << r.err;
  // The script is its interpreter's fourth start; the dynamic program exec'd with the
  // inherited environment is profiled and gets no note.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3) << r.err;  // two notes, the summary
  // --follow-children=none asked for no descendants: nothing to explain.
  const CommandResult none = run("cd " + dir + " && " + pk() +
                                 " run --follow-children=none -o " + dir + "/q.raw -- ./spawner");
  EXPECT_EQ(none.err.find("wrote no profile"), std::string::npos) << none.err;
}

// ---- never overwrite an input ---------------------------------------------------------

// A small raw IR-PGO profile and a raw memprof profile with their program, made once.
struct Inputs {
  std::string dir, profraw, memprof, binary;
};
const Inputs& inputs() {
  static const Inputs made = [] {
    Inputs in;
    in.dir = work_dir("inputs");
    const std::string src = in.dir + "/p.c";
    write_file(src,
               "#include <stdlib.h>\n"
               "int main(int c, char** v) { char* p = malloc(40 + c); p[0] = 1; free(p); "
               "return 0; }\n");
    run_ok("cd " + in.dir + " && clang-22 -O1 -fprofile-generate p.c -o pgo && "
           "LLVM_PROFILE_FILE=p.profraw ./pgo");
    in.profraw = in.dir + "/p.profraw";
    in.binary = in.dir + "/heap";
    run_ok("cd " + in.dir + " && clang-22 -g -fno-omit-frame-pointer p.c -o heap && " + pk() +
           " run -o heap.raw -- ./heap");
    in.memprof = in.dir + "/heap.raw";
    return in;
  }();
  return made;
}

// Runs `command`; it must fail with one line naming the clash and leave `input` as it was.
void expect_refused(const std::string& command, const std::string& input) {
  const std::string before = read_file(input);
  const CommandResult r = run(command);
  EXPECT_EQ(r.status, 1) << command << "\n" << r.err;
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << command << "\n" << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_TRUE(read_file(input) == before) << command << " changed " << input;
}

TEST(NoOverwrite, MergeShowReportDiffRefuseToWriteOverAnInput) {
  const Inputs& in = inputs();
  const std::string link = in.dir + "/link.profraw";
  run_ok("ln -sf p.profraw " + link);
  expect_refused(pk() + " merge " + in.profraw + " -o " + link, in.profraw);
  expect_refused(pk() + " merge " + in.profraw + " -o " + in.dir + "/./p.profraw", in.profraw);
  expect_refused(pk() + " show --all-functions " + in.profraw + " -o " + in.profraw, in.profraw);
  expect_refused(pk() + " order " + in.profraw + " -o " + link, in.profraw);
  const std::string bin = " --profiled-binary " + in.binary;
  expect_refused(pk() + " report " + in.memprof + bin + " --html " + in.memprof, in.memprof);
  expect_refused(pk() + " report " + in.memprof + bin + " -o " + in.binary, in.binary);
  expect_refused(pk() + " diff " + in.memprof + " " + in.memprof + bin + " -o " + in.memprof,
                 in.memprof);
  expect_refused(pk() + " merge " + in.memprof + bin + " -o " + in.binary, in.binary);
}

// The profiled binary is an input however it was found: beside the profile, in a directory
// given to --profiled-binary. Every binary opened for symbolization is checked.
TEST(NoOverwrite, ABinaryFoundForSymbolizationIsAnInputToo) {
  const Inputs& in = inputs();
  const std::string dir = work_dir("no_overwrite_found_binary");
  run_ok("cp " + in.binary + " " + in.memprof + " " + dir + "/");
  const std::string raw = dir + "/heap.raw", binary = dir + "/heap";
  expect_refused("cd " + dir + " && " + pk() + " report heap.raw -o heap", binary);
  expect_refused("cd " + dir + " && " + pk() + " report " + raw + " --html " + binary, binary);
  expect_refused(pk() + " report " + raw + " --profiled-binary=" + dir + " --html " + binary,
                 binary);
  expect_refused(pk() + " merge --profiled-binary=" + dir + " " + raw + " -o " + binary, binary);
  expect_refused(pk() + " show --memory --profiled-binary=" + dir + " " + raw + " -o " + binary,
                 binary);
  expect_refused("cd " + dir + " && " + pk() + " diff heap.raw heap.raw -o heap", binary);
}

TEST(NoOverwrite, TwoExportsToOneFileOrBothToStdoutAreRefused) {
  const Inputs& in = inputs();
  const std::string bin = " --profiled-binary " + in.binary;
  const std::string out = in.dir + "/both.out";
  CommandResult r = run(pk() + " report " + in.memprof + bin + " --html " + out + " --pprof " +
                        in.dir + "/../inputs/both.out");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("two outputs would be written"), std::string::npos) << r.err;
  EXPECT_FALSE(file_exists(out));
  r = run(pk() + " report " + in.memprof + bin + " --html - --dhat -");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("two outputs go to standard output"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // One of them through a link to /proc/self/fd/1 (a private /dev/stdout): the same file.
  const std::string link = in.dir + "/mystdout";
  run_ok("ln -sfn /proc/self/fd/1 " + link);
  r = run(pk() + " report " + in.memprof + bin + " --html " + link + " --pprof - | cat");
  EXPECT_NE(r.err.find("two outputs go to standard output"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  // Alone, the export through the link goes to the pipe, as --html - would.
  r = run(pk() + " report " + in.memprof + bin + " --html " + link + " | cat");
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 200);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// An endless input (a device) or a FIFO that never ends ends in one error line after a
// bounded read, under a memory limit, for every command that reads profiles.
TEST(UnboundedInput, EndlessDevicesGiveOneErrorUnderAMemoryLimit) {
#if defined(__SANITIZE_ADDRESS__)
  const std::string limit;  // ASan reserves terabytes of shadow: no address-space limit there
#else
  const std::string limit = "ulimit -v 1500000; ";
#endif
  for (const std::string cmd : {"show /dev/zero", "show --sample /dev/zero",
                                "merge --sample /dev/zero -o -", "overlap --sample /dev/zero /dev/zero",
                                "report /dev/zero"}) {
    const CommandResult r =
        run(limit + "timeout 60 " + sh_quote(profkit_bin()) + " " + cmd + " >/dev/null");
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("/dev/zero"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("pipe or device"), std::string::npos) << cmd << ": " << r.err;
  }
  // An IR-PGO merge decides from an input's first 8 bytes (as LLVM does) whether it can be
  // a profile at all: zeros are no magic and no text, so it stops there, whatever follows:
  // a device, or a sparse file larger than the address space allowed (it was read whole, or
  // failed to allocate its buffer).
#if defined(__SANITIZE_ADDRESS__)
  const std::string small_limit;
#else
  const std::string small_limit = "ulimit -v 300000; ";  // less than one 256 MiB stream read
#endif
  const std::string dir = work_dir("unbounded_sparse");
  run_ok("truncate -s 4G " + dir + "/sparse.bin");
  for (const std::string& in : {std::string("/dev/zero"), dir + "/sparse.bin"}) {
    const CommandResult r = run(small_limit + "timeout 60 " + sh_quote(profkit_bin()) + " merge " + in +
                                " -o " + dir + "/out.profdata");
    EXPECT_EQ(r.status, 1) << in << ": " << r.err;
    EXPECT_EQ(r.err, in + ":0: error: expected a raw, indexed or text IR-PGO profile (bad magic)\n")
        << in;
    EXPECT_FALSE(file_exists(dir + "/out.profdata"));
  }
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// Nonsense numbers are refused before anything is read (the input does not even exist).
TEST(Options, NonsenseNumbersGetAClearError) {
  for (const std::string args : {"report p --top=-1", "report p --width=0", "diff a b --top=-3",
                                 "report p --ave-lifetime-cold-threshold=-2"}) {
    const CommandResult r = run(sh_quote(profkit_bin()) + " " + args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find("not in range"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("cannot open"), std::string::npos) << args << ": " << r.err;
    // One short line: no "Run with --help" line, no range ending in DBL_MAX's 309 digits.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_LT(r.err.size(), 160u) << args << ": " << r.err;
  }
}

// A --profiled-binary whose build id the profile does not name: one line with both ids.
TEST(Report, AMismatchedBinaryNamesBothBuildIds) {
  const Inputs& in = inputs();
  const std::string dir = work_dir("report_mismatched_binary");
  write_file(dir + "/other.c", "int main(void) { return 0; }\n");
  run_ok("cd " + dir + " && clang-22 -g other.c -o other");
  const std::string ids = run_ok(pk() + " build-ids " + in.binary + " " + dir + "/other").out;
  // "elf\tBUILD-ID\tPATH" per file.
  const std::string needed = ids.substr(ids.find('\t') + 1, 40);
  const std::string second = ids.substr(ids.find('\n') + 1);
  const std::string has = second.substr(second.find('\t') + 1, 40);
  ASSERT_EQ(needed.size(), 40u) << ids;
  ASSERT_EQ(has.size(), 40u) << ids;
  for (const std::string& cmd : {std::string(" report "), " merge -o " + dir + "/out.profdata "}) {
    const CommandResult r = run(pk() + cmd + in.memprof + " --profiled-binary " + dir + "/other");
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << r.err;
    EXPECT_NE(r.err.find(needed), std::string::npos) << cmd << r.err;
    EXPECT_NE(r.err.find(has), std::string::npos) << cmd << r.err;
  }
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// 100 allocations from one site below main (`site` and `main` are the frames a report shows).
constexpr const char* kSiteProgram =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) void* site(int n) { return malloc(n); }\n"
    "int main(void) { for (int i = 0; i < 100; i++) free(site(100 + i)); return 0; }\n";

// `report RAW` without --profiled-binary finds the binary beside the profile (or in the
// current directory) by the build id the profile names; if it is not there, one line says
// which build id is needed.
TEST(Report, FindsTheProfiledBinaryBesideTheProfile) {
  const std::string dir = work_dir("report_find");
  write_file(dir + "/r.c", kSiteProgram);
  run_ok("gcc -g -O1 -o " + dir + "/r " + dir + "/r.c");
  run_ok("cd " + dir + " && " + sh_quote(profkit_bin()) + " run -o " + dir + "/p.raw -- ./r");
  const CommandResult here = run("cd / && " + sh_quote(profkit_bin()) + " report " + dir + "/p.raw");
  EXPECT_EQ(here.status, 0) << here.err;
  EXPECT_NE(here.out.find("100 allocations"), std::string::npos) << here.out;
  // An allocation-only profile has no access counts: no verdicts that look measured.
  EXPECT_NE(here.out.find("No access counts"), std::string::npos) << here.out;
  EXPECT_EQ(here.out.find("notcold"), std::string::npos) << here.out;
  EXPECT_EQ(here.out.find("LLVM 22 hints"), std::string::npos) << here.out;
  const std::string elsewhere = work_dir("report_find_elsewhere");
  run_ok("cp " + dir + "/p.raw " + elsewhere + "/p.raw");
  const CommandResult missing =
      run("cd " + elsewhere + " && " + sh_quote(profkit_bin()) + " report p.raw");
  EXPECT_EQ(missing.status, 1);
  const std::string id = run_ok(sh_quote(profkit_bin()) + " build-ids " + dir + "/r").out;
  EXPECT_NE(missing.err.find(id.substr(id.find('\t') + 1, 40)), std::string::npos)
      << missing.err << " / " << id;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_NE(missing.err.find("--profiled-binary"), std::string::npos) << missing.err;
  // A program found on PATH (as a system program run under `profkit run` is): its binary
  // is looked for there too.
  const CommandResult on_path = run("cd " + elsewhere + " && PATH=" + dir + ":$PATH " +
                                    sh_quote(profkit_bin()) + " report p.raw");
  EXPECT_EQ(on_path.status, 0) << on_path.err;
  EXPECT_NE(on_path.out.find("100 allocations"), std::string::npos) << on_path.out;
  EXPECT_NE(on_path.out.find("site"), std::string::npos) << on_path.out;
  // Without debug information (as system programs are): functions named from the symbol
  // table, or the binary and an address where it has none (it was an error: no context
  // could be symbolized).
  const std::string stripped = work_dir("report_find_stripped");
  run_ok("cp " + dir + "/r " + stripped + "/r && strip -g " + stripped + "/r");
  const CommandResult no_dwarf = run("cd " + elsewhere + " && PATH=" + stripped + ":$PATH " +
                                     sh_quote(profkit_bin()) + " report p.raw");
  EXPECT_EQ(no_dwarf.status, 0) << no_dwarf.err;
  EXPECT_NE(no_dwarf.out.find("100 allocations"), std::string::npos) << no_dwarf.out;
  EXPECT_NE(no_dwarf.out.find("     site\n"), std::string::npos) << no_dwarf.out;
  EXPECT_EQ(no_dwarf.out.find("r.c:"), std::string::npos) << no_dwarf.out;
  const std::string bare = work_dir("report_find_bare");
  run_ok("cp " + dir + "/r " + bare + "/r && strip " + bare + "/r");
  const CommandResult no_symbols = run("cd " + elsewhere + " && " + sh_quote(profkit_bin()) +
                                       " report --profiled-binary " + bare + "/r p.raw");
  EXPECT_EQ(no_symbols.status, 0) << no_symbols.err;
  EXPECT_NE(no_symbols.out.find("     r+0x"), std::string::npos) << no_symbols.out;
  // The program beside the profile and a stripped copy in the current directory (or the
  // other way round): the one with debug information is used, in either order.
  const CommandResult both = run("cd " + stripped + " && " + sh_quote(profkit_bin()) +
                                 " report " + dir + "/p.raw");
  EXPECT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("r.c:2"), std::string::npos) << both.out;
  run_ok("cp " + stripped + "/r " + elsewhere + "/r");
  const CommandResult swapped = run("cd " + dir + " && " + sh_quote(profkit_bin()) +
                                    " report " + elsewhere + "/p.raw");
  EXPECT_EQ(swapped.status, 0) << swapped.err;
  EXPECT_NE(swapped.out.find("r.c:2"), std::string::npos) << swapped.out;
}

// `report A B`: the processes of one run (each writes its own profile) in one report, their
// contexts merged: counts and leaks add up. It used to refuse a second file.
TEST(Report, SeveralProfilesAreMergedIntoOneReport) {
  const std::string dir = work_dir("report_several");
  write_file(dir + "/leaky.c",
             "#include <stdlib.h>\n"
             "__attribute__((noinline)) void* site(int n) { return malloc(n); }\n"
             "int main(void) {\n"
             "  for (int i = 0; i < 100; i++) free(site(100 + i));\n"
             "  return site(1000) == 0;\n}\n");
  run_ok("gcc -g -O1 -o " + dir + "/leaky " + dir + "/leaky.c");
  const std::string pk = sh_quote(profkit_bin());
  run_ok("cd " + dir + " && " + pk + " run -o " + dir + "/p.raw -- sh -c './leaky; ./leaky; true'");
  // p.raw is the shell's; each leaky process wrote p.raw.<pid>.
  const std::string first = run_ok("cd " + dir + " && ls p.raw.* | head -1").out;
  const CommandResult one =
      run_ok("cd " + dir + " && " + pk + " report --view leaks " + first.substr(0, first.size() - 1));
  EXPECT_NE(one.out.find("Leaks: 1,000 bytes in 1 block"), std::string::npos) << one.out;
  const CommandResult both = run("cd " + dir + " && " + pk + " report p.raw.*");
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("2 profiles"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("202 allocations"), std::string::npos) << both.out;
  const CommandResult leaks = run_ok("cd " + dir + " && " + pk + " report --view leaks p.raw.*");
  EXPECT_NE(leaks.out.find("Leaks: 2,000 bytes in 2 blocks"), std::string::npos) << leaks.out;
}

// A program whose debug information covers none of its allocation frames (the code that
// allocates built without -g, one object with it): one line saying what is missing.
TEST(Report, DebugInfoThatMissesEveryFrameIsOneLine) {
  const std::string dir = work_dir("report_partial_dwarf");
  write_file(dir + "/r.c", kSiteProgram);
  write_file(dir + "/extra.c", "int extra(int x) { return x + 1; }\n");
  run_ok("cd " + dir + " && gcc -O1 -c r.c && gcc -g -O1 -c extra.c && gcc r.o extra.o -o r");
  const std::string pk = sh_quote(profkit_bin());
  run_ok("cd " + dir + " && " + pk + " run -o " + dir + "/p.raw -- ./r");
  const CommandResult r = run("cd " + dir + " && " + pk + " report p.raw");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no debug information at the allocation frames"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A program that allocates nothing has an empty report (it was an error: "no allocation
// context could be symbolized").
TEST(Report, AProgramThatAllocatesNothingHasAnEmptyReport) {
  const std::string dir = work_dir("report_empty");
  write_file(dir + "/nothing.c", "int main(void) { return 0; }\n");
  run_ok("gcc -g -O1 -o " + dir + "/nothing " + dir + "/nothing.c");
  const std::string pk = sh_quote(profkit_bin());
  run_ok("cd " + dir + " && " + pk + " run -o " + dir + "/p.raw -- ./nothing");
  const CommandResult r = run("cd " + dir + " && " + pk + " report p.raw");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0 contexts, 0 allocations"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

TEST(Probes, WritesToAFileWithDashOAndNeverOverTheBinary) {
  const std::string dir = work_dir("probes_o");
  write_file(dir + "/pp.c", "int f(int x) { return x > 3 ? x * 2 : x + 1; }\n"
                            "int main(int c, char** v) { (void)v; return f(c); }\n");
  run_ok("clang-22 -O2 -fpseudo-probe-for-profiling -o " + dir + "/pp " + dir + "/pp.c");
  const std::string pk = sh_quote(profkit_bin());
  const CommandResult to_stdout = run_ok(pk + " probes " + dir + "/pp");
  run_ok(pk + " probes " + dir + "/pp -o " + dir + "/out.txt");
  EXPECT_EQ(read_file(dir + "/out.txt"), to_stdout.out);
  EXPECT_NE(to_stdout.out.find("main"), std::string::npos);
  const CommandResult onto_input = run(pk + " probes " + dir + "/pp -o " + dir + "/pp");
  EXPECT_EQ(onto_input.status, 1);
  EXPECT_NE(onto_input.err.find("refusing to overwrite"), std::string::npos) << onto_input.err;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// llvm-profdata's single-dash long options (-output=F, -sample, -weighted-input=W,F), which
// scripts written for it use, mean the same to profkit.
TEST(Options, SingleDashLongOptionsAsLlvmSpellsThem) {
  const std::string dir = work_dir("single_dash");
  write_file(dir + "/a.txt", "main:100:10\n 1: 50 foo:30\n 2: foo:50\n  1: 50\n");
  write_file(dir + "/b.txt", "main:7:3\n 1: 5 bar:2\nfoo:10:1\n 1: 10\n");
  const std::string pk = sh_quote(profkit_bin());
  run_ok("cd " + dir + " && " + pk + " merge -sample -text -weighted-input=2,a.txt -output=one.txt b.txt");
  run_ok("cd " + dir + " && " + pk + " merge --sample --text --weighted-input=2,a.txt -o two.txt b.txt");
  EXPECT_EQ(read_file(dir + "/one.txt"), read_file(dir + "/two.txt"));
  EXPECT_NE(read_file(dir + "/one.txt").find("main:207:23"), std::string::npos);
  const CommandResult show = run_ok("cd " + dir + " && " + pk + " show -sample -detailed-summary one.txt");
  EXPECT_NE(show.out.find("Detailed summary:"), std::string::npos);
}

// `order` as llvm-profdata-22 spells it, and its one refusal: too many test traces.
TEST(Options, OrderSpellingsAndTooManyTestTraces) {
  const std::string dir = work_dir("order");
  write_file(dir + "/t.proftext",
             ":ir\n:temporal_prof_traces\n2\n2\n1\nmain,f.c;g,\n1\ng,main,h,\n"
             "main\n1\n1\n5\n\nf.c;g\n2\n1\n3\n\n");
  const std::string pk = sh_quote(profkit_bin());
  const CommandResult a = run_ok("cd " + dir + " && " + pk + " order -num-test-traces=1 t.proftext");
  run_ok("cd " + dir + " && " + pk + " order --num-test-traces 1 --output=o.txt t.proftext");
  EXPECT_EQ(a.out, read_file(dir + "/o.txt"));
  EXPECT_EQ(a.out.rfind("# Ordered 2 functions\n# Total area under the page fault curve: "
                        "1.000000e+00\n", 0), 0u) << a.out;  // only main of g,main,h is ordered
  EXPECT_NE(a.out.find("\nmain\n# f.c\ng\n"), std::string::npos) << a.out;
  const CommandResult bad = run(pk + " order --num-test-traces=2 " + dir + "/t.proftext");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << "one line: " << bad.err;
  EXPECT_NE(bad.err.find("t.proftext"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// As llvm-profdata: --binary/--extbinary are accepted for IR-PGO merges (indexed output);
// an input that does not exist fails the merge whatever --failure-mode says.
TEST(Options, LlvmProfdataMergeSpellingsAndMissingInputs) {
  const std::string dir = work_dir("merge_spellings");
  write_file(dir + "/a.proftext", "# IR level Instrumentation Flag\n:ir\nmain\n0x1\n2\n5\n3\n");
  const std::string pk = sh_quote(profkit_bin());
  run_ok(pk + " merge " + dir + "/a.proftext -o " + dir + "/plain.profdata");
  run_ok(pk + " merge --binary " + dir + "/a.proftext -o " + dir + "/binary.profdata");
  run_ok(pk + " merge --extbinary " + dir + "/a.proftext -o " + dir + "/ext.profdata");
  EXPECT_EQ(read_file(dir + "/plain.profdata"), read_file(dir + "/binary.profdata"));
  EXPECT_EQ(read_file(dir + "/plain.profdata"), read_file(dir + "/ext.profdata"));
  const CommandResult r = run(pk + " merge --failure-mode=all " + dir + "/missing.profraw " + dir +
                              "/a.proftext -o " + dir + "/out.profdata");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("missing.profraw"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// A text profile that repeats a function with another number of counters: llvm-profdata
// warns "counter mismatch", drops the repeat and writes the rest (exit 0); profkit used to
// refuse the whole input. Both outputs must be the same bytes.
TEST(Merge, CounterMismatchInOneInputWarnsAndDropsLikeLlvm) {
  const std::string dir = work_dir("counter_mismatch");
  write_file(dir + "/a.proftext",
             "# IR level Instrumentation Flag\n:ir\nmain\n0x1\n2\n5\n3\n\n"
             "main\n0x1\n3\n1\n2\n3\n\nfoo\n0x2\n1\n7\n");
  const CommandResult llvm =
      run_ok("llvm-profdata-22 merge " + dir + "/a.proftext -o " + dir + "/llvm.profdata");
  const CommandResult pk = run_ok(sh_quote(profkit_bin()) + " merge " + dir + "/a.proftext -o " +
                                  dir + "/pk.profdata");
  EXPECT_EQ(read_file(dir + "/llvm.profdata"), read_file(dir + "/pk.profdata"));
  EXPECT_NE(pk.err.find("counter mismatch"), std::string::npos) << pk.err;
  EXPECT_NE(llvm.err.find("counter mismatch"), std::string::npos) << llvm.err;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// --dump-input-file-list prints what the inputs, --weighted-input and -f expand to, in
// llvm-profdata's order and format, and merges nothing.
TEST(Merge, DumpInputFileListPrintsWhatLlvmPrints) {
  const std::string dir = work_dir("dump_input_file_list");
  const std::string text = "# IR level Instrumentation Flag\n:ir\nmain\n0x1\n1\n5\n";
  for (const char* n : {"a", "b", "c", "d"}) write_file(dir + "/" + n + ".proftext", text);
  write_file(dir + "/list.txt", "4," + dir + "/c.proftext\n" + dir + "/d.proftext\n");
  const std::string args = " merge --dump-input-file-list --weighted-input=5," + dir +
                           "/b.proftext " + dir + "/a.proftext -f " + dir + "/list.txt";
  const CommandResult llvm = run_ok("llvm-profdata-22" + args);
  const CommandResult pk = run_ok(sh_quote(profkit_bin()) + args);
  EXPECT_EQ(pk.out, llvm.out);
  EXPECT_NE(pk.out.find("5," + dir + "/b.proftext\n"), std::string::npos) << pk.out;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// --keep-vtable-symbols on raw files of a C++ program built with vtable value profiling:
// the v12+ vtable-names section (and the names in text output) as llvm-profdata 22 writes
// them; without the flag the section stays empty.
TEST(Merge, KeepVtableSymbolsFromRawFilesLikeLlvm) {
  const std::string dir = work_dir("keep_vtable_symbols");
  write_file(dir + "/vt.cc",
             "#include <cstdio>\n"
             "struct Base { virtual int f(int x) = 0; virtual ~Base() {} };\n"
             "struct A : Base { int f(int x) override { return x + 1; } };\n"
             "struct B : Base { int f(int x) override { return x * 2; } };\n"
             "struct C : Base { int f(int x) override { return x - 3; } };\n"
             "struct D : Base { int f(int x) override { return x ^ 5; } };\n"
             "int main(int argc, char**) {\n"
             "  Base* objs[4] = {new A, new B, new C, new D};\n"
             "  int s = 0;\n"
             "  for (int i = 0; i < 1000 * argc; ++i) s += objs[(i * 7 + argc) % (argc + 1)]->f(i);\n"
             "  printf(\"%d\\n\", s);\n"
             "}\n");
  run_ok("clang++-22 -O1 -fprofile-generate -mllvm -enable-vtable-value-profiling " + dir +
         "/vt.cc -o " + dir + "/vt");
  std::string raws;
  for (const char* args : {"", " x", " x y"}) {
    const std::string raw = dir + "/vt" + std::to_string(raws.size()) + ".profraw";
    run_ok("LLVM_PROFILE_FILE=" + raw + " " + dir + "/vt" + args);
    raws += " " + raw;
  }
  for (const std::string mode : {"", " --write-prev-version", " --text"}) {
    const std::string args = " merge --keep-vtable-symbols" + mode + raws + " -o ";
    run_ok("llvm-profdata-22" + args + dir + "/llvm.out");
    run_ok(sh_quote(profkit_bin()) + args + dir + "/pk.out");
    EXPECT_EQ(read_file(dir + "/pk.out"), read_file(dir + "/llvm.out")) << mode;
  }
  EXPECT_NE(read_file(dir + "/pk.out").find("_ZTV1B:"), std::string::npos);  // text: named
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// Which profile kinds one merge accepts, as llvm-profdata 22's one-thread merge decides it:
// a text profile without kind lines merges with anything and takes the next kind; ":fe" and
// the IR-level kinds (":ir", ":csir", and ":entry_first" or ":single_byte_coverage" alone)
// refuse each other; under --failure-mode=all the refused input is skipped. Exit status and
// bytes must agree for every list, in text and indexed output, with -j 3.
TEST(Merge, ProfileKindMixesAsLlvmDecidesThem) {
  const std::string dir = work_dir("kind_mixes");
  const std::string record = "foo\n1000\n2\n7\n8\n\n";
  write_file(dir + "/none.txt", record);
  write_file(dir + "/fe.txt", ":fe\n" + record);
  write_file(dir + "/ir.txt", "# IR level Instrumentation Flag\n:ir\n" + record);
  write_file(dir + "/entry.txt", ":entry_first\nbar\n1\n1\n5\n\n");
  write_file(dir + "/cover.txt", ":single_byte_coverage\nbar\n1\n1\n1\n\n");
  const std::vector<std::string> lists = {
      "none ir", "ir none", "none fe", "fe none", "entry ir", "entry fe", "cover fe",
      "cover ir", "none none", "none cover", "ir none fe", "none ir fe", "ir fe ir none"};
  for (const std::string& list : lists) {
    std::string files;
    for (size_t at = 0; at < list.size();) {
      const size_t space = std::min(list.find(' ', at), list.size());
      files += " " + dir + "/" + list.substr(at, space - at) + ".txt";
      at = space + 1;
    }
    for (const std::string mode : {" --failure-mode=any", " --failure-mode=all --text"}) {
      const CommandResult l = run("llvm-profdata-22 merge --num-threads=1" + mode + files +
                                  " -o " + dir + "/llvm.out");
      const CommandResult p = run(sh_quote(profkit_bin()) + " merge -j 3" + mode + files +
                                  " -o " + dir + "/pk.out");
      ASSERT_EQ(p.status, l.status) << list << mode << ": " << p.err << " / " << l.err;
      if (l.status == 0) {
        EXPECT_EQ(read_file(dir + "/pk.out"), read_file(dir + "/llvm.out")) << list << mode;
      }
    }
  }
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// Frame folding options are checked before anything is read: a bad regex, or both options.
TEST(Options, FrameFoldingOptionsGetAClearError) {
  const std::string pk = sh_quote(profkit_bin());
  CommandResult r = run(pk + " report --hide-frames='(' /nonexistent.memprofraw");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--hide-frames"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = run(pk + " diff --hide-frames=x --show-all-frames /nonexistent.a /nonexistent.b");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exclude each other"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// An indexed input with the MemProf flag but no MemProf records (what a supplemented profile
// is): llvm-profdata keeps the flag and writes an empty MemProf section of the requested
// version; profkit used to drop both (the files differed at byte 16).
TEST(Merge, TheMemProfKindOfAnInputWithoutRecordsStays) {
  const std::string dir = work_dir("memprof_flag_only");
  write_file(dir + "/mp.yaml",
             "---\nHeapProfileRecords:\n  - GUID: 0x1111\n    AllocSites:\n      - Callstack:\n"
             "          - { Function: 0x1111, LineOffset: 1, Column: 2, IsInlineFrame: false }\n"
             "        MemInfoBlock:\n          AllocCount: 1\n          TotalSize: 8\n"
             "          TotalLifetime: 0\n          TotalLifetimeAccessDensity: 0\n"
             "    CallSites: []\n...\n");
  write_file(dir + "/ir.txt", "# IR level Instrumentation Flag\n:ir\nfoo\n1000\n2\n7\n8\n\n");
  write_file(dir + "/s.txt", "foo:100:10\n 1: 10\n 2: 90\n");
  run_ok("llvm-profdata-22 merge " + dir + "/mp.yaml " + dir + "/ir.txt -o " + dir + "/mp.profdata");
  run_ok("llvm-profdata-22 merge --supplement-instr-with-sample=" + dir + "/s.txt " + dir +
         "/mp.profdata -o " + dir + "/flag_only.profdata");
  for (const std::string opts : {"", " --memprof-version=2", " --memprof-version=4"}) {
    run_ok("llvm-profdata-22 merge" + opts + " " + dir + "/flag_only.profdata -o " + dir + "/l.out");
    run_ok(sh_quote(profkit_bin()) + " merge" + opts + " " + dir + "/flag_only.profdata -o " + dir +
           "/p.out");
    EXPECT_EQ(read_file(dir + "/p.out"), read_file(dir + "/l.out")) << opts;
  }
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// A directory input stands for every regular file under it, in llvm-profdata's walk order,
// with the directory's weight.
TEST(Merge, DirectoriesAsInputsLikeLlvm) {
  const std::string dir = work_dir("directory_inputs");
  const std::string text = "# IR level Instrumentation Flag\n:ir\n";
  run_ok("mkdir -p " + dir + "/in/sub " + dir + "/in/sub2");
  const char* names[] = {"a", "sub/b", "sub2/c", "z", "sub/d"};
  for (int i = 0; i < 5; ++i)
    write_file(dir + "/in/" + names[i] + ".proftext",
               text + "f" + std::to_string(i) + "\n" + std::to_string(i + 1) + "\n1\n" +
                   std::to_string(7 * i + 1) + "\n");
  const std::string args = " " + dir + "/in --weighted-input=3," + dir + "/in/sub";
  const CommandResult l = run_ok("llvm-profdata-22 merge --dump-input-file-list" + args);
  const CommandResult p = run_ok(sh_quote(profkit_bin()) + " merge --dump-input-file-list" + args);
  EXPECT_EQ(p.out, l.out);
  EXPECT_NE(p.out.find("3," + dir + "/in/sub/b.proftext"), std::string::npos) << p.out;
  run_ok("llvm-profdata-22 merge --num-threads=1" + args + " -o " + dir + "/l.profdata");
  run_ok(sh_quote(profkit_bin()) + " merge" + args + " -o " + dir + "/p.profdata");
  EXPECT_EQ(read_file(dir + "/p.profdata"), read_file(dir + "/l.profdata"));
}

}  // namespace
}  // namespace profkit::test

namespace profkit::test {
namespace {

// Allocations whose call stacks have no frame with debug info (here: a thread started in a
// library built without -g) are left out of a MemProf merge. One warning line says so, in
// allocations, naming the objects; below 1% of the allocations only with --verbose.
TEST(Merge, AllocationsWithoutDebugInfoGetOneLineNamingTheObjects) {
  const std::string dir = work_dir("nodebug_warning");
  write_file(dir + "/lib.c",
             "#include <pthread.h>\n#include <stdlib.h>\nvoid *volatile sink;\n"
             "static void *worker(void *a) { (void)a;\n"
             "  for (int i = 0; i < 200; i++) { sink = malloc(32 + i); free(sink); } return 0; }\n"
             "void start_worker(void) { pthread_t t; pthread_create(&t, 0, worker, 0);\n"
             "  pthread_join(t, 0); }\n");
  write_file(dir + "/app.c",
             "#include <stdlib.h>\nvoid start_worker(void);\nvoid *volatile keep;\n"
             "int main(int argc, char **argv) { (void)argv;\n"
             "  for (int i = 0; i < 5000; i++) { keep = malloc(100); free(keep); }\n"
             "  if (argc > 1) start_worker(); return 0; }\n");
  run_ok("cd " + dir + " && gcc -O1 -fPIC -shared -fno-omit-frame-pointer lib.c -o libnodebug.so"
         " && gcc -O1 -g -fno-omit-frame-pointer app.c -o app -L. -lnodebug -Wl,-rpath," + dir);
  const std::string pk = sh_quote(profkit_bin());
  run_ok(pk + " run -o " + dir + "/many.raw -- " + dir + "/app thread");
  run_ok(pk + " run -o " + dir + "/few.raw -- " + dir + "/app");
  const std::string app = " --profiled-binary " + dir + "/app ";
  CommandResult r = run_ok(pk + " merge" + app + dir + "/many.raw -o " + dir + "/m.prof");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("of the allocations ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("without debug info (build id "), std::string::npos) << r.err;
  r = run_ok(pk + " merge" + app + "--profiled-binary " + dir + "/libnodebug.so " + dir +
             "/many.raw -o " + dir + "/m.prof");
  EXPECT_NE(r.err.find("libnodebug.so"), std::string::npos) << r.err;
  // Without the thread, what is left out (if anything: the loader's own allocations) stays
  // below 1%: silent unless --verbose.
  r = run_ok(pk + " merge" + app + dir + "/few.raw -o " + dir + "/f.prof");
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace profkit::test
