#!/usr/bin/env python3
"""profkit merge/show --binary-file/--debug-info against llvm-profdata-22 on correlated raw
profiles of random programs (tests/gen/correlate_program_gen.py) built by clang-22 with
-profile-correlate=binary and =debug-info: -O0 and -O2, PIE and non-PIE executables, and a
shared library. Each case compares the exit status and the output bytes (indexed and
--text; show's text and YAML); error cases (no binary, a wrong binary, a binary without the
sections or DWARF, a raw file that needs no binary) compare the exit status.

usage: irpgo_correlation_test.py PROFKIT [SEEDS]     (PROFKIT_DIFF_SEED=S replays one seed)
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen", "correlate_program_gen.py")
CLANG = "clang-22"
LLVM_PROFDATA = "llvm-profdata-22"


def run(cmd, env=None, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if check and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                            p.stderr.decode(errors="replace")))
    return p


class Checker:
    def __init__(self, profkit, work):
        self.profkit = profkit
        self.work = work
        self.passed = 0
        self.failed = []

    def compare(self, label, sub, args, output=True):
        """Runs `sub` with args on both tools; compares exit status and (when `output`) the
        bytes written to -o."""
        results = []
        for tool in (LLVM_PROFDATA, self.profkit):
            out = os.path.join(self.work, "out.%d" % len(results))
            if os.path.exists(out):
                os.unlink(out)
            p = run([tool, sub] + args + ["-o", out], check=False)
            data = open(out, "rb").read() if os.path.exists(out) else None
            results.append((p.returncode, data, p.stderr.decode(errors="replace")))
        (lrc, ldata, lerr), (prc, pdata, perr) = results
        ok = lrc == prc and (not output or lrc != 0 or ldata == pdata)
        if ok and lrc != 0 and perr.count("\n") < 1:
            ok = False  # an error must be reported
        if ok:
            self.passed += 1
        else:
            self.failed.append("%s: %s %s\n  llvm rc=%d %s\n  profkit rc=%d %s" % (
                label, sub, " ".join(args), lrc, lerr.strip()[:300], prc, perr.strip()[:300]))


def build(src_dir, out, mode, opt, pie, shared_lib):
    """Builds the program; with shared_lib, lib.c becomes an instrumented lib.so (correlated)
    and main.c is built without instrumentation, so the raw file holds the library's image
    only. Returns (program, binary that holds the profile data)."""
    flags = ["-fprofile-generate", "-mllvm", "-profile-correlate=" + mode,
             "-mllvm", "-disable-vp=true", opt]
    if mode == "debug-info":
        flags.append("-g")
    main_c, lib_c = os.path.join(src_dir, "main.c"), os.path.join(src_dir, "lib.c")
    if shared_lib:
        lib = out + ".so"
        run([CLANG] + flags + ["-fPIC", "-shared", lib_c, "-o", lib])
        run([CLANG, opt, main_c, lib, "-Wl,-rpath," + os.path.dirname(lib), "-o", out])
        return out, lib
    pie_flags = ["-fPIE", "-pie"] if pie else ["-fno-pie", "-no-pie"]
    run([CLANG] + flags + pie_flags + [main_c, lib_c, "-o", out])
    return out, out


def profile_runs(program, prefix, args):
    raws = []
    for i, a in enumerate(args):
        raw = "%s.%d.profraw" % (prefix, i)
        env = dict(os.environ, LLVM_PROFILE_FILE=raw)
        run([program, str(a)], env=env)
        raws.append(raw)
    return raws


def check_seed(seed, checker, work):
    rng = random.Random(seed)
    src = os.path.join(work, "src%d" % seed)
    os.makedirs(src, exist_ok=True)
    run([sys.executable, GEN, str(seed), src])
    # Seeds 1..6 cover every pairing of -O0/-O2 with PIE/non-PIE, and two shared libraries.
    opt = "-O2" if seed % 2 == 0 else "-O0"
    pie = (seed // 2) % 2 == 1
    shared = seed % 3 == 0
    where = "seed %d %s %s%s" % (seed, opt, "pie" if pie else "no-pie", " shared-lib" if shared else "")
    builds = {}
    for mode in ("binary", "debug-info"):
        exe = os.path.join(work, "p%d-%s" % (seed, mode))
        program, binary = build(src, exe, mode, opt, pie, shared)
        raws = profile_runs(program, exe, [rng.randint(0, 9) for _ in range(3)])
        builds[mode] = (binary, raws)
    # A program built without correlation: its raw file needs no binary.
    plain_exe = os.path.join(work, "p%d-plain" % seed)
    run([CLANG, "-fprofile-generate", "-mllvm", "-disable-vp=true", opt,
         os.path.join(src, "main.c"), os.path.join(src, "lib.c"), "-o", plain_exe])
    plain_raw = profile_runs(plain_exe, plain_exe, [1])[0]
    # A binary with DWARF but no profile sections.
    nodata = os.path.join(work, "p%d-nodata" % seed)
    run([CLANG, "-g", opt, os.path.join(src, "main.c"), os.path.join(src, "lib.c"), "-o", nodata])

    for mode, option in (("binary", "--binary-file"), ("debug-info", "--debug-info")):
        binary, raws = builds[mode]
        label = "%s %s" % (where, mode)
        corr = ["%s=%s" % (option, binary)]
        for text in ([], ["--text"]):
            checker.compare(label, "merge", corr + text + [raws[0]])
            checker.compare(label, "merge", corr + text + raws)
            w = [rng.randint(1, 5) for _ in raws]
            checker.compare(label, "merge", corr + text + [raws[0]] +
                            ["--weighted-input=%d,%s" % (wi, r) for wi, r in zip(w, raws[1:])])
            checker.compare(label, "merge", corr + text + ["--sparse"] + raws)
            checker.compare(label, "merge", text + [raws[0]])  # no binary: no records
        # The single-dash spelling with a separate value.
        checker.compare(label, "merge", ["-" + option.lstrip("-"), binary, raws[1]])
        checker.compare(label, "merge", corr + ["--max-debug-info-correlation-warnings=1"] + raws)
        # Correlated raw inputs mixed with an indexed profile of the same program.
        indexed = os.path.join(work, "p%d-%s.profdata" % (seed, mode))
        run([LLVM_PROFDATA, "merge"] + corr + [raws[2], "-o", indexed])
        checker.compare(label, "merge", corr + [raws[0], "--weighted-input=2," + indexed])
        checker.compare(label, "merge", corr + ["--text", indexed, raws[1]])
        # Errors and refusals.
        checker.compare(label, "merge", ["%s=%s" % (option, nodata), raws[0]])
        other = builds["debug-info" if mode == "binary" else "binary"][0]
        checker.compare(label, "merge", ["%s=%s" % (option, other)] + raws[:1])
        checker.compare(label, "merge", corr + [plain_raw])
        checker.compare(label, "merge", corr + [raws[0], plain_raw])
        checker.compare(label, "merge", corr + ["--failure-mode=all", raws[0], plain_raw])
        checker.compare(label, "merge", ["%s=%s" % (option, os.path.join(src, "main.c")), raws[0]])
        checker.compare(label, "merge", ["%s=%s" % (option, binary + ".missing"), raws[0]])
        checker.compare(label, "merge", ["--binary-file=" + builds["binary"][0],
                                         "--debug-info=" + builds["debug-info"][0], raws[0]])
        checker.compare(label, "show", ["--all-functions", "--counts", raws[0]])
    # show --debug-info prints the DWARF's probes (llvm-profdata 22 show has no --binary-file).
    dbg = builds["debug-info"][0]
    label = "%s show" % where
    for extra in ([], ["--show-format=yaml"], ["--show-prof-sym-list"], ["--show-format=json"],
                  [builds["debug-info"][1][0]]):
        checker.compare(label, "show", ["--debug-info=" + dbg] + extra)
    checker.compare(label, "show", ["--debug-info=" + nodata])
    checker.compare(label, "show", ["--debug-info=" + builds["binary"][0], "--show-format=yaml"])


def main():
    profkit = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    if "PROFKIT_DIFF_SEED" in os.environ:
        seed_list = [int(os.environ["PROFKIT_DIFF_SEED"])]
    else:
        seed_list = list(range(1, seeds + 1))
    with tempfile.TemporaryDirectory(prefix="profkit-correlate-") as work:
        checker = Checker(profkit, work)
        for seed in seed_list:
            check_seed(seed, checker, work)
        for f in checker.failed:
            print("FAIL", f)
        print("%d cases passed, %d failed (seeds %s)" % (checker.passed, len(checker.failed),
                                                         seed_list))
        return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
