"""What a Dask worker runs: `profkit` as a child process on a shard of inputs.

Every function here is pure in its arguments (files in, bytes out), so Dask may run it again
on another worker when one dies: a retried shard gives the same bytes. The functions are sent
to the workers by value (see cluster.py), so a worker needs Dask and `profkit`, not this
package.
"""

import os
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field

# Exit status `profkit merge` uses for every error (bad input, bad option, unwritable output).
_PROFKIT_ERROR = 1
# What `profkit merge --failure-mode=all` says when it skipped every input.
_NOTHING_MERGED = "no profile can be merged"


class FleetError(Exception):
    """A failure to report to the user as one line (it names the input where there is one)."""


@dataclass
class Shard:
    """Consecutive entries of the input list: `lines` are `FILE` or `W,FILE`, as in -f LIST."""

    index: int
    lines: list
    size_bytes: int = 0


@dataclass
class MergeResult:
    """A partial (or final) profile and what profkit said on the way."""

    data: bytes = b""            # empty: every input was skipped
    warnings: list = field(default_factory=list)  # profkit's stderr lines, in input order
    inputs: int = 0              # inputs this result covers
    size_bytes: int = 0          # their total size


def _find_profkit(path):
    if path and os.access(path, os.X_OK):
        return path
    found = shutil.which("profkit")
    if found:
        return found
    raise FleetError(
        f"profkit not found on this worker (looked for {path or 'profkit'} and on PATH): "
        "install it there or pass --profkit PATH")


def _limit_memory(limit_bytes):
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply if limit_bytes else None


def _run_merge(profkit, list_lines, args, tmp, memory_limit, timeout):
    """Runs `profkit merge -f LIST ARGS -o OUT`; returns (returncode, stdout-bytes, stderr)."""
    list_path = os.path.join(tmp, "inputs.list")
    out_path = os.path.join(tmp, "merged.profdata")
    with open(list_path, "w", encoding="utf-8") as f:
        for line in list_lines:
            f.write(line + "\n")
    cmd = [profkit, "merge", "-f", list_path, "-o", out_path, *args]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, preexec_fn=_limit_memory(memory_limit),
                              check=False)
    except subprocess.TimeoutExpired:
        return -signal.SIGKILL, b"", f"profkit merge did not finish within {timeout} s"
    data = b""
    if proc.returncode == 0:
        with open(out_path, "rb") as f:
            data = f.read()
    return proc.returncode, data, proc.stderr.decode("utf-8", "replace")


def _entry_path(line):
    """The file of an input-list entry (`FILE` or `W,FILE`)."""
    comma = line.find(",")
    if comma > 0 and line[:comma].isdigit():
        return line[comma + 1:]
    return line


def merge_after(profkit, before, lines, args, failure_all, memory_limit=0, timeout=None):
    """Merges `before` (the partial profile of every earlier input, or None) and then the
    inputs named by `lines`: one link of a chain, for merges that depend on what came
    before (a weighted input; see docs/fleet.md)."""
    if before is None or not before.data:
        result = merge_lines(profkit, lines, args, failure_all, memory_limit, timeout)
        if before is not None:
            result.warnings = before.warnings + result.warnings
            result.inputs += before.inputs
            result.size_bytes += before.size_bytes
        return result
    with tempfile.TemporaryDirectory(prefix="profkit-fleet-") as tmp:
        prefix = os.path.join(tmp, "before.profdata")
        with open(prefix, "wb") as f:
            f.write(before.data)
        result = merge_lines(profkit, [prefix, *lines], args, failure_all, memory_limit,
                             timeout)
    result.warnings = before.warnings + result.warnings
    result.inputs += before.inputs - 1
    result.size_bytes += before.size_bytes - len(before.data)
    return result


