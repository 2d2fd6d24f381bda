#!/usr/bin/env python3
"""Writes random .map programs for test/mpi/random.test into a directory.

General ones come from test/tools/random_general_programs.py (HPF
redistributions on PE grids whose sides are not powers of two, random index
digit maps, realigns with transposition and replication, copies), radix-2
ones from test/tools/random_programs.py (index bit maps with inverted and
disabled bits on an 8 x 4 MasPar). Seeds run from --first-seed up, so a
failing program can be written again alone.
"""
import argparse
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
tools = os.path.join(here, "..", "..", "tools")

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--general", type=int, default=0)
ap.add_argument("--radix2", type=int, default=0)
ap.add_argument("--statements", type=int, default=30)
ap.add_argument("--first-seed", type=int, default=1)
args = ap.parse_args()

for k in range(args.general):
    seed = args.first_seed + k
    subprocess.run([sys.executable, os.path.join(tools, "random_general_programs.py"),
                    "--seed", str(seed), "--statements", str(args.statements),
                    "-o", os.path.join(args.dir, "general-%d.map" % seed)], check=True)
for k in range(args.radix2):
    seed = args.first_seed + k
    subprocess.run([sys.executable, os.path.join(tools, "random_programs.py"),
                    "--seed", str(seed),
                    "-o", os.path.join(args.dir, "radix2-%d.map" % seed)], check=True)
