#!/usr/bin/env python3
"""Writes BYTES bytes (about) of word-like text with numbers to stdout: bench/pgo's bzip2 input.
Fixed seed, so every run compresses the same file."""
import random
import sys

size = int(sys.argv[1])
rng = random.Random(7)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
         for _ in range(3000)]
out, n = [], 0
while n < size:
    line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 14)))
    if rng.random() < 0.2:
        line += " %d" % rng.randint(0, 10**6)
    out.append(line)
    n += len(line) + 1
sys.stdout.write("\n".join(out) + "\n")
