#!/usr/bin/env python3
"""Deterministic mutation fuzzing of the mapc driver.

Takes every .map file under the given roots (unreadable dirs and files are
skipped), makes seeded random mutations of each (delete / duplicate / swap
tokens, insert punctuation, huge numbers or binary bytes, truncate, flip the
case of keywords, repeat lines, splice two files), adds a few pathological
inputs, and runs the driver on every input with --emit=ktile and
--emit=layout, a quarter of the light mutants with --run, a quarter with
--emit=cycles and, of those on a mesh or hypercube, a quarter with
--emit=butterfly; an eighth of the light mutants with --emit=svg and an
eighth with --emit=html.

A run FAILS when the driver
  * dies by a signal or exits with a code other than 0 or 1,
  * takes longer than --timeout seconds of CPU time (or ten times that of
    wall time: load stretches the wall clock, not the CPU clock),
  * exits 1 without printing anything to stderr, or prints an error line
    that does not have the FILE:LINE:COL: form for an input error,
  * exits 0 but prints "error:" to stderr.

usage: mutate.py --mapc PATH [--seed N] [--count N] [--jobs N] [--out DIR]
                 [--timeout S] [--pathological all|none|A,B]
                 [--skip-pathological A,B] ROOT...

Failures are listed with a reproducer file kept under --out; exit status is 1
if any run failed.
"""
import argparse
import concurrent.futures as cf
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

KEYWORDS = ["machine", "processors", "template", "array", "distribute",
            "redistribute", "onto", "align", "realign", "with", "layout", "of",
            "ktile", "bits", "digits", "place", "in", "remap", "to", "copy",
            "reshape", "block", "cyclic", "hierarchical1d", "hierarchical2d",
            "cutnstack1d", "cutnstack2d", "scan1d", "transpose", "reverse",
            "bitrev", "maspar", "hypercube", "mesh", "pes", "memory", "cluster",
            "dims"]
PUNCT = list("();,[]{}=:*+-!|/") + ["//", "\n", ";;", "[[", "]]", "(("]
NUMBERS = ["0", "1", "2", "3", "-1", "7", "1023", "1024", "65536",
           "4294967296", "281474976710656", "281474976710657",
           "99999999999999999999", "18446744073709551615",
           "18446744073709551616", "9223372036854775807",
           "000000000000000000000000001", "1099511627776", "16777217"]
NAMES = ["A", "B", "P", "T", "X", "H", "a0", "a63", "a1:0", "a99999", "i", "j",
         "*", ":", "g", "b", "+", "-", "m", "p", "d", "k", "s", "e", "ok",
         "ta", "otd"]
BINARY = [b"\x00", b"\xff", b"\xc3", b"\xe2\x82", b"\xef\xbb\xbf", b"\x80",
          b"\x7f", b"\r", b"\t", b"\x0c", b"\xf0\x9f\x98\x80", b"\xc0\x80"]

TOKEN_RE = re.compile(rb"//[^\n]*|[A-Za-z_][A-Za-z_0-9]*|[0-9]+|\s+|.", re.S)
LOC_RE = re.compile(rb"^[^\n]*:\d+:\d+: error: ", re.M)


def collect(roots):
    files = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
            dirnames.sort()
            if os.sep + "Output" in dirpath:
                continue
            for f in sorted(filenames):
                if f.endswith(".map"):
                    p = os.path.join(dirpath, f)
                    try:
                        with open(p, "rb") as fh:
                            files.append((p, fh.read()))
                    except OSError:
                        pass
    return files


def mutate(rng, text, others):
    toks = TOKEN_RE.findall(text) or [b""]
    n = rng.randint(1, 4)
    for _ in range(n):
        op = rng.randrange(13)
        i = rng.randrange(len(toks)) if toks else 0
        if op == 0 and toks:                      # delete a token
            del toks[i]
        elif op == 1 and toks:                    # duplicate a token
            toks.insert(i, toks[i])
        elif op == 2 and len(toks) > 1:           # swap two tokens
            j = rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == 3:                             # insert punctuation
            toks.insert(i, rng.choice(PUNCT).encode())
        elif op == 4:                             # insert / replace a number
            num = rng.choice(NUMBERS).encode()
            if toks and toks[i][:1].isdigit():
                toks[i] = num
            else:
                toks.insert(i, num)
        elif op == 5:                             # truncate
            s = b"".join(toks)
            toks = TOKEN_RE.findall(s[:rng.randrange(len(s) + 1)]) or [b""]
        elif op == 6 and toks:                    # flip case of a keyword
            k = [j for j, t in enumerate(toks) if t.lower().decode("latin1") in KEYWORDS]
            if k:
                j = rng.choice(k)
                t = toks[j].decode("latin1")
                toks[j] = "".join(c.upper() if rng.random() < 0.5 else c.lower()
                                  for c in t).encode("latin1")
        elif op == 7:                             # insert binary bytes
            toks.insert(i, rng.choice(BINARY))
        elif op == 8:                             # repeat a line
            lines = b"".join(toks).split(b"\n")
            j = rng.randrange(len(lines))
            lines[j:j] = [lines[j]] * rng.choice([1, 2, 10, 100])
            toks = TOKEN_RE.findall(b"\n".join(lines)) or [b""]
        elif op == 9:                             # insert a keyword / name
            toks.insert(i, b" " + rng.choice(KEYWORDS + NAMES).encode() + b" ")
        elif op == 10 and toks:                   # replace a name
            k = [j for j, t in enumerate(toks) if t[:1].isalpha()]
            if k:
                toks[rng.choice(k)] = rng.choice(NAMES + KEYWORDS).encode()
        elif op == 11 and others:                 # splice lines of another file
            other = rng.choice(others).split(b"\n")
            j = rng.randrange(len(other))
            toks.insert(i, b"\n" + b"\n".join(other[j:j + rng.randint(1, 5)]) + b"\n")
        elif op == 12 and toks:                   # delete a whole line
            lines = b"".join(toks).split(b"\n")
            del lines[rng.randrange(len(lines))]
            toks = TOKEN_RE.findall(b"\n".join(lines)) or [b""]
    return b"".join(toks)


