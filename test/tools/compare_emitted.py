#!/usr/bin/env python3
"""Compares mapc --run's report with the generic harness's output.

--run prints per statement `KIND ARRAY[ to TARGET]: FROM -> TO: verified,
ticks=N, ...`; test/run/Inputs/generic_harness.cpp prints per remap, in the
same order, `emitted KIND_ARRAY_I: ok, ticks=N`. Every statement must be
verified and ok with the same ticks, the emitted function must belong to
the statement, and there must be as many of one as of the other. --run's
memory digest (`memory: B bytes per PE, fnv1a64=0x...`, from
--memory-digest) must equal the harness's (`emitted memory: ...`). Prints
one summary line and exits non-zero on any difference.
"""
import argparse
import re
import sys

RUN = re.compile(r"^(\w+) (\w+)(?: to \w+)?: \S+ -> \S+: (.*)$")
TICKS = re.compile(r"^verified, ticks=(\d+),")
EMITTED = re.compile(r"^emitted (\w+): (.*)$")
OK = re.compile(r"^ok, ticks=(\d+)$")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_report")
    ap.add_argument("harness_output")
    args = ap.parse_args()
    run, run_memory = [], None
    with open(args.run_report) as f:
        for line in f.read().splitlines():
            m = RUN.match(line)
            if m:
                run.append((line, m))
            elif line.startswith("memory: "):
                run_memory = line[len("memory: "):]
    emitted, emitted_memory = [], None
    with open(args.harness_output) as f:
        for line in f.read().splitlines():
            if line.startswith("emitted memory: "):
                emitted_memory = line[len("emitted memory: "):]
                continue
            m = EMITTED.match(line)
            if m:
                emitted.append((line, m))

    bad = []
    if len(run) != len(emitted):
        bad.append("--run reported %d statements, the harness %d"
                   % (len(run), len(emitted)))
    for (rl, r), (el, e) in zip(run, emitted):
        t = TICKS.match(r.group(3))
        o = OK.match(e.group(2))
        if not e.group(1).startswith(r.group(1) + "_" + r.group(2) + "_"):
            bad.append("out of step: %r vs %r" % (rl, el))
        elif not t:
            bad.append("--run: " + rl)
        elif not o:
            bad.append("harness: " + el)
        elif t.group(1) != o.group(1):
            bad.append("ticks differ: %r vs %r" % (rl, el))
    if emitted_memory is None:
        bad.append("the harness printed no memory digest")
    elif run_memory is None:
        bad.append("--run printed no memory digest (--memory-digest)")
    elif run_memory != emitted_memory:
        bad.append("memory differs: --run %s, emitted %s"
                   % (run_memory, emitted_memory))
    for b in bad:
        print("MISMATCH " + b)
    if bad:
        return 1
    print("compared %d statements: all verified, ticks equal; memory equal"
          % len(run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
