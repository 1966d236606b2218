"""What every Python differential test shares: which seeds to run, and running them.

PROFKIT_DIFF_SEED=S runs only case S (replay); PROFKIT_DIFF_CASES=N runs cases 1..N instead
of the test's default; PROFKIT_DIFF_FIRST=F numbers them from F instead (F..F+N-1: seeds
past those run before). Cases run on as many threads as there are CPUs (each case mostly
waits for the tools it starts); a failing case returns its text, printed as it comes.
"""
import concurrent.futures
import os
import shutil
import tempfile


def seeds(default):
    if os.environ.get('PROFKIT_DIFF_SEED'):
        return [int(os.environ['PROFKIT_DIFF_SEED'])]
    first = int(os.environ.get('PROFKIT_DIFF_FIRST') or 1)
    return range(first, first + int(os.environ.get('PROFKIT_DIFF_CASES', default)))


def run_cases(one_case, default, prefix, summary=None):
    """Runs one_case(seed, workdir) for every seed; returns the exit status (1 if any failed).
    The work directory is removed when every case passed. summary(): extra lines to print."""
    chosen = seeds(default)
    workdir = tempfile.mkdtemp(prefix=prefix)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for result in pool.map(lambda s: one_case(s, workdir), chosen):
            if result:
                failures.append(result)
                print(result, flush=True)
    if summary is not None:
        print(summary())
    print('%d cases, %d failed (replay one with PROFKIT_DIFF_SEED=S)' % (len(chosen), len(failures)))
    if not failures:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0
