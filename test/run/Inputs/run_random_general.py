#!/usr/bin/env python3
"""Writes random general programs (test/tools/random_general_programs.py,
or another generator of the same options with --generator) and runs each with `mapc --run`: every statement must print `verified`,
as many must run as the program's header says (a redistribute moves its
array's alignees too), and mapc must exit 0. Prints one summary line, and
the failures before it."""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "tools", "random_general_programs.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", required=True)
    ap.add_argument("--seeds", type=int, required=True)
    ap.add_argument("--statements", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--machine", default="maspar")
    ap.add_argument("--generator", default=GEN,
                    help="a program generator taking --seed, --statements, "
                    "--machine and -o, e.g. random_xor_programs.py")
    ap.add_argument("--stages", action="store_true",
                    help="also count the statements --emit=plan plans in two "
                    "stages (program/TwoStage.h), and check that every "
                    "statement's predicted ticks and bound are --run's")
    ap.add_argument("--generator-arg", action="append", default=[],
                    help="an extra generator argument (repeatable), e.g. "
                    "--place")
    ap.add_argument("--mapc-arg", action="append", default=[],
                    help="an extra mapc argument (repeatable), e.g. "
                    "--target=native")
    args = ap.parse_args()
    verified = failures = staged = 0
    for seed in range(1, args.seeds + 1):
        path = os.path.join(args.dir, "random%d.map" % seed)
        subprocess.run([sys.executable, args.generator, "--seed", str(seed),
                        "--statements", str(args.statements),
                        "--machine", args.machine, "-o", path,
                        *args.generator_arg],
                       check=True)
        run = subprocess.run([args.mapc, path, "--run", *args.mapc_arg], capture_output=True,
                             text=True, timeout=120)
        # A redistribute moves its array's alignees too: the generator
        # says how many statements run in all.
        with open(path) as f:
            want = int(re.search(r"// executes (\d+) statements",
                                 f.read()).group(1))
        ok = run.stdout.count(": verified, ")
        verified += ok
        if args.stages:
            plan = subprocess.run([args.mapc, path, "--emit=plan"],
                                  capture_output=True, text=True, timeout=120)
            staged += plan.stdout.count(" (in two stages through ")
            # Every statement's predicted total (its stages' sum) is the
            # ticks its run takes, and the bounds agree.
            predicted = re.findall(r"^  total: (\d+) ticks.*lower bound (\d+) ",
                                   plan.stdout, re.M)
            ran = re.findall(r": verified, ticks=(\d+), lower_bound=(\d+)",
                             run.stdout)
            if predicted != ran:
                failures += 1
                print("FAIL %s: predicted %s, ran %s" % (path, predicted, ran))
        if run.returncode != 0 or ok != want:
            failures += 1
            print("FAIL %s: exit %d, %d verified\n%s%s" %
                  (path, run.returncode, ok, run.stdout[-2000:],
                   run.stderr[-2000:]))
    print("%d programs, %d statements verified, %d failures" %
          (args.seeds, verified, failures))
    if args.stages:
        print("%d statements in two stages" % staged)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
