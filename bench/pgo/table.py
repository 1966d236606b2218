#!/usr/bin/env python3
"""Rows of bench/pgo's markdown table from hyperfine JSON exports (one per timing round, one
run of each variant, commands named by variant). Speed-ups and shares use the median over
rounds of CPU time (user + system), which the load of the shared machine disturbs less than
wall time; the minimum is shown beside it."""
import argparse
import json
import statistics

ap = argparse.ArgumentParser()
ap.add_argument("--program", required=True)
ap.add_argument("--variants", nargs="+", required=True)
ap.add_argument("--accuracy", nargs="*", default=[], help="VARIANT=VALUE")
ap.add_argument("files", nargs="+")
args = ap.parse_args()
accuracy = dict(a.split("=", 1) for a in args.accuracy)
cpu = {v: [] for v in args.variants}
wall = {v: [] for v in args.variants}
for path in args.files:
    with open(path) as f:
        for r in json.load(f)["results"]:
            cpu[r["command"]].append(r["user"] + r["system"])
            wall[r["command"]].extend(r["times"])
t = {v: statistics.median(cpu[v]) for v in args.variants}
plain, ir = t["plain"], t["irpgo"]
for v in args.variants:
    share = "" if v == "plain" else f"{100 * (plain - t[v]) / (plain - ir):.0f}%"
    print(f"| {args.program} | {v} | {t[v]:.3f} | {min(cpu[v]):.3f} | "
          f"{statistics.median(wall[v]):.3f} | {plain / t[v]:.3f}x | {share} | "
          f"{accuracy.get(v) or '-'} |")
