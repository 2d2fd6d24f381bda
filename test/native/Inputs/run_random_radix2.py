#!/usr/bin/env python3
"""Writes random radix-2 programs (test/tools/random_programs.py: bit
permutations with inverted and disabled bits on several arrays of 1 to 8
bytes, and copies) and runs each with `mapc --run --target=native`: every
statement must print `verified` and mapc must exit 0. Prints one summary
line, and the failures before it."""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "tools", "random_programs.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", required=True)
    ap.add_argument("--seeds", type=int, required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    verified = failures = 0
    for seed in range(1, args.seeds + 1):
        path = os.path.join(args.dir, "radix2-%d.map" % seed)
        subprocess.run([sys.executable, GEN, "--seed", str(seed), "-o", path],
                       check=True)
        run = subprocess.run([args.mapc, path, "--run", "--target=native"],
                             capture_output=True, text=True, timeout=300)
        lines = run.stdout.splitlines()
        ok = sum(": verified, seconds=" in l for l in lines)
        verified += ok
        if run.returncode != 0 or ok == 0 or ok != len(lines):
            failures += 1
            print("FAIL %s: exit %d, %d of %d verified\n%s%s" %
                  (path, run.returncode, ok, len(lines), run.stdout[-2000:],
                   run.stderr[-2000:]))
    print("%d programs, %d statements verified, %d failures" %
          (args.seeds, verified, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
