"""`profkit-fleet merge`: the command line, the plan (shards, build-id groups) and the tree."""

import argparse
import os
import sys
import tempfile
import time

from profkit_fleet import cluster, work

USAGE_EXAMPLE = """\
examples:
  profkit-fleet merge --local 2 --inputs LIST -o merged.profdata
  profkit-fleet merge --scheduler tls://10.0.0.5:8786 --tls-ca-file ca.pem \\
      --tls-cert client.pem --tls-key client.key --inputs LIST -o merged.profdata
  profkit-fleet merge --local 4 --inputs RAWS --profiled-binary bins/ -o out-%b.memprofdata
"""


def _profkit_beside_me():
    """The `profkit` installed next to this program (build/bin/ or PREFIX/bin/)."""
    here = os.path.dirname(os.path.realpath(sys.argv[0] if sys.argv[0] else __file__))
    candidate = os.path.join(here, "profkit")
    return candidate if os.access(candidate, os.X_OK) else "profkit"


def _parser():
    p = argparse.ArgumentParser(
        prog="profkit-fleet",
        description="Merge many profiles on a Dask cluster, byte-identical to one "
                    "`profkit merge` of all of them.",
        epilog=USAGE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("merge", help="merge the profiles named in a list",
                       epilog=USAGE_EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    where = m.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="Dask scheduler to use (tcp://HOST:PORT or tls://HOST:PORT)")
    where.add_argument("--local", metavar="N", type=int,
                       help="start N local worker processes for this merge")
    m.add_argument("--inputs", metavar="LIST", required=True,
                   help="file naming one input per line, FILE or W,FILE (as profkit merge -f)")
    m.add_argument("-o", "--output", required=True,
                   help="output file; with raw memprof inputs of several builds, %%b in it "
                        "is replaced by each build's id")
    m.add_argument("--text", action="store_true", help="write the text format")
    m.add_argument("--sparse", action="store_true",
                   help="leave out functions whose counters are all zero")
    m.add_argument("--failure-mode", choices=["any", "all"], default="any",
                   help="any: fail if any input is invalid (default); all: skip invalid ones")
    m.add_argument("--profile-version", type=int, choices=[7, 11, 13],
                   help="indexed version to write (profkit merge's default otherwise)")
    m.add_argument("--profiled-binary", action="append", default=[], metavar="BIN|DIR",
                   help="MemProf: profiled binary, or directory searched by build id "
                        "(repeatable); must be readable by the workers at the same path")
    m.add_argument("--memprof-version", type=int, choices=[2, 3, 4])
    m.add_argument("--memprof-full-schema", action="store_true")
    m.add_argument("--shard-size", type=int, default=256, metavar="N",
                   help="inputs per worker task (default 256): bounds a worker's memory")
    m.add_argument("--fan-in", type=int, default=8, metavar="K",
                   help="partial profiles merged per reduce task (default 8)")
    m.add_argument("--profkit", default=None, metavar="PATH",
                   help="profkit on the workers (default: the one beside profkit-fleet, "
                        "else profkit on the worker's PATH)")
    m.add_argument("--worker-memory-limit", type=int, default=0, metavar="MIB",
                   help="address-space limit of each profkit run on a worker (0: none)")
    m.add_argument("--task-timeout", type=int, default=0, metavar="SECONDS",
                   help="a profkit run taking longer is treated as having crashed (0: none)")
    m.add_argument("--retries", type=int, default=3,
                   help="times a task is retried after an error (default 3); tasks lost "
                        "with a dead worker are rescheduled by Dask as well")
    m.add_argument("--tls-ca-file", help="CA certificate for tls:// schedulers")
    m.add_argument("--tls-cert", help="client certificate (PEM)")
    m.add_argument("--tls-key", help="client private key (PEM)")
    m.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                   help="the progress line on standard error (auto: when it is a terminal)")
    m.add_argument("--quiet", action="store_true", help="no summary line at the end")
    return p


def _read_list(path):
    """Entries of the input list, with the same rules as `profkit merge -f`."""
    entries = []
    try:
        with open(path, encoding="utf-8") as f:
            for no, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                if "," in line:
                    w, _, _ = line.partition(",")
                    if not w.isdigit() or int(w) < 1:
                        raise work.FleetError(
                            f"{path}:{no}: expected FILE or W,FILE with an integer weight >= 1")
                entries.append(line)
    except OSError as e:
        raise work.FleetError(f"{path}: error: cannot read the input list: {e.strerror}")
    if not entries:
        raise work.FleetError(f"{path}: error: the input list names no input")
    return entries


