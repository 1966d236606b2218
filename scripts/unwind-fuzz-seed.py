#!/usr/bin/env python3
"""Writes a seed for runtime/runtime_unwind_fuzz.cc from an ELF binary: its .eh_frame_hdr and
.eh_frame as one image (addresses as mapped), the header's offset, and a PC offset inside
the first FDE's function.  Usage: unwind-fuzz-seed.py BINARY OUT"""
import struct
import subprocess
import sys

binary, out = sys.argv[1], sys.argv[2]
sections = {}
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    parts = line.replace("[ ", "[").split()
    if len(parts) > 5 and parts[1] in (".eh_frame_hdr", ".eh_frame"):
        sections[parts[1]] = (int(parts[3], 16), int(parts[4], 16), int(parts[5], 16))
hdr_addr, hdr_off, _ = sections[".eh_frame_hdr"]
frame_addr, frame_off, frame_size = sections[".eh_frame"]
lo = min(hdr_addr, frame_addr)
hi = max(hdr_addr + sections[".eh_frame_hdr"][2], frame_addr + frame_size)
data = open(binary, "rb").read()
image = data[hdr_off - (hdr_addr - lo):hdr_off - (hdr_addr - lo) + (hi - lo)]
# First search-table entry: sdata4 initial location relative to the header.
count_at = hdr_addr - lo + 8
first_loc = struct.unpack_from("<i", image, count_at + 4)[0]
pc_offset = (hdr_addr - lo + first_loc + 4) % (1 << 64)
with open(out, "wb") as f:
    f.write(struct.pack("<QI", pc_offset, hdr_addr - lo) + image)
