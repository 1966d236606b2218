// The runtime in long-running processes (docs/runtime.md, "Long-running processes"):
// interval profiles (dump_interval) that merge to one exit profile's totals, whole files
// after SIGKILL, a profile when a fatal signal ends the program, and the program's exit
// status and signal handlers unchanged. Programs in tests/programs/runtime/, built with
// clang-22 -fmemory-profile and linked with the shared runtime; llvm-profdata-22 reads
// every profile.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/harness.h"
#include "tests/support/memprof_show.h"

namespace {

using profkit::test::run;
using profkit::test::run_ok;
using profkit::test::sh_quote;
using Contexts = profkit::test::MemProfContexts;

using profkit::test::runtime_dir;

// Compiles tests/programs/runtime/<name>.c once and links it with the shared runtime (the
// link without -fmemory-profile, which would bring compiler-rt's runtime in).
std::string build(const std::string& name) {
  const std::string source = profkit::test::source_path("tests/programs/runtime/" + name + ".c");
  return profkit::test::build_once(
      name, "clang-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer -c " + sh_quote(source) +
                " -o %o.o && clang-22 %o.o -o %o " + runtime_dir() +
                "/libprofkit_memprof.so -Wl,-rpath," + runtime_dir() + " -lpthread");
}

// The profiles in `dir` (no temporary files), sorted.
std::vector<std::string> profiles_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name[0] != '.' && name.find(".tmp.") == std::string::npos) out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_interval_file(const std::string& path) {
  const size_t dot = path.rfind(".i");
  return dot != std::string::npos && dot + 2 < path.size() &&
         path.find_first_not_of("0123456789", dot + 2) == std::string::npos;
}

// `llvm-profdata-22 show --memory` of an indexed profile: each allocation context (its
// frames as printed) with the MemInfoBlock fields of the full schema.
Contexts show_indexed(const std::string& indexed) {
  const auto r = run_ok("llvm-profdata-22 show --memory " + sh_quote(indexed));
  Contexts out;
  std::istringstream in(r.out);
  std::string line, key;
  enum { kOther, kStack, kMib } state = kOther;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string s = line.substr(first);
    if (s.rfind("- Callstack:", 0) == 0) {
      key.clear();
      state = kStack;
    } else if (state == kStack && s.rfind("- { Function:", 0) == 0) {
      key += s;
    } else if (state == kStack && s.rfind("MemInfoBlock:", 0) == 0) {
      state = kMib;
    } else if (state == kMib && s[0] != '-' && s.find(':') != std::string::npos) {
      const size_t colon = s.find(':');
      const size_t value = s.find_first_not_of(' ', colon + 1);
      out[key][s.substr(0, colon)] = value == std::string::npos ? "" : s.substr(value);
    } else {
      state = kOther;
    }
  }
  return out;
}

// The fields whose merge over the interval profiles must equal one exit profile's: what was
// allocated and touched, not when.
const char* const kTotals[] = {"AllocCount",     "TotalSize",      "TotalAccessCount",
                               "MinSize",        "MaxSize",        "MinAccessCount",
                               "MaxAccessCount", "AccessHistogramSize"};

void expect_same_totals(const Contexts& want, const Contexts& got, const std::string& what) {
  ASSERT_FALSE(want.empty()) << what;
  EXPECT_EQ(want.size(), got.size()) << what;
  for (const auto& [context, fields] : want) {
    auto it = got.find(context);
    if (it == got.end()) {
      ADD_FAILURE() << what << ": missing context " << context;
      continue;
    }
    for (const char* f : kTotals) {
      ASSERT_TRUE(fields.count(f) && it->second.count(f)) << what << ": " << context << " " << f;
      EXPECT_EQ(fields.at(f), it->second.at(f)) << what << ": " << context << " field " << f;
    }
  }
}

