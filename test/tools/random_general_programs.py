#!/usr/bin/env python3
"""Writes a random .map program of general remaps (003 ch. 6), from a seed.

The machine is a maspar whose PE grid sides are not powers of two (7, 10,
3 x 5, 6 x 2, 5 x 5, ...), or with --machine=mesh a mesh of those sides
(general plans route every element there, docs/mixed-radix.md). Arrays of random shapes (1-d to 3-d, sides that
are rarely powers of two) and element types are distributed with random HPF
formats (block, block(n), cyclic, cyclic(k), '*') over random processor
arrangements, then redistributed, remapped to random index digit maps (the
array's size factorised into digits of mixed radix, spread over PE and
memory digits, some reversed), realigned with transpositions and
replication, and copied between arrays of one shape distributed differently.
A redistribute also moves the arrays ultimately aligned with its array
(HPF 2.0 sec. 8.5), each by a statement of its own: the header says how many
statements run in all, from the rules docs/language.md states, kept here
apart from mapc. Every statement is valid, so `mapc --run` must verify all of them
(test/run/general-random.test) and the emitted C++ must agree with it
(test/run/emitted-general-random.test). The same seed always writes the
same program.
"""
import argparse
import random
import sys

GRIDS = [[7], [10], [6], [3, 5], [6, 2], [5, 5], [5, 3], [12], [3, 3]]
TYPES = ["u8", "u16", "i32", "f32", "f64", "c128"]
MEMORY = 4096


def factorize(n):
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


