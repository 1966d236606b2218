"""profkit-fleet against one local `profkit merge`, on a Dask cluster started the real way.

A scheduler and two workers are started as separate processes (`dask scheduler`,
`dask worker`), as an operator would on a cluster; the inputs are the raw profiles of a
few thousand runs of a small instrumented program. Every merge must give the same bytes as
`profkit merge -f LIST` of the same list. Run: fleet_test.py --build-dir BUILD.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = None       # --build-dir
WORK = None        # temporary directory of this run
RAWS = []          # IR-PGO raw profiles, one per run
MEMPROF = {}       # build tag -> list of raw memprof profiles
BIN_DIR = None     # the two memprof builds, found by build id
RUNS = int(os.environ.get("PROFKIT_FLEET_RUNS", "3000"))
CLANG = "clang-22"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


def build_inputs():
    global BIN_DIR
    src = os.path.join(HERE, "programs", "fleet_prog.c")
    prog = os.path.join(WORK, "prog")
    sh([CLANG, "-O1", "-fprofile-generate", src, "-o", prog])
    raw_dir = os.path.join(WORK, "raw")
    os.mkdir(raw_dir)
    for i in range(RUNS):
        path = os.path.join(raw_dir, f"run{i:05d}.profraw")
        subprocess.run([prog, str(i)], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "LLVM_PROFILE_FILE": path})
        RAWS.append(path)
    # MemProf: two builds of the program (different code, so different build ids), linked
    # with profkit's runtime.
    BIN_DIR = os.path.join(WORK, "bins")
    os.mkdir(BIN_DIR)
    lib = os.path.join(BUILD, "lib")
    for tag in (1, 2):
        obj = os.path.join(WORK, f"mp{tag}.o")
        exe = os.path.join(BIN_DIR, f"mp{tag}")
        sh([CLANG, "-O1", "-g", "-fno-omit-frame-pointer", "-fmemory-profile",
            f"-DBUILD_TAG={tag}", "-c", src, "-o", obj])
        sh([CLANG, obj, "-o", exe, os.path.join(lib, "libprofkit_memprof.so"),
            f"-Wl,-rpath,{lib}", "-Wl,--build-id"])
        outs = []
        for i in range(12):
            prefix = os.path.join(WORK, f"mp{tag}-{i}")
            subprocess.run([exe, str(i)], check=True, stdout=subprocess.DEVNULL,
                           env={**os.environ, "MEMPROF_OPTIONS": f"log_path={prefix}"})
            made = [f for f in os.listdir(WORK) if f.startswith(f"mp{tag}-{i}.")]
            assert len(made) == 1, made
            outs.append(os.path.join(WORK, made[0]))
        MEMPROF[tag] = outs


class Cluster:
    """`dask scheduler` and `dask worker` processes on this machine."""

    def __init__(self, workers=2, tls=None, worker_env=None):
        self.procs = []
        self.dir = tempfile.mkdtemp(dir=WORK, prefix="cluster-")
        self.file = os.path.join(self.dir, "scheduler.json")
        tls_args = []
        if tls:
            tls_args = ["--tls-ca-file", tls["ca"], "--tls-cert", tls["cert"],
                        "--tls-key", tls["key"]]
        sched = ["dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                 "--no-dashboard", "--scheduler-file", self.file]
        if tls:
            sched += ["--protocol", "tls", *tls_args]
        self._start(sched, "scheduler")
        deadline = time.monotonic() + 60
        while not os.path.exists(self.file):
            if time.monotonic() > deadline:
                raise RuntimeError("the scheduler did not start: " + self.log("scheduler"))
            time.sleep(0.1)
        time.sleep(0.2)
        with open(self.file) as f:
            self.address = json.load(f)["address"]
        self.workers = []
        for i in range(workers):
            self.add_worker(tls_args, worker_env, f"worker{i}")
        self.wait_for_workers(workers)

    def _start(self, cmd, name):
        # The processes' temporary files live in the cluster's directory, so those of a
        # worker the tests kill outright go with WORK instead of staying in /tmp.
        tmp = os.path.join(self.dir, "tmp")
        os.makedirs(tmp, exist_ok=True)
        env = {**os.environ, "PATH": os.path.join(BUILD, "bin") + ":" + os.environ["PATH"],
               "TMPDIR": tmp}
        with open(os.path.join(self.dir, name + ".log"), "w") as log:
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env, cwd=self.dir,
                                 start_new_session=True)
        self.procs.append(p)
        return p

    def add_worker(self, tls_args, env_extra, name):
        cmd = ["dask", "worker", "--scheduler-file", self.file, "--nworkers", "1",
               "--nthreads", "1", "--no-nanny", "--no-dashboard", "--local-directory", self.dir,
               *tls_args]
        p = self._start(cmd, name)
        self.workers.append(p)
        return p

    def wait_for_workers(self, n):
        # A plain client to count workers would need the TLS files; the logs say it too.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready = sum("Registered to" in self.log(f"worker{i}") for i in range(n))
            if ready >= n:
                return
            time.sleep(0.2)
        raise RuntimeError("workers did not register: " + self.log("worker0"))

    def log(self, name):
        try:
            with open(os.path.join(self.dir, name + ".log")) as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def write_list(name, entries):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write("\n".join(entries) + "\n")
    return path


def profkit_merge(list_path, extra, out):
    return subprocess.run([os.path.join(BUILD, "bin", "profkit"), "merge", "-f", list_path,
                           "-o", out, *extra], capture_output=True, text=True)


def fleet(args, **kw):
    return subprocess.run([os.path.join(BUILD, "bin", "profkit-fleet"), "merge", *args],
                          capture_output=True, text=True, **kw)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class FleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = Cluster(workers=2)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.close()

    def assert_same_as_local(self, entries, extra, shard_size, fan_in, name):
        lst = write_list(name + ".list", entries)
        want = os.path.join(WORK, name + ".want")
        got = os.path.join(WORK, name + ".got")
        local = profkit_merge(lst, extra, want)
        self.assertEqual(local.returncode, 0, local.stderr)
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o", got,
                   "--shard-size", str(shard_size), "--fan-in", str(fan_in), *extra])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(read(want) == read(got),
                        f"{name}: profkit-fleet output differs from profkit merge "
                        f"(shard size {shard_size}, fan-in {fan_in}, {extra})")
        return r

    def test_identical_to_one_local_merge_for_any_sharding(self):
        for shard_size, fan_in in ((256, 8), (97, 3), (1, 64), (len(RAWS), 2)):
            with self.subTest(shard_size=shard_size, fan_in=fan_in):
                self.assert_same_as_local(RAWS, [], shard_size, fan_in, f"ident{shard_size}")

    def test_identical_with_output_options(self):
        for extra in (["--text"], ["--sparse"], ["--profile-version=11"]):
            with self.subTest(extra=extra):
                self.assert_same_as_local(RAWS[:600], extra, 50, 4,
                                          "opts" + extra[0].strip("-").replace("=", ""))

    def test_identical_with_weights_and_repeated_inputs(self):
        entries = [f"{1 + i % 5},{p}" if i % 3 == 0 else p for i, p in enumerate(RAWS[:400])]
        entries += RAWS[:40]  # an input named twice counts twice, as in profkit merge
        self.assert_same_as_local(entries, [], 33, 3, "weights")

    def test_corrupt_input_is_named_and_skipped_or_fatal(self):
        bad = os.path.join(WORK, "corrupt.profraw")
        with open(RAWS[0], "rb") as f:
            head = f.read(64)
        with open(bad, "wb") as f:
            f.write(head + b"\xff" * 100)  # a raw header promising sections that are not there
        entries = RAWS[:300] + [bad] + RAWS[300:500]
        r = self.assert_same_as_local(entries, ["--failure-mode=all"], 64, 4, "corrupt_all")
        self.assertIn(bad, r.stderr)
        lst = write_list("corrupt_any.list", entries)
        out = os.path.join(WORK, "corrupt_any.out")
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o", out,
                   "--shard-size", "64"])
        self.assertEqual(r.returncode, 1)
        self.assertIn(bad, r.stderr)
        self.assertFalse(os.path.exists(out), "no output after a fatal input")

    def test_a_hostile_input_fails_alone_and_the_workers_stay_up(self):
        # A FIFO nobody writes to: profkit blocks opening it forever. The task time-out
        # kills that profkit run; the shard is split until the input is found, which is
        # named and skipped (--failure-mode=all). The workers serve the next merge.
        fifo = os.path.join(WORK, "hostile.fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        entries = RAWS[:10] + [fifo] + RAWS[10:20]
        lst = write_list("hostile.list", entries)
        want = os.path.join(WORK, "hostile.want")
        self.assertEqual(profkit_merge(write_list("hostile_ok.list", RAWS[:20]), [], want)
                         .returncode, 0)
        got = os.path.join(WORK, "hostile.got")
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o", got,
                   "--shard-size", "8", "--task-timeout", "3", "--failure-mode=all"],
                  timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(fifo + ": warning: skipped", r.stderr)
        self.assertTrue(read(want) == read(got))
        self.assertTrue(all(w.poll() is None for w in self.cluster.workers))

    def test_output_that_is_an_input_is_refused(self):
        lst = write_list("self.list", RAWS[:3])
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o", RAWS[1]])
        self.assertEqual(r.returncode, 1)
        self.assertIn("the output is also an input", r.stderr)

    def test_memprof_inputs_are_grouped_by_build_id(self):
        mixed = [p for pair in zip(MEMPROF[1], MEMPROF[2]) for p in pair]
        lst = write_list("memprof.list", mixed)
        pattern = os.path.join(WORK, "memprof-%b.out")
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o", pattern,
                   "--profiled-binary", BIN_DIR, "--shard-size", "5", "--fan-in", "2"])
        self.assertEqual(r.returncode, 0, r.stderr)
        outs = sorted(f for f in os.listdir(WORK) if f.startswith("memprof-") and
                      f.endswith(".out"))
        self.assertEqual(len(outs), 2, outs)
        for tag in (1, 2):
            ids = subprocess.run([os.path.join(BUILD, "bin", "profkit"), "build-ids",
                                  os.path.join(BIN_DIR, f"mp{tag}")], capture_output=True,
                                 text=True, check=True).stdout.split("\t")[1]
            want = os.path.join(WORK, f"memprof-want{tag}")
            local = profkit_merge(write_list(f"mp{tag}.list", MEMPROF[tag]),
                                  [f"--profiled-binary={BIN_DIR}"], want)
            self.assertEqual(local.returncode, 0, local.stderr)
            self.assertTrue(read(want) == read(os.path.join(WORK, f"memprof-{ids}.out")),
                            f"build {tag}: the group's output differs from profkit merge")
        # Two builds and no %b: refused before anything is merged.
        r = fleet(["--scheduler", self.cluster.address, "--inputs", lst, "-o",
                   os.path.join(WORK, "one.out"), "--profiled-binary", BIN_DIR])
        self.assertEqual(r.returncode, 1)
        self.assertIn("%b", r.stderr)


class WorkerKilledTest(unittest.TestCase):
    def test_a_worker_killed_mid_merge_loses_no_input(self):
        cluster = Cluster(workers=2)
        try:
            lst = write_list("kill.list", RAWS)
            want = os.path.join(WORK, "kill.want")
            got = os.path.join(WORK, "kill.got")
            self.assertEqual(profkit_merge(lst, [], want).returncode, 0)
            proc = subprocess.Popen(
                [os.path.join(BUILD, "bin", "profkit-fleet"), "merge", "--scheduler",
                 cluster.address, "--inputs", lst, "-o", got, "--shard-size", "8",
                 "--progress", "always"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # Wait until shards are being merged, then kill one worker outright.
            os.set_blocking(proc.stderr.fileno(), False)
            seen = b""
            deadline = time.monotonic() + 120
            while b"inputs (" not in seen and time.monotonic() < deadline:
                time.sleep(0.05)
                seen += proc.stderr.read() or b""
            victim = cluster.workers[0]
            self.assertIsNone(proc.poll(), "the merge ended before a worker could be killed")
            os.killpg(victim.pid, signal.SIGKILL)
            victim.wait()
            os.set_blocking(proc.stderr.fileno(), True)
            _, err = proc.communicate(timeout=600)
            self.assertEqual(proc.returncode, 0, (seen + err).decode())
            self.assertTrue(read(want) == read(got),
                            "output after a killed worker differs from profkit merge")
        finally:
            cluster.close()


def make_tls(dir_):
    """A CA, a certificate for the scheduler/workers and one for the client; and a second CA
    with a client certificate that the cluster must refuse."""
    def run(*a):
        sh(["openssl", *a], cwd=dir_)
    files = {}
    for ca in ("ca", "rogue-ca"):
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            f"/CN={ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.pem")
    for name, ca in (("node", "ca"), ("client", "ca"), ("rogue", "rogue-ca")):
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout",
            f"{name}.key", "-out", f"{name}.csr")
        with open(os.path.join(dir_, "san.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", f"{name}.pem")
        files[name] = (os.path.join(dir_, f"{name}.pem"), os.path.join(dir_, f"{name}.key"))
    files["ca"] = os.path.join(dir_, "ca.pem")
    files["rogue-ca"] = os.path.join(dir_, "rogue-ca.pem")
    return files


class TlsTest(unittest.TestCase):
    def test_merge_over_tls_and_a_client_without_the_certificate_is_refused(self):
        tls_dir = tempfile.mkdtemp(dir=WORK, prefix="tls-")
        f = make_tls(tls_dir)
        cluster = Cluster(workers=1, tls={"ca": f["ca"], "cert": f["node"][0],
                                          "key": f["node"][1]})
        try:
            self.assertTrue(cluster.address.startswith("tls://"), cluster.address)
            lst = write_list("tls.list", RAWS[:200])
            want = os.path.join(WORK, "tls.want")
            self.assertEqual(profkit_merge(lst, [], want).returncode, 0)
            got = os.path.join(WORK, "tls.got")
            r = fleet(["--scheduler", cluster.address, "--tls-ca-file", f["ca"], "--tls-cert",
                       f["client"][0], "--tls-key", f["client"][1], "--inputs", lst, "-o", got,
                       "--shard-size", "50"], timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(read(want) == read(got))
            # No certificate at all: refused by profkit-fleet before connecting.
            r = fleet(["--scheduler", cluster.address, "--inputs", lst, "-o", got + "2"],
                      timeout=120)
            self.assertEqual(r.returncode, 1)
            self.assertFalse(os.path.exists(got + "2"))
            # A certificate the cluster's CA did not sign: the scheduler refuses the client.
            r = fleet(["--scheduler", cluster.address, "--tls-ca-file", f["rogue-ca"],
                       "--tls-cert", f["rogue"][0], "--tls-key", f["rogue"][1],
                       "--inputs", lst, "-o", got + "3"], timeout=120)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot connect", r.stderr)
            self.assertFalse(os.path.exists(got + "3"))
        finally:
            cluster.close()


def main():
    global BUILD, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    args, rest = ap.parse_known_args()
    BUILD = os.path.abspath(args.build_dir)
    WORK = tempfile.mkdtemp(prefix="profkit-fleet-test-")
    try:
        t0 = time.monotonic()
        build_inputs()
        print(f"made {len(RAWS)} raw profiles in {time.monotonic() - t0:.1f} s", flush=True)
        result = unittest.main(argv=[sys.argv[0], "-v", *rest], exit=False).result
        ok = result.wasSuccessful()
        print(f"{result.testsRun - len(result.failures) - len(result.errors)} passed, "
              f"{len(result.failures) + len(result.errors)} failed")
        return 0 if ok and result.testsRun > 0 else 1
    finally:
        if os.environ.get("PROFKIT_FLEET_KEEP"):
            print("kept", WORK)
        else:
            shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