// Runs `binary` with MEMPROF_OPTIONS=log_path=<fresh dir>/<tag>.raw:<options>; returns the
// profiles written.
std::vector<std::string> profile(const std::string& binary, const std::string& tag,
                                 const std::string& options, int expected_status = 0,
                                 const std::string& args = "") {
  const std::string dir = profkit::test::work_dir(tag);
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/" + tag + ".raw" +
                                                    (options.empty() ? "" : ":" + options)) +
                     " " + sh_quote(binary) + " " + args);
  EXPECT_EQ(r.status, expected_status) << tag << "\n" << r.err;
  EXPECT_EQ(r.err.find("profkit-memprof:"), std::string::npos) << r.err;
  return profiles_in(dir);
}

// ---- thread states -----------------------------------------------------------------------

// The AllocCount of `in_thread`'s context in the profile in `dir` (0: none).
uint64_t in_thread_blocks(const std::string& bin, const std::string& dir) {
  const auto files = profiles_in(dir);
  if (files.size() != 1) return 0;
  for (const auto& [context, fields] : profkit::test::llvm_memprof_show(bin, files[0]))
    if (context.find("in_thread") != std::string::npos) return std::stoull(fields.at("AllocCount"));
  return 0;
}

// A thread that starts while max_threads threads with a state are alive gets none: its
// allocations are missing, the program runs on unchanged, and the exit says how many
// threads went without. Threads that end give their state to the next (in turn, 24 threads
// share 2 states and every block is there).
TEST(ThreadStates, ThreadsBeyondMaxThreadsAreCountedAndTheRestShareEndedStates) {
  const std::string bin = build("thread_states");
  struct Case {
    const char* how;
    int threads;
    int max;
    uint64_t blocks;     // in_thread's AllocCount
    const char* warning; // on stderr, or "" for none
  };
  const Case cases[] = {
      {"together", 8, 4, 30, "profkit-memprof: warning: 5 threads started while max_threads=4 threads were alive"},
      {"together", 8, 9, 80, ""},
      {"in-turn", 24, 2, 240, ""},
  };
  for (const Case& c : cases) {
    const std::string tag = std::string("states_") + c.how + "_" + std::to_string(c.max);
    const std::string dir = profkit::test::work_dir(tag);
    const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/s.raw:max_threads=" +
                                                     std::to_string(c.max)) +
                       " " + sh_quote(bin) + " " + c.how + " " + std::to_string(c.threads));
    EXPECT_EQ(r.status, 0) << tag << "\n" << r.err;
    EXPECT_EQ(r.out, "ok\n") << tag;
    if (c.warning[0] == '\0')
      EXPECT_EQ(r.err, "") << tag;
    else
      EXPECT_EQ(r.err.rfind(c.warning, 0), 0u) << tag << "\n" << r.err;
    EXPECT_EQ(in_thread_blocks(bin, dir), c.blocks) << tag;
  }
}

// ---- interval profiles ------------------------------------------------------------------

