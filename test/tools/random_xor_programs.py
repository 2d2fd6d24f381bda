#!/usr/bin/env python3
"""Writes a random .map program of remaps between layouts with XOR items and
layouts that are not bit maps, from a seed.

The machine has a power-of-two PE count (a maspar grid, a Boolean cube or a
mesh of power-of-two sides), as a layout with XOR items needs (001). Arrays
of power-of-two sizes (1-d or 2-d) start in random HPF distributions, most
of which are not bit maps (cyclic(k) and block(n) with k and n not powers of
two, '*' dims). Each array has a few `bits` layouts whose device bits XOR
random data bits (a random invertible GF(2) matrix: a permutation with
random rows added to others, some bits inverted). The statements remap
arrays into their XOR layouts, redistribute them out of them, remap from
HPF layouts into them and copy between arrays of one shape in either kind,
so mapc plans most of them in two stages (program/TwoStage.h). Every
statement is valid, so `mapc --run` must verify all of them
(test/run/xor-random.test). The same seed always writes the same program.
"""
import argparse
import random
import sys

MACHINES = {
    "maspar": [[4], [8], [4, 4], [8, 2], [2, 8], [16]],
    "hypercube": [[2], [3], [4]],
    "mesh": [[4, 2], [2, 2, 2], [8], [4, 4]],
}
TYPES = ["u8", "u16", "i32", "f32", "f64", "c128"]
MEMORY = 4096
NOT_POW2 = [3, 5, 6, 7, 9, 10, 12]


class Gen:
    def __init__(self, rng, statements, machine, place=False):
        self.rng = rng
        self.place = place
        self.want = statements
        self.machine = machine
        self.lines = []
        self.arrays = {}   # name -> (shape, type)
        self.xor = {}      # name -> its XOR layouts
        self.executed = 0

    def emit(self, line):
        self.lines.append(line)

    def fmt(self, length, pes):
        """An HPF format for a dim of `length` over `pes` processors."""
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            return "cyclic(%d)" % rng.choice(NOT_POW2)
        if r < 0.7:
            # A block at least as long as length / pes, and not a power of two.
            low = -(-length // pes)
            sizes = [b for b in range(low, 2 * low + 8) if b & (b - 1)]
            return "block(%d)" % rng.choice(sizes)
        return rng.choice(["block", "cyclic"])

    def distribution(self, name):
        shape = self.arrays[name][0]
        if len(shape) == 1:
            return "%s(%s) onto L" % (name, self.fmt(shape[0], self.pes))
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            # One dim distributed, the other collapsed.
            d = rng.randrange(2)
            parts = ["*", "*"]
            parts[d] = self.fmt(shape[d], self.pes)
            return "%s(%s) onto L" % (name, ", ".join(parts))
        return "%s(%s, %s) onto G" % (name, self.fmt(shape[0], self.grid2[0]),
                                       self.fmt(shape[1], self.grid2[1]))

    def xor_layout(self, name):
        """A `bits` layout of `name` whose rows form a random invertible
        GF(2) matrix with at least one XOR item."""
        rng = self.rng
        shape = self.arrays[name][0]
        n = sum(s.bit_length() - 1 for s in shape)
        p = self.pe_bits
        rows = [1 << b for b in range(n)]
        rng.shuffle(rows)
        for _ in range(rng.randint(1, 2 * n)):
            i, j = rng.sample(range(n), 2)
            rows[i] ^= rows[j]
        if all(r & (r - 1) == 0 for r in rows):
            i, j = rng.sample(range(n), 2)
            rows[i] ^= rows[j]

        def item(row):
            bits = [b for b in range(n) if row >> b & 1]
            rng.shuffle(bits)
            text = "^".join("a%d" % b for b in bits)
            return ("!" if rng.random() < 0.2 else "") + text

        items = [item(r) for r in rows]
        # Device bits most significant first: the PE section holds the top
        # p rows.
        pe, mem = items[:p], items[p:]
        lname = "X%d" % len(self.lines)
        self.emit("layout %s of %s = bits [p: %s | m: %s];" %
                  (lname, name, " ".join(pe), " ".join(mem)))
        return lname

    def run(self):
        rng = self.rng
        grid = rng.choice(MACHINES[self.machine])
        if self.machine == "hypercube":
            self.pes = 1 << grid[0]
            self.emit("machine hypercube(dims = %d, memory = %d);" %
                      (grid[0], MEMORY))
        else:
            self.pes = 1
            for g in grid:
                self.pes *= g
            self.emit("machine %s(pes = [%s], memory = %d);" %
                      (self.machine, ", ".join(map(str, grid)), MEMORY))
        self.pe_bits = self.pes.bit_length() - 1
        self.emit("processors L(%d);" % self.pes)
        first = 1 << rng.randint(1, self.pe_bits - 1) if self.pe_bits > 1 \
            else self.pes
        # An arrangement of the machine's rank maps dim by dim onto it.
        self.grid2 = list(grid) if len(grid) == 2 and \
            self.machine != "hypercube" else [first, self.pes // first]
        self.emit("processors G(%d, %d);" % tuple(self.grid2))
        count = 0
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                shape = [1 << rng.randint(self.pe_bits, self.pe_bits + 4)]
            else:
                total = rng.randint(self.pe_bits, self.pe_bits + 4)
                a = rng.randint(0, total)
                shape = [1 << a, 1 << (total - a)]
            ty = rng.choice(TYPES)
            for _twin in range(2):
                name = "A%d" % count
                count += 1
                self.arrays[name] = (shape, ty)
                self.emit("array %s(%s) : %s;" %
                          (name, ", ".join(map(str, shape)), ty))
                at = len(self.lines)
                self.emit("distribute %s;" % self.distribution(name))
                self.xor[name] = [self.xor_layout(name)
                                  for _ in range(rng.randint(1, 2))]
                # --place: half the arrays start in an XOR layout instead
                # (drawn only then, so other programs stay as they were).
                if self.place and rng.random() < 0.5:
                    del self.lines[at]
                    self.emit("place %s in %s;" %
                              (name, rng.choice(self.xor[name])))
        names = sorted(self.arrays)
        moved = 0
        while moved < self.want:
            name = rng.choice(names)
            r = rng.random()
            if r < 0.4:
                self.emit("remap %s to %s;" % (name, rng.choice(self.xor[name])))
            elif r < 0.75:
                self.emit("redistribute %s;" % self.distribution(name))
            else:
                twins = [t for t in names if t != name and
                         self.arrays[t] == self.arrays[name]]
                self.emit("copy %s to %s;" % (name, rng.choice(twins)))
            moved += 1
        self.executed = moved
        return "\n".join(self.lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--statements", type=int, default=12)
    ap.add_argument("--machine", choices=sorted(MACHINES), default="maspar")
    ap.add_argument("--place", action="store_true",
                    help="start about half the arrays in one of their XOR "
                    "layouts (place) instead of distributing them")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    gen = Gen(random.Random(args.seed), args.statements, args.machine,
              args.place)
    text = gen.run()
    header = ("// Written by test/tools/random_xor_programs.py --seed %d "
              "--statements %d --machine %s\n// executes %d statements\n" %
              (args.seed, args.statements, args.machine, gen.executed))
    if args.output == "-":
        sys.stdout.write(header + text)
    else:
        with open(args.output, "w") as f:
            f.write(header + text)


if __name__ == "__main__":
    main()