def _weight(entry):
    w, comma, _ = entry.partition(",")
    return int(w) if comma and w.isdigit() else 1


def _chunks(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


class Progress:
    """One terminal line: files done, bytes, rate."""

    def __init__(self, total, mode):
        self.total, self.done, self.bytes = total, 0, 0
        self.start = time.monotonic()
        self.enabled = mode == "always" or (mode == "auto" and sys.stderr.isatty())

    def add(self, files, size):
        self.done += files
        self.bytes += size
        if self.enabled:
            sys.stderr.write("\r" + self.line())
            sys.stderr.flush()

    def line(self):
        secs = max(time.monotonic() - self.start, 1e-6)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (f"profkit-fleet: {self.done}/{self.total} inputs ({pct:.0f}%), "
                f"{self.bytes / 1e6:.1f} MB, {self.done / secs:.0f} inputs/s, "
                f"{self.bytes / 1e6 / secs:.1f} MB/s")

    def finish(self):
        if self.enabled:
            sys.stderr.write("\n")


def _group_memprof(client, opts, entries, profkit):
    """Splits raw memprof entries by the build id of their profiled binary.

    Returns ({build id: [entries]}, [other entries]). A raw profile is keyed by the first of
    its segments whose build id is one of the --profiled-binary files' (or a binary in a
    --profiled-binary directory); without a match it is an error naming the file.
    """
    paths = [work._entry_path(e) for e in entries]
    kinds = [k for chunk in client.gather(
        [client.submit(work.sniff_kinds, c, pure=False) for c in _chunks(paths, 2000)])
        for k in chunk]
    raw = [(e, p) for e, p, k in zip(entries, paths, kinds) if k == "memprof-raw"]
    other = [e for e, k in zip(entries, kinds) if k != "memprof-raw"]
    if not raw:
        return {}, entries
    if not opts.profiled_binary:
        raise work.FleetError("raw memprof inputs need --profiled-binary (a binary or a "
                              "directory searched by build id)")
    binaries = client.submit(work.binaries_in, profkit, opts.profiled_binary, pure=False).result()
    known = {ids[0] for kind, ids, _ in binaries if kind == "elf" and ids[0] != "-"}
    groups = {}
    results = client.gather([client.submit(work.build_ids, profkit, [p for _, p in c],
                                           pure=False) for c in _chunks(raw, 500)])
    flat = [r for chunk in results for r in chunk]
    for (entry, _), (kind, ids, path) in zip(raw, flat):
        if kind is None:
            if opts.failure_mode == "all":
                print(ids.replace(": error: ", ": warning: skipped: ", 1), file=sys.stderr)
                continue
            raise work.FleetError(ids)
        match = next((i for i in ids if i in known), None)
        if match is None:
            first = next((i for i in ids if i != "-"), "none")
            raise work.FleetError(
                f"{path}: error: no profiled binary with any of its build ids (first: {first}) "
                f"in {', '.join(opts.profiled_binary)}")
        groups.setdefault(match, []).append(entry)
    return groups, other


def _merge_args(opts, final):
    """profkit merge options: the shards' (full information, indexed) or the last merge's."""
    args = []
    for b in opts.profiled_binary:
        args.append(f"--profiled-binary={b}")
    if final:
        if opts.text:
            args.append("--text")
        if opts.sparse:
            args.append("--sparse")
        if opts.profile_version:
            args.append(f"--profile-version={opts.profile_version}")
        if opts.memprof_version:
            args.append(f"--memprof-version={opts.memprof_version}")
        if opts.memprof_full_schema:
            args.append("--memprof-full-schema")
    else:
        # Partial profiles keep everything the last merge may need: every MIB field and
        # the newest memprof layout; the last merge picks what is written.
        args += ["--memprof-version=4", "--memprof-full-schema"]
    return args


def _merge_group(client, opts, entries, profkit, progress):
    """Submits the shard merges and the reduce tree of one group; returns the final result."""
    shard_args = _merge_args(opts, final=False)
    final_args = _merge_args(opts, final=True)
    limit = opts.worker_memory_limit << 20
    timeout = opts.task_timeout or None
    failure_all = opts.failure_mode == "all"
    chunks = _chunks(entries, max(1, opts.shard_size))
    if any(_weight(e) != 1 for e in entries):
        # A weighted input makes the result depend on what was merged before it (see
        # docs/fleet.md), so the shards form a chain: each starts from the partial profile
        # of all earlier shards. Same bytes as one merge; the shards run one after another.
        shards, before = [], None
        for lines in chunks:
            before = client.submit(work.merge_after, profkit, before, lines, shard_args,
                                   failure_all, limit, timeout, retries=opts.retries,
                                   pure=False)
            shards.append(before)
        level = [before]
    else:
        shards = [client.submit(work.merge_lines, profkit, lines, shard_args, failure_all,
                                limit, timeout, retries=opts.retries, pure=False)
                  for lines in chunks]
        level = shards
    fan_in = max(2, opts.fan_in)
    while len(level) > fan_in:
        level = [client.submit(work.combine, profkit, group, shard_args, limit, timeout,
                               retries=opts.retries, pure=False)
                 for group in _chunks(level, fan_in)]
    final = client.submit(work.combine, profkit, level, final_args, limit, timeout,
                          retries=opts.retries, pure=False)
    from distributed import as_completed
    chained = level == [shards[-1]] and len(shards) > 1
    done_inputs = done_bytes = 0
    for fut in as_completed(shards):
        if fut.status == "error":
            break  # reported by final.result() below
        r = fut.result()
        if chained:  # a link's result covers every earlier shard too
            progress.add(r.inputs - done_inputs, r.size_bytes - done_bytes)
            done_inputs, done_bytes = max(done_inputs, r.inputs), max(done_bytes, r.size_bytes)
        else:
            progress.add(r.inputs, r.size_bytes)
    return final.result()


def _write(path, data):
    """Writes through a temporary file in the same directory, then renames."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".profkit-fleet-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _same_file(a, b):
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def run_merge(opts):
    entries = _read_list(opts.inputs)
    profkit = opts.profkit or _profkit_beside_me()
    for e in entries:
        path = work._entry_path(e)
        if _same_file(path, opts.output) or _same_file(opts.inputs, opts.output):
            raise work.FleetError(f"{opts.output}: error: the output is also an input")
    with cluster.connect(opts) as client:
        groups, other = _group_memprof(client, opts, entries, profkit)
        jobs = []  # (output path, entries)
        if groups:
            if other and len(groups) > 1:
                raise work.FleetError("raw memprof inputs of several builds cannot be merged "
                                      "with other profiles into one output")
            if len(groups) > 1 and "%b" not in opts.output:
                raise work.FleetError(
                    f"{opts.output}: error: the inputs come from {len(groups)} builds "
                    f"({', '.join(sorted(groups))}): put %b in -o to write one output each")
            for build_id, group in groups.items():
                keep = set(group) | set(other)
                ordered = [e for e in entries if e in keep]  # input order, as profkit merge
                jobs.append((opts.output.replace("%b", build_id), ordered))
        else:
            jobs.append((opts.output.replace("%b", "none"), entries))
        progress = Progress(sum(len(j[1]) for j in jobs), opts.progress)
        results = []
        for out, group in jobs:
            results.append((out, _merge_group(client, opts, group, profkit, progress)))
        progress.finish()
    failed = 0
    for out, result in results:
        for w in result.warnings:
            print(w, file=sys.stderr)
        failed += sum(1 for w in result.warnings if ": warning: skipped" in w)
        if not result.data:
            raise work.FleetError("merge: no profile can be merged (every input failed)")
    for out, result in results:
        _write(out, result.data)
    if not opts.quiet:
        print(progress.line().replace("profkit-fleet: ", "profkit-fleet: merged ", 1) +
              (f"; {failed} skipped" if failed else "") +
              f"; wrote {', '.join(out for out, _ in results)}", file=sys.stderr)
    return 0


def main(argv):
    opts = _parser().parse_args(argv)
    try:
        if opts.command == "merge":
            return run_merge(opts)
    except work.FleetError as e:
        msg = str(e)
        print(msg if ": error: " in msg or msg.startswith("profkit") else
              f"profkit-fleet: error: {msg}", file=sys.stderr)
        return 1
    except cluster.ConnectError as e:
        print(f"profkit-fleet: error: {e}", file=sys.stderr)
        return 1
    return 2