def merge_lines(profkit, lines, args, failure_all, memory_limit=0, timeout=None):
    """Merges the inputs named by `lines` (in order) with `profkit merge ARGS`.

    With `failure_all`, inputs profkit cannot read are skipped (its warnings are kept, as
    --failure-mode=all does) and a shard whose inputs all fail gives an empty result;
    otherwise the first such input raises FleetError with profkit's own one-line error.
    If profkit itself dies (a signal, a time-out), the inputs are merged one at a time to
    find the one responsible, which is named and skipped or fatal as above: one hostile
    input never takes the shard, or the worker, down with it.
    """
    profkit = _find_profkit(profkit)
    size = 0
    for line in lines:
        try:
            size += os.stat(_entry_path(line)).st_size
        except OSError:
            pass
    mode = ["--failure-mode=all" if failure_all else "--failure-mode=any"]
    with tempfile.TemporaryDirectory(prefix="profkit-fleet-") as tmp:
        rc, data, err = _run_merge(profkit, lines, [*args, *mode], tmp, memory_limit, timeout)
        warnings = [w for w in err.splitlines() if w]
        if rc == 0:
            return MergeResult(data, warnings, len(lines), size)
        if rc == _PROFKIT_ERROR:
            if failure_all and any(_NOTHING_MERGED in w for w in warnings):
                kept = [w for w in warnings if _NOTHING_MERGED not in w]
                return MergeResult(b"", kept, len(lines), size)
            raise FleetError(warnings[-1] if warnings else f"profkit merge failed (exit {rc})")
    # profkit crashed or hung: find the input(s) responsible.
    if len(lines) == 1:
        reason = err.strip() or f"profkit merge died with signal {-rc}"
        message = f"{_entry_path(lines[0])}: error: {reason}"
        if failure_all:
            return MergeResult(b"", [message.replace(": error: ", ": warning: skipped: ", 1)],
                               1, size)
        raise FleetError(message)
    half = len(lines) // 2
    parts = [merge_lines(profkit, part, args, failure_all, memory_limit, timeout)
             for part in (lines[:half], lines[half:])]
    return combine(profkit, parts, args, memory_limit, timeout)


def combine(profkit, parts, args, memory_limit=0, timeout=None):
    """Merges partial results (in order) into one; empty partials are left out."""
    profkit = _find_profkit(profkit)
    warnings = [w for p in parts for w in p.warnings]
    inputs = sum(p.inputs for p in parts)
    size = sum(p.size_bytes for p in parts)
    blobs = [p.data for p in parts if p.data]
    if not blobs:
        return MergeResult(b"", warnings, inputs, size)
    with tempfile.TemporaryDirectory(prefix="profkit-fleet-") as tmp:
        names = []
        for i, blob in enumerate(blobs):
            name = os.path.join(tmp, f"part{i:06d}.profdata")
            with open(name, "wb") as f:
                f.write(blob)
            names.append(name)
        rc, data, err = _run_merge(profkit, names, args, tmp, memory_limit, timeout)
        if rc != 0:
            raise FleetError(err.strip().splitlines()[-1] if err.strip()
                             else f"profkit merge of partial profiles failed (exit {rc})")
        warnings += [w for w in err.splitlines() if w]
    return MergeResult(data, warnings, inputs, size)


def build_ids(profkit, paths):
    """`profkit build-ids` of `paths`: a list of (kind, [ids], path), or (None, error, path)
    for a file it cannot read."""
    profkit = _find_profkit(profkit)
    proc = subprocess.run([profkit, "build-ids", *paths], stdin=subprocess.DEVNULL,
                          capture_output=True, check=False)
    found = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        kind, ids, path = line.split("\t", 2)
        found[path] = (kind, ids.split(","))
    errors = proc.stderr.decode("utf-8", "replace").splitlines()
    out = []
    for path in paths:
        if path in found:
            out.append((found[path][0], found[path][1], path))
        else:
            why = next((e for e in errors if e.startswith(path + ":")), f"{path}: error: unreadable")
            out.append((None, why, path))
    return out


def sniff_kind(path):
    """'memprof-raw' for a raw memprof profile, else 'other' (decided by profkit merge).

    Only regular files are opened: a FIFO or a device would block or never end here, and
    `profkit merge` reports them by name with its own time-out and limits."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "other"
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return "other"
    return "memprof-raw" if head == b"\x81rforpm\xff" else "other"


def sniff_kinds(paths):
    return [sniff_kind(p) for p in paths]


def binaries_in(profkit, locations):
    """Build ids of the ELF files among `locations` (files, and files in directories)."""
    files = []
    for loc in locations:
        if os.path.isdir(loc):
            for name in sorted(os.listdir(loc)):
                path = os.path.join(loc, name)
                if os.path.isfile(path) and sniff_kind(path) == "other":
                    with open(path, "rb") as f:
                        if f.read(4) == b"\x7fELF":
                            files.append(path)
        else:
            files.append(loc)
    return build_ids(profkit, files) if files else []
