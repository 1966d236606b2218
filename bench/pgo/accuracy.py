#!/usr/bin/env python3
"""How well a line-based sample profile matches exact line counts of the same input.

    accuracy.py --binary PROFILED_BIN --profile PROFILE.txt --lcov COUNTS.lcov

PROFILE.txt is a line-based (AutoFDO) sample profile in text form (llvm-profdata merge --sample
--text), made from samples of PROFILED_BIN. COUNTS.lcov holds exact execution counts per source
line of a run of the same input (llvm-cov export -format=lcov of a -fprofile-instr-generate
-fcoverage-mapping build).

Each profile entry is placed at a source line: the line of its function's DW_TAG_subprogram
(DW_AT_decl_line, from PROFILED_BIN's DWARF) plus the entry's line offset; an inlined instance
uses its own function's line. Discriminators of one line in one function instance take the
largest count (as the sample loader takes a block's largest instruction count), and the
instances of a line (out of line, inlined in several places) are added up.

The metric is LLVM's overlap, on source lines: over the lines L that have machine code in
PROFILED_BIN (its line table) and a count in COUNTS.lcov, with a_l and b_l the two counts each
normalized to sum 1 over L, accuracy = sum over L of min(a_l, b_l). 100% means the profile
distributes its weight over lines exactly as the run did; the scale of the counts does not
matter. Prints it as a percentage; stderr gets the share of profile weight that could not be
placed on L (functions not found or ambiguous by name, lines without code or counts).
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict


def dwarfdump(binary, what):
    return subprocess.run(["llvm-dwarfdump-22", what, binary], check=True,
                          capture_output=True, text=True).stdout


def subprogram_lines(binary):
    """name -> set of (file basename, decl line) of the binary's subprograms."""
    decls = defaultdict(set)
    die = None

    def flush():
        if (die and die.get("tag") == "subprogram" and "declaration" not in die
                and {"name", "decl_file", "decl_line"} <= die.keys()):
            decls[die["name"]].add((os.path.basename(die["decl_file"]), int(die["decl_line"])))

    for line in dwarfdump(binary, "--debug-info").splitlines():
        m = re.match(r"0x[0-9a-f]+:\s+DW_TAG_(\w+)", line)
        if m:
            flush()
            die = {"tag": m.group(1)}
            continue
        m = re.match(r"\s+DW_AT_(name|decl_file|decl_line|declaration)\s+\((.*)\)$", line)
        if m and die is not None:
            die[m.group(1)] = m.group(2).strip('"')
    flush()
    return decls


def code_lines(binary):
    """(file basename, line) pairs the binary's line table gives machine code."""
    lines, files, idx = set(), {}, None
    for line in dwarfdump(binary, "--debug-line").splitlines():
        if line.startswith("debug_line["):
            files, idx = {}, None
            continue
        m = re.match(r"file_names\[\s*(\d+)\]:", line)
        if m:
            idx = int(m.group(1))
            continue
        m = re.match(r'\s+name:\s+"(.*)"', line)
        if m and idx is not None:
            files[idx] = os.path.basename(m.group(1))
            idx = None
            continue
        m = re.match(r"0x[0-9a-f]{16}\s+(\d+)\s+\d+\s+(\d+)\s", line)
        if m and int(m.group(1)) > 0 and int(m.group(2)) in files:
            lines.add((files[int(m.group(2))], int(m.group(1))))
    return lines


def lcov_counts(path):
    counts, src = defaultdict(int), None
    with open(path) as f:
        for line in f:
            if line.startswith("SF:"):
                src = os.path.basename(line[3:].strip())
            elif line.startswith("DA:"):
                ln, cnt = line[3:].split(",")[:2]
                counts[(src, int(ln))] += int(cnt)
    return counts


def profile_counts(path, decls):
    """(file, line) -> count from a text sample profile; also the weight left unplaced."""
    counts = defaultdict(int)
    unplaced = 0
    stack = []  # (indent of the body lines, function name, {(file, line): max count})

    def close(entry):
        for key, c in entry[2].items():
            counts[key] += c

    def place(name, offset, count):
        nonlocal unplaced
        found = decls.get(name.split(".")[0], set())
        # offsets are 16-bit: a line before its function's first line wraps around
        if len(found) != 1 or offset >= 0x8000:
            unplaced += count
            return
        src, first = next(iter(found))
        key = (src, first + offset)
        stack[-1][2][key] = max(stack[-1][2].get(key, 0), count)

    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.strip().startswith("!"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            while stack and stack[-1][0] > indent:
                close(stack.pop())
            if indent == 0:
                name = line.rsplit(":", 2)[0]
                stack.append((1, name, {}))
                continue
            m = re.match(r"(\d+)(?:\.\d+)?: (\S+)(.*)$", line.strip())
            if not m or not stack:
                continue
            offset, first, rest = int(m.group(1)), m.group(2), m.group(3)
            if first.isdigit():
                place(stack[-1][1], offset, int(first))
            else:  # an inlined callee: "offset: name:total"
                stack.append((indent + 1, first.rsplit(":", 1)[0], {}))
    while stack:
        close(stack.pop())
    return counts, unplaced


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--lcov", required=True)
    args = ap.parse_args()
    decls = subprogram_lines(args.binary)
    exact = lcov_counts(args.lcov)
    sampled, unplaced = profile_counts(args.profile, decls)
    lines = code_lines(args.binary) & set(exact)
    total_a = sum(exact[k] for k in lines)
    total_b = sum(sampled.get(k, 0) for k in lines)
    if total_a == 0 or total_b == 0:
        print("accuracy: no counts on common lines", file=sys.stderr)
        sys.exit(1)
    overlap = sum(min(exact[k] / total_a, sampled.get(k, 0) / total_b) for k in lines)
    everything = sum(sampled.values()) + unplaced
    print(f"accuracy {args.profile}: {len(lines)} lines; profile weight not placed on them: "
          f"{100 * (everything - total_b) / everything:.1f}%", file=sys.stderr)
    print(f"{100 * overlap:.1f}%")


if __name__ == "__main__":
    main()