TEST(Intervals, MergedIntervalProfilesHaveTheExitProfilesTotals) {
  // interval.c: blocks live across every dump, blocks freed one interval after they were
  // made, never-freed blocks, two threads and cross-thread frees; about 0.3 s, so a dump
  // every 20 ms gives several interval profiles.
  const std::string bin = build("interval");
  const auto once = profile(bin, "at_exit", "");
  ASSERT_EQ(once.size(), 1u);
  const auto files = profile(bin, "intervals", "dump_interval=0.02");
  const size_t intervals = std::count_if(files.begin(), files.end(), is_interval_file);
  EXPECT_GE(intervals, 3u);
  ASSERT_EQ(files.size() - intervals, 1u) << "one exit profile";
  const std::string dir = profkit::test::work_dir("merged");
  std::string inputs;
  for (const auto& f : files) inputs += " " + sh_quote(f);
  // profkit merge takes the files as they are; llvm-profdata 22 keeps only the first of
  // several memprof inputs (docs/memprof.md), so it gets them chained into one raw file
  // (the stack ids of one process mean the same stacks in all its profiles). Every field
  // is kept (--memprof-full-schema).
  run_ok("cat" + inputs + " > " + dir + "/chained.raw");
  const std::string flags = " --memprof-full-schema --profiled-binary=" + sh_quote(bin);
  run_ok("llvm-profdata-22 merge" + flags + " " + sh_quote(once[0]) + " -o " + dir + "/once.prof");
  run_ok("llvm-profdata-22 merge" + flags + " " + dir + "/chained.raw -o " + dir + "/llvm.prof");
  run_ok(sh_quote(profkit::test::profkit_bin()) + " merge" + flags + inputs + " -o " + dir +
         "/profkit.prof");
  const Contexts want = show_indexed(dir + "/once.prof");
  expect_same_totals(want, show_indexed(dir + "/llvm.prof"), "llvm-profdata merge (chained)");
  expect_same_totals(want, show_indexed(dir + "/profkit.prof"), "profkit merge");

  // Each profile on its own (llvm-profdata's view of the raw files): the blocks never freed
  // are only in the exit profile, and the long-lived ones (freed at the end, after at least
  // 150 ms of sleeps) only with their whole lifetime, never "as if freed" at a dump (20 ms
  // apart). 140: the default coarse clock's timestamps each lag by up to two kernel ticks.
  uint64_t allocs = 0;
  for (const auto& f : files) {
    const Contexts got = profkit::test::llvm_memprof_show(bin, f);
    for (const auto& [context, fields] : got) {
      if (context.rfind("make_", 0) == 0) allocs += std::stoull(fields.at("AllocCount"));
      if (context.rfind("make_never_freed:", 0) == 0) {
        EXPECT_FALSE(is_interval_file(f)) << f;
      }
      if (context.rfind("make_long_lived:", 0) == 0) {
        EXPECT_GE(std::stoull(fields.at("MinLifetime")), 140u) << f;
      }
    }
  }
  // The program's own: 8 long-lived + 4 never freed + 100 phase blocks + 2 x 100 thread
  // blocks (pthread_create's own allocations come on top).
  EXPECT_EQ(allocs, 312u);
}

TEST(Intervals, AFailedIntervalProfileGoesIntoTheNextOne) {
  // The profiles' directory is a regular file for the first 0.12 s of the run (which sleeps
  // 0.45 s in all), so the first interval profiles cannot be written; then it is removed and
  // the runtime creates the directory. Nothing freed in the failed intervals may be lost:
  // the merged files have the exit-only run's totals, and the failure is reported once.
  const std::string bin = build("interval");
  const auto once = profile(bin, "failing_once", "");
  ASSERT_EQ(once.size(), 1u);
  const std::string dir = profkit::test::work_dir("failing");
  profkit::test::write_file(dir + "/blocker", "");
  const auto r = run("(sleep 0.12; rm " + dir + "/blocker) & MEMPROF_OPTIONS=" +
                     sh_quote("dump_interval=0.02:log_path=" + dir + "/blocker/f.raw") + " " +
                     sh_quote(bin) + " 3; s=$?; wait; exit $s");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("interval profile not written, its data goes into the next one"),
            std::string::npos)
      << r.err;
  const auto files = profiles_in(dir + "/blocker");
  ASSERT_GE(files.size(), 2u);
  std::string inputs;
  for (const auto& f : files) inputs += " " + sh_quote(f);
  const std::string flags = " --memprof-full-schema --profiled-binary=" + sh_quote(bin);
  run_ok("llvm-profdata-22 merge" + flags + " " + sh_quote(once[0]) + " -o " + dir + "/once.prof");
  run_ok(sh_quote(profkit::test::profkit_bin()) + " merge" + flags + inputs + " -o " + dir +
         "/merged.prof");
  expect_same_totals(show_indexed(dir + "/once.prof"), show_indexed(dir + "/merged.prof"),
                     "after failed interval profiles");
}