def pathological():
    out = []
    line = b"array A(1);\n"
    # Just under the 2 MiB input limit: duplicate declarations by the 100000.
    out.append(("big-arrays", line * (((2 << 20) - 4096) // len(line))))
    distinct = b"".join(b"array A%d(1);\n" % i for i in range(120000))
    out.append(("big-distinct-arrays", distinct))
    big = b"array A(1);\n" + b"// padding padding padding padding padding\n" * ((9 << 20) // 43)
    out.append(("9mib", big))
    out.append(("parens", b"array A" + b"(" * 100000 + b";\n"))
    out.append(("brackets", b"array A(4);\nlayout L of A = ktile { k = " + b"[" * 100000 + b"4" + b"]" * 100000 + b"; };\n"))
    out.append(("brackets-bits", b"array A(4);\nlayout L of A = bits " + b"[[[[" * 25000 + b";\n"))
    out.append(("long-line", b"array A(" + b"1, " * 100000 + b"1);\n"))
    out.append(("long-name", b"array " + b"A" * 1000000 + b"(4);\n"))
    out.append(("long-number", b"array A(" + b"9" * 1000000 + b");\n"))
    layouts = [b"machine maspar(pes = [4, 4], memory = 64);\narray A(8, 8);\n"]
    for i in range(10000):
        layouts.append(b"layout L%d of A = ktile { k = [8; 8]; m = [0; 1]; d = [8; 8]; };\n" % i)
    out.append(("10000-layouts", b"".join(layouts)))
    chain = [b"array A(8, 8);\n"]
    for i in range(20000):
        chain.append(b"layout L%d of A = transpose(%s, 0, 1);\n" % (i, b"A" if i == 0 else b"L%d" % (i - 1)))
    out.append(("transpose-chain", b"".join(chain)))
    align = [b"array A0(8);\n"]
    for i in range(1, 20000):
        align.append(b"array A%d(8);\nalign A%d(i) with A%d(i);\n" % (i, i, i - 1))
    out.append(("align-chain", b"".join(align)))
    cyc = [b"array A0(8);\n"]
    for i in range(1, 20000):
        cyc.append(b"array A%d(8);\nalign A%d(i) with A%d(i);\n" % (i, i - 1, i))
    out.append(("align-cycle", b"".join(cyc)))
    out.append(("many-errors", b"array A(4);\n" + b"copy A to A;\n" * 50000))
    out.append(("many-syntax-errors", b") " * 200000))
    out.append(("nul-only", b"\x00" * 1000))
    out.append(("huge-layout", b"array A(1048576, 1024);\nlayout L of A = hierarchical1d;\n"))
    out.append(("huge-device", b"machine hypercube(dims = 24, memory = 4294967296);\narray A(1099511627776);\n"))
    out.append(("huge-run", b"machine maspar(pes = [1024, 1024], memory = 65536);\n"
                b"array A(65536, 1024, 1024) : c128;\nlayout B of A = bits [p: "
                + b" ".join(b"a%d" % i for i in range(35, 15, -1)) + b" | m: "
                + b" ".join(b"a%d" % i for i in range(15, -1, -1)) + b"];\n"
                b"layout C of A = bits [p: " + b" ".join(b"a%d" % i for i in range(20))
                + b" | m: " + b" ".join(b"a%d" % i for i in range(20, 36)) + b"];\n"
                b"place A in B;\nremap A to C;\n"))
    return out


# How much longer than --timeout of CPU a run may take on the wall clock: a
# loaded machine (CI's two cores running two jobs beside the other tests)
# stretches wall time, not CPU time, so the CPU limit is what catches a
# hang; the wall limit catches a run that waits without computing.
WALL_FACTOR = 10


def cpu_limit(seconds):
    """A preexec_fn that stops the child after `seconds` of CPU time."""
    soft = max(1, int(seconds + 0.999))

    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
    return apply


def run_one(job):
    mapc, path, emit, timeout = job
    t0 = time.time()
    try:
        flag = "--run" if emit == "run" else "--emit=" + emit
        r = subprocess.run([mapc, path, flag], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE,
                           timeout=timeout * WALL_FACTOR,
                           preexec_fn=cpu_limit(timeout))
    except subprocess.TimeoutExpired:
        return (path, emit, "no result after %gs of wall time" %
                (timeout * WALL_FACTOR), b"")
    dt = time.time() - t0
    err = r.stderr
    rc = r.returncode
    if rc in (-signal.SIGXCPU, -signal.SIGKILL) and dt >= timeout:
        return (path, emit, "timeout after %gs of CPU time" % timeout, err[-2000:])
    if rc < 0:
        return (path, emit, "killed by signal %d" % -rc, err[-2000:])
    # --emit=butterfly on a maspar machine is a usage error by design (exit
    # 2): a mutant's `machine mesh` may sit in a comment, or be mangled.
    if (emit == "butterfly" and rc == 2 and
            b"--emit=butterfly needs a mesh or hypercube machine" in err):
        return (path, emit, None, dt)
    if rc not in (0, 1):
        return (path, emit, "exit code %d" % rc, err[-2000:])
    if rc == 1 and not err.strip():
        return (path, emit, "exit 1 with empty stderr", b"")
    if rc == 1 and not LOC_RE.search(err):
        return (path, emit, "exit 1 without a FILE:LINE:COL: error: line", err[-2000:])
    if rc == 0 and b"error:" in err:
        return (path, emit, "exit 0 but stderr has error:", err[-2000:])
    if b"internal parser failure" in err:
        return (path, emit, "internal parser failure", err[-2000:])
    return (path, emit, None, dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", default=shutil.which("mapc"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1500, help="mutants in total")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--out", default="fuzz-out")
    ap.add_argument("--pathological", default="all",
                    help="comma-separated pathological inputs to run, 'all' or 'none'")
    ap.add_argument("--skip-pathological", default="",
                    help="comma-separated pathological inputs not to run")
    ap.add_argument("--heavy", type=float, default=0.25,
                    help="seeds whose --emit=layout takes longer than this many "
                         "seconds get --emit=layout on every 10th mutant only")
    ap.add_argument("roots", nargs="*")
    args = ap.parse_args()
    if not args.mapc:
        sys.exit("mutate.py: no mapc (pass --mapc)")

    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    inputs = []
    heavy = set()
    if args.count > 0:
        files = collect(args.roots)
        if not files:
            sys.exit("mutate.py: no .map files under " + " ".join(args.roots))
        rng = random.Random(args.seed)
        texts = [t for _, t in files]
        for src, _ in files:
            t1 = time.time()
            try:
                subprocess.run([args.mapc, src, "--emit=layout"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                pass
            if time.time() - t1 > args.heavy:
                heavy.add(src)
        for n in range(args.count):
            src, text = files[n % len(files)]
            emits = ("ktile",) if src in heavy and n % 10 else ("ktile", "layout")
            if src not in heavy and n % 4 == 0:
                emits += ("run",)  # plans, runs and verifies on the simulator
            mutant = mutate(rng, text, texts)
            if n % 4 == 1:
                emits += ("cycles",)  # cycle notation and 001's exchanges
            if n % 4 == 2 and re.search(rb"(?i)machine\s+(mesh|hypercube)", mutant):
                emits += ("butterfly",)  # 002 (exit 2 on a maspar machine)
            if src not in heavy and n % 8 == 3:
                emits += ("svg",)  # the pictures (docs/pictures.md)
            if src not in heavy and n % 8 == 7:
                emits += ("html",)  # plans, runs and traces, like --run
            inputs.append(("m%05d-%s" % (n, os.path.basename(src)),
                           mutant, emits))
    if args.pathological != "none":
        want = None if args.pathological == "all" else set(args.pathological.split(","))
        skip = set(filter(None, args.skip_pathological.split(",")))
        inputs += [(name + ".map", data,
                    ("ktile", "run") if name.endswith("-run") else ("ktile", "layout"))
                   for name, data in pathological()
                   if (want is None or name in want) and name not in skip]
    jobs = []
    for name, data, emits in inputs:
        p = os.path.join(args.out, name)
        with open(p, "wb") as fh:
            fh.write(data)
        for emit in emits:
            jobs.append((args.mapc, p, emit, args.timeout))

    failures, slowest = [], (0.0, "")
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for path, emit, problem, extra in pool.map(run_one, jobs):
            if problem:
                failures.append((path, emit, problem, extra))
            elif extra > slowest[0]:
                slowest = (extra, "%s --emit=%s" % (path, emit))
    # Keep only the failing inputs.
    bad = {f[0] for f in failures}
    for name, _, _ in inputs:
        p = os.path.join(args.out, name)
        if p not in bad:
            os.remove(p)
    print("mutate.py: %d inputs, %d runs, %d failures, %.1fs; slowest run %.2fs (%s)"
          % (len(inputs), len(jobs), len(failures), time.time() - t0,
             slowest[0], slowest[1]))
    for path, emit, problem, err in failures:
        print("FAIL: %s --emit=%s: %s" % (path, emit, problem))
        if err:
            sys.stdout.write("  | " + err.decode("utf-8", "replace").replace("\n", "\n  | ") + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
