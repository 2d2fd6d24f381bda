"""Writes a chain of N templates, each aligned with the one before, an
array aligned with the last, and R redistributes of the first.

usage: follower_chain.py N R OUT
Every redistribute moves the whole chain (HPF 2.0 sec. 8.5): N + 1
alignments lowered again each time.
"""
import sys

n, r, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lines = ["machine maspar(pes = [4], memory = 64);", "processors P(4);",
         "template T0(16);", "distribute T0(cyclic) onto P;"]
for k in range(1, n + 1):
    lines.append("template T%d(16);" % k)
    lines.append("align T%d(i) with T%d(i);" % (k, k - 1))
lines.append("array A(16) : u8;")
lines.append("align A(i) with T%d(i);" % n)
for k in range(r):
    lines.append("redistribute T0(%s) onto P;" % ("block" if k % 2 == 0 else "cyclic"))
open(out, "w").write("\n".join(lines) + "\n")
