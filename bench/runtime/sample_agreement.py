"""Cold/not-cold agreement of sampled heap profiles with a full one (bench/runtime/sample.sh).

Usage: sample_agreement.py PROFKIT BINARY NAME FULL_PROFILE SAMPLED_PROFILE...
Verdicts come from `profkit report --json` (LLVM's rule); contexts are matched by their
symbolized frames; a context missing from a sampled profile counts as not cold (no hint).
Prints one markdown row.
"""
import functools
import json
import statistics
import subprocess
import sys


@functools.cache
def contexts(profkit, binary, profile, lifetime):
    args = [profkit, 'report', '--json', '--top', '0', '--show-all-frames',
            '--profiled-binary', binary, profile]
    if lifetime is not None:
        args += ['--ave-lifetime-cold-threshold', str(lifetime)]
    report = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    result = {}
    for c in report['contexts']:
        key = tuple((f.get('function'), f.get('file'), f.get('line'), f.get('column'))
                    for f in c['frames'])
        bytes_, verdict = result.get(key, (0, 'notcold'))
        # Two raw contexts can symbolize alike; keep the bytes and the larger one's verdict.
        result[key] = (bytes_ + c['mib']['TotalSize'],
                       c['verdict'] if c['mib']['TotalSize'] >= bytes_ else verdict)
    return result


def agreement(full, sampled):
    total = sum(b for b, _ in full.values())
    same = sum(b for k, (b, v) in full.items() if sampled.get(k, (0, 'notcold'))[1] == v)
    return same / total if total else 1.0


def main():
    profkit, binary, name, full_path, *sampled_paths = sys.argv[1:]
    rows = {}
    for lifetime in (None, 0):
        full = contexts(profkit, binary, full_path, lifetime)
        rows[lifetime] = [agreement(full, contexts(profkit, binary, p, lifetime))
                          for p in sampled_paths]
    full = contexts(profkit, binary, full_path, None)
    total = sum(b for b, _ in full.values())
    errors = []
    for p in sampled_paths:
        estimate = sum(b for b, _ in contexts(profkit, binary, p, None).values())
        errors.append(abs(estimate - total) / total)
    a, z = rows[None], rows[0]
    zero = contexts(profkit, binary, full_path, 0)
    cold = sum(b for b, v in zero.values() if v == 'cold') / max(1, sum(b for b, _ in zero.values()))
    print('| %s | %d | %.1f%% | %.2f%% / %.2f%% | %.2f%% / %.2f%% / %.2f%% | %.2f%% / %.2f%% |' % (
        name, len(full), 100 * cold, 100 * statistics.mean(a), 100 * min(a), 100 * statistics.mean(z),
        100 * min(z), 100 * (statistics.stdev(z) if len(z) > 1 else 0),
        100 * statistics.mean(errors), 100 * max(errors)))


if __name__ == '__main__':
    main()
