"""Writes a chain of N reverse() layouts of one array to a .map file.

usage: layout_chain.py N forward|backward OUT
forward: each layout names the one declared just before it (the chain's
start first); backward: each names the one declared just after it.
"""
import string
import sys

n, order, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def name(i):
    letters, s = string.ascii_letters, ""
    i += 1
    while i:
        s += letters[i % 52]
        i //= 52
    return "x" + s


lines = ["machine maspar(pes = [2, 2], memory = 64);", "array A(4, 4);"]
base = f"layout {name(n)} of A = ktile {{ k = [4; 4]; m = [0; 1]; d = [4; 4]; }};"
links = [f"layout {name(i)} of A=reverse({name(i + 1)},0);" for i in range(n)]
if order == "forward":  # the base, then links n-1 .. 0
    lines += [base] + links[::-1]
else:  # links 0 .. n-1, then the base
    lines += links + [base]
lines.append(f"place A in {name(0)};")
open(out, "w").write("\n".join(lines) + "\n")