class Gen:
    def __init__(self, rng, statements, machine="maspar"):
        self.machine = machine
        self.rng = rng
        self.want = statements
        self.lines = []
        self.arrays = {}      # name -> (shape, type)
        self.in_digits = set()  # arrays whose current layout is a digit map
        self.procs = []       # (name, shape)
        self.layouts = 0
        self.root = {}        # alignee -> its ultimate align target
        self.executed = 0     # statements that run, followers included

    def align(self, name, target):
        """`name` is realigned with `target`: its alignees stay behind."""
        self.orphan(name)
        root = self.root.get(target, target)
        if root != name:
            self.root[name] = root

    def orphan(self, name):
        for a in [a for a, r in self.root.items() if r == name]:
            del self.root[a]

    def emit(self, line):
        self.lines.append(line)

    def fmt(self, length, pes):
        """A distribution format for a dim of `length` over `pes` PEs."""
        r = self.rng.random()
        if r < 0.3:
            return "block"
        if r < 0.45:
            least = -(-length // pes)
            return "block(%d)" % (least + self.rng.randint(0, 3))
        if r < 0.7:
            return "cyclic"
        return "cyclic(%d)" % self.rng.randint(2, 5)

    def distribution(self, name):
        shape, _ = self.arrays[name]
        pname, pshape = self.rng.choice(
            [p for p in self.procs if len(p[1]) <= len(shape)])
        dims = self.rng.sample(range(len(shape)), len(pshape))
        dims.sort()
        formats = ["*"] * len(shape)
        for k, d in enumerate(dims):
            formats[d] = self.fmt(shape[d], pshape[k])
        return "%s(%s) onto %s" % (name, ", ".join(formats), pname)

    def digit_layout(self, name):
        """A random index digit map of the array (003 6.1.3)."""
        shape, _ = self.arrays[name]
        n = 1
        for s in shape:
            n *= s
        primes = factorize(n)
        self.rng.shuffle(primes)
        digits = []
        for p in primes:  # merge some primes into compound digits
            if digits and self.rng.random() < 0.4:
                digits[-1] *= p
            else:
                digits.append(p)
        pe_limit = self.pes
        order = list(range(len(digits)))
        self.rng.shuffle(order)
        pe, mem, pe_size = [], [], 1
        for i in order:
            if pe_size * digits[i] <= pe_limit and self.rng.random() < 0.5:
                pe.append(i)
                pe_size *= digits[i]
            else:
                mem.append(i)

        def item(i):
            bang = "!" if self.rng.random() < 0.2 else ""
            return "%sa%d:%d" % (bang, i, digits[i])
        self.layouts += 1
        lname = "D%d" % self.layouts
        mem_size = n // pe_size
        if mem_size > MEMORY:
            return None
        self.emit("layout %s of %s = digits [p: %s | m: %s];" % (
            lname, name, " ".join(item(i) for i in pe),
            " ".join(item(i) for i in mem)))
        return lname

    def run(self):
        rng = self.rng
        grid = rng.choice(GRIDS)
        self.pes = 1
        for g in grid:
            self.pes *= g
        self.emit("machine %s(pes = [%s], memory = %d);" %
                  (self.machine, ", ".join(map(str, grid)), MEMORY))
        self.procs.append(("L", [self.pes]))
        self.emit("processors L(%d);" % self.pes)
        small = rng.randint(2, self.pes - 1) if self.pes > 2 else self.pes
        self.procs.append(("S", [small]))
        self.emit("processors S(%d);" % small)
        if len(grid) == 2:
            self.procs.append(("G", grid))
            self.emit("processors G(%d, %d);" % tuple(grid))
        # Arrays: a few shapes, each with a twin of the same shape (copies)
        # and sometimes a transposed twin (realign with transposition).
        count = 0
        for k in range(rng.randint(2, 4)):
            rank = rng.choice([1, 2, 2, 3])
            limit = {1: 300, 2: 30, 3: 9}[rank]
            shape = [rng.randint(2, limit) for _ in range(rank)]
            ty = rng.choice(TYPES)
            for twin in range(2):
                name = "A%d" % count
                count += 1
                self.arrays[name] = (shape, ty)
                self.emit("array %s(%s) : %s;" % (
                    name, ", ".join(map(str, shape)), ty))
                self.emit("distribute %s;" % self.distribution(name))
            if rank == 2:
                name = "T%d" % k
                self.arrays[name] = ([shape[1], shape[0]], ty)
                self.emit("array %s(%d, %d) : %s;" % (
                    name, shape[1], shape[0], ty))
                self.emit("align %s(i, j) with A%d(j, i);" % (name, count - 1))
                self.align(name, "A%d" % (count - 1))
                name = "R%d" % k
                self.arrays[name] = ([shape[0]], ty)
                self.emit("array %s(%d) : %s;" % (name, shape[0], ty))
                self.emit("align %s(i) with A%d(i, *);" % (name, count - 1))
                self.align(name, "A%d" % (count - 1))
        moved = 0
        names = sorted(self.arrays)
        while moved < self.want:
            name = rng.choice(names)
            shape, ty = self.arrays[name]
            r = rng.random()
            if r < 0.45:
                self.emit("redistribute %s;" % self.distribution(name))
                self.in_digits.discard(name)
                self.root.pop(name, None)
                followers = [a for a, r in self.root.items() if r == name]
                self.executed += len(followers)
                self.in_digits.difference_update(followers)
            elif r < 0.7:
                lname = self.digit_layout(name)
                if not lname:
                    continue
                self.emit("remap %s to %s;" % (name, lname))
                self.in_digits.add(name)
                self.root.pop(name, None)
                self.orphan(name)
            elif r < 0.85:
                twins = [t for t in names if t != name and
                         self.arrays[t] == self.arrays[name]]
                if not twins:
                    continue
                self.emit("copy %s to %s;" % (name, rng.choice(twins)))
            else:
                if not name.startswith(("T", "R")):
                    continue
                source = "A%d" % (2 * int(name[1:]) + 1)
                if source in self.in_digits:
                    continue
                if name.startswith("T"):
                    self.emit("realign %s(i, j) with %s(j, i);" % (name, source))
                else:
                    self.emit("realign %s(i) with %s(i, *);" % (name, source))
                self.in_digits.discard(name)
                self.align(name, source)
            moved += 1
        self.executed += moved
        return "\n".join(self.lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--statements", type=int, default=30)
    ap.add_argument("--machine", choices=["maspar", "mesh"], default="maspar")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    gen = Gen(random.Random(args.seed), args.statements, args.machine)
    text = gen.run()
    header = ("// Written by test/tools/random_general_programs.py --seed %d "
              "--statements %d%s\n// executes %d statements\n" %
              (args.seed, args.statements,
               "" if args.machine == "maspar" else
               " --machine " + args.machine, gen.executed))
    if args.output == "-":
        sys.stdout.write(header + text)
    else:
        with open(args.output, "w") as f:
            f.write(header + text)


if __name__ == "__main__":
    main()
