"""Prints a .map program: a Gray-coded axis of one element per node to
binary on a hypercube or mesh. Usage: gray_program.py hypercube N |
mesh B0 [B1 ...] (mesh sides 2^B0, 2^B1, ...)."""
import sys

kind = sys.argv[1]
bits = [int(b) for b in sys.argv[2:]]
n = sum(bits)
if kind == "hypercube":
    print("machine hypercube(dims = %d, memory = 1);" % n)
else:
    print("machine mesh(pes = [%s], memory = 1);" %
          ", ".join(str(1 << b) for b in bits))
N = 1 << n
print("array A(%d) : f32;" % N)
print("layout G of A = ktile { k = [1, %d]; m = [0; 1]; d = [1; %d]; e = [b, g]; };" % (N, N))
print("layout B of A = ktile { k = [1, %d]; m = [0; 1]; d = [1; %d]; };" % (N, N))
print("place A in G;")
print("remap A to B;")