TEST(Intervals, KilledProcessLeavesWholeProfiles) {
  // Files appear by rename, so a SIGKILL at any moment leaves only whole profiles (and at
  // most one temporary file of the dump it interrupted).
  const std::string bin = build("soak");
  const std::string dir = profkit::test::work_dir("killed");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("MEMPROF_OPTIONS", ("log_path=" + dir + "/k.raw:dump_interval=0.01").c_str(), 1);
    execl(bin.c_str(), bin.c_str(), "30", "3", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Until enough interval profiles exist (a loaded machine writes them later), at most 20 s.
  for (int i = 0; i < 200 && profiles_in(dir).size() < 5; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const auto files = profiles_in(dir);
  EXPECT_GE(files.size(), 5u);
  for (const auto& f : files) {
    EXPECT_TRUE(is_interval_file(f)) << f;
    const auto r = run("llvm-profdata-22 show --memory --profiled-binary=" + sh_quote(bin) + " " +
                       sh_quote(f) + " >/dev/null");
    EXPECT_EQ(r.status, 0) << f << "\n" << r.err;
  }
  const auto all = run("ls " + sh_quote(dir) + " | grep -c '\\.tmp\\.' || true");
  EXPECT_LE(std::stoi(all.out), 1) << all.out;
}

TEST(Intervals, ADumpTheProcessOutlivesIsAnIntervalProfile) {
  // signal.c raises SIGWINCH (dump_signal=28, default action: nothing) after seven blocks and
  // leaves by _exit: with dump_interval that dump holds the freed blocks and is numbered as
  // an interval profile, so it can never be counted again with an exit profile.
  const std::string bin = build("signal");
  const auto files = profile(bin, "signal_interval", "dump_interval=100:dump_signal=28", 3);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(is_interval_file(files[0])) << files[0];
  const Contexts got = profkit::test::llvm_memprof_show(bin, files[0]);
  ASSERT_EQ(got.count("before_signal:1:43>main:1:3"), 1u);
  EXPECT_EQ(got.at("before_signal:1:43>main:1:3").at("AllocCount"), "7");
}

TEST(Intervals, ProfkitRunFlagAndSummary) {
  const std::string bin = build("interval");
  const std::string dir = profkit::test::work_dir("run");
  const auto r = run(sh_quote(profkit::test::profkit_bin()) + " run --dump-interval=0.02 -o " +
                     dir + "/p.raw -- " + sh_quote(bin));
  EXPECT_EQ(r.status, 0) << r.err;
  const auto files = profiles_in(dir);
  ASSERT_GE(files.size(), 4u);
  EXPECT_EQ(files[0], dir + "/p.raw");
  EXPECT_TRUE(is_interval_file(files[1])) << files[1];
  EXPECT_NE(r.err.find("profkit run: " + std::to_string(files.size()) + " profiles written: " +
                       dir + "/p.raw, " + dir + "/p.raw.i1"),
            std::string::npos)
      << r.err;
  const auto bad = run("MEMPROF_OPTIONS=dump_interval=0.0001:log_path=" + dir + "/q.raw " +
                       sh_quote(bin) + " 0");
  EXPECT_EQ(bad.status, 0);
  EXPECT_EQ(bad.err,
            "profkit-memprof: error: MEMPROF_OPTIONS: invalid value (seconds, at most 3 "
            "decimals) for option 'dump_interval'\n");
}

// ---- fatal signals ----------------------------------------------------------------------

struct CrashCase {
  const char* how;
  int status;           // as without the runtime (sh's 128 + signal for a signal death)
  const char* out;
  bool profile;
};

TEST(Crash, FatalSignalWritesTheExitProfileAndEndsTheProgramAsBefore) {
  const std::string bin = build("crash");
  const CrashCase cases[] = {
      {"segv", 128 + SIGSEGV, "", true},    // a NULL store
      {"fpe", 128 + SIGFPE, "", true},      // division by zero
      {"abort", 128 + SIGABRT, "", true},
      {"own", 42, "handled\n", false},      // the program's handler wins
      {"chain", 128 + SIGSEGV, "chained\n", true},  // and may pass the signal on to ours
  };
  for (const CrashCase& c : cases) {
    for (const bool on : {true, false}) {
      const std::string tag = std::string("crash_") + c.how + (on ? "_on" : "_off");
      const std::string dir = profkit::test::work_dir(tag);
      // ulimit -c 0: the status must not depend on whether a core is written.
      const auto r = run("ulimit -c 0; MEMPROF_OPTIONS=" +
                         sh_quote("log_path=" + dir + "/c.raw" + (on ? "" : ":dump_on_crash=0")) +
                         " " + sh_quote(bin) + " " + c.how);
      EXPECT_EQ(r.status, c.status) << tag << "\n" << r.err;
      EXPECT_EQ(r.out, c.out) << tag;
      const auto files = profiles_in(dir);
      ASSERT_EQ(files.size(), on && c.profile ? 1u : 0u) << tag;
      if (files.empty()) continue;
      // Two blocks freed and three live at the crash: all five, once.
      const Contexts got = profkit::test::llvm_memprof_show(bin, files[0]);
      ASSERT_EQ(got.size(), 1u) << tag;
      EXPECT_EQ(got.begin()->second.at("AllocCount"), "5") << tag;
      EXPECT_EQ(got.begin()->second.at("TotalSize"), "200") << tag;
    }
  }
}


// dump_on_terminate: a signal whose default action ends the program (sent by `kill`, a
// terminal, `timeout`, a service manager, or a write to a closed pipe) writes the exit
// profile first, where the program left the signal's disposition at SIG_DFL; the program
// ends as it would have, and sees SIG_DFL there (tests/programs/runtime/terminate.c).
struct TerminateCase {
  const char* how;
  const char* shell;    // run before the program (sh)
  int status;           // as without the runtime
  const char* out;
  bool profile;
};

TEST(Terminate, SignalsThatEndTheProgramWriteTheExitProfileAndEndItAsBefore) {
  const std::string bin = build("terminate");
  const TerminateCase cases[] = {
      {"term", "", 128 + SIGTERM, "", true},
      {"int", "", 128 + SIGINT, "", true},
      {"quit", "", 128 + SIGQUIT, "", true},
      {"pipe", "", 128 + SIGPIPE, "", true},
      {"int-once", "trap '' INT;", 0, "survived\n", true},  // ignored from the start: left so
      {"int-default", "trap '' INT;", 128 + SIGINT, "", true},  // until it sets SIG_DFL
      {"ignored", "", 0, "survived\n", true},                // the program ignores it
      {"own", "", 42, "handled\n", false},                   // its handler, then _exit
      {"reset", "", 128 + SIGTERM, "", true},                // SIG_DFL again: ours again
  };
  for (const TerminateCase& c : cases) {
    for (const bool on : {true, false}) {
      const std::string tag = std::string("terminate_") + c.how + (on ? "_on" : "_off");
      const std::string dir = profkit::test::work_dir(tag);
      const auto r = run(std::string("ulimit -c 0; ") + c.shell + " MEMPROF_OPTIONS=" +
                         sh_quote("log_path=" + dir + "/t.raw" + (on ? "" : ":dump_on_terminate=0")) +
                         " exec " + sh_quote(bin) + " " + c.how);
      EXPECT_EQ(r.status, c.status) << tag << "\n" << r.err;
      EXPECT_EQ(r.out, c.out) << tag;
      EXPECT_EQ(r.err.find("profkit-memprof:"), std::string::npos) << tag << "\n" << r.err;
      const bool written = c.profile && (on || c.status == 0);
      const auto files = profiles_in(dir);
      ASSERT_EQ(files.size(), written ? 1u : 0u) << tag;
      if (files.empty()) continue;
      // Two blocks freed and three live when the signal came: all five, once (puts makes
      // stdout's buffer in the programs that go on).
      const Contexts got = profkit::test::llvm_memprof_show(bin, files[0]);
      ASSERT_EQ(got.size(), c.status == 0 ? 2u : 1u) << tag;
      int found = 0;
      for (const auto& [context, fields] : got) {
        if (context.find("allocate") == std::string::npos) continue;
        ++found;
        EXPECT_EQ(fields.at("AllocCount"), "5") << tag;
        EXPECT_EQ(fields.at("TotalSize"), "200") << tag;
      }
      EXPECT_EQ(found, 1) << tag;
    }
  }
}

// The program sees the dispositions it would see without the runtime: SIG_DFL where the
// runtime stands in for it (crash and termination signals), and what it set itself through
// signal() and sigaction() alike. (With the runtime's handlers visible, CPython did not
// install its KeyboardInterrupt handler: it does so only where SIGINT is SIG_DFL.)
TEST(Terminate, TheProgramSeesItsOwnDispositions) {
  const std::string bin = build("terminate");
  const std::string dir = profkit::test::work_dir("terminate_view");
  const auto r = run("MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/v.raw") + " " +
                     sh_quote(bin) + " view");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "Interrupt default, Terminated default, Broken pipe default, Segmentation fault "
            "default, Aborted default, User defined signal 1 default\n"
            "signal: default, own, ignore, default\n");
  const auto ignored = run("trap '' INT; MEMPROF_OPTIONS=" + sh_quote("log_path=" + dir + "/i.raw") +
                           " exec " + sh_quote(bin) + " view");
  EXPECT_EQ(ignored.out.substr(0, ignored.out.find(',')), "Interrupt ignore") << ignored.out;
}

// SIGTERM while four threads allocate and free without pause (some inside the runtime,
// where the dump waits until the thread leaves it), with and without interval dumps
// running: the process ends by SIGTERM, within seconds, with a whole profile.
TEST(Terminate, SigtermWhileThreadsAllocate) {
  const std::string bin = build("churn_threads");
  for (int round = 0; round < 6; ++round) {
    const std::string tag = "terminate_churn_" + std::to_string(round);
    const std::string dir = profkit::test::work_dir(tag);
    const std::string ready = dir + "/ready";
    const std::string options =
        "log_path=" + dir + "/c.raw" + (round % 2 ? ":dump_interval=0.02" : "");
    const auto r = run("MEMPROF_OPTIONS=" + sh_quote(options) + " " + sh_quote(bin) + " " +
                       sh_quote(ready) + " & p=$!; while [ ! -e " + sh_quote(ready) +
                       " ]; do sleep 0.02; done; sleep 0.0" + std::to_string(round) +
                       "; kill -TERM $p; (sleep 30; kill -KILL $p) </dev/null >/dev/null 2>&1 & " +
                       "wait $p; echo status $?");
    EXPECT_EQ(r.out, "status " + std::to_string(128 + SIGTERM) + "\n") << tag << "\n" << r.err;
    std::string exit_profile;
    for (const std::string& f : profiles_in(dir))
      if (f.find("/c.raw.") != std::string::npos && !is_interval_file(f)) exit_profile = f;
    ASSERT_FALSE(exit_profile.empty()) << tag;
    const Contexts got = profkit::test::llvm_memprof_show(bin, exit_profile);
    EXPECT_FALSE(got.empty()) << tag;
  }
}

// `profkit run` forwards SIGTERM to the program, which writes its profile and ends by it;
// `profkit run` then ends by it too.
TEST(Terminate, ProfkitRunStoppedBySigtermKeepsTheProfile) {
  const std::string bin = build("terminate");
  const std::string dir = profkit::test::work_dir("terminate_run");
  const std::string ready = dir + "/ready";
  const auto r = run(sh_quote(profkit::test::profkit_bin()) + " run -o " + sh_quote(dir + "/r.raw") +
                     " -- " + sh_quote(bin) + " wait " + sh_quote(ready) + " & p=$!; " +
                     "while [ ! -e " + sh_quote(ready) + " ]; do sleep 0.05; done; kill -TERM $p; " +
                     "wait $p; echo status $?");
  EXPECT_EQ(r.out, "status " + std::to_string(128 + SIGTERM) + "\n") << r.err;
  const auto files = profiles_in(dir);
  ASSERT_EQ(files.size(), 2u) << r.err;  // the profile and the ready file
  const Contexts got = profkit::test::llvm_memprof_show(bin, dir + "/r.raw");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.begin()->second.at("AllocCount"), "5");
}

}  // namespace
