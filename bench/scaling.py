#!/usr/bin/env python3
"""Simulator scaling: `mapc --run` time and peak memory as the problem grows.

Runs one remap per program, each in its own mapc process (peak memory is the
process's maximum resident set, from wait4), for:
  - a Boolean cube: Gray -> binary and a bit reversal, 2^14 .. 2^20 nodes;
  - a 2-d mesh and a 1-d line (one element per node) at the same sizes;
  - the MasPar (32 x 32 PEs, f32): a transpose and a bit reversal, 2^20 ..
    2^26 elements.
Sizes grow by 4x; `growth` is the time ratio to the size before, measured
in the same run (the baseline is this run's smaller size, on this machine).
A case the simulator refuses (network cells x diameter above 2^28) shows
`refused` and the time to refuse.

  python3 bench/scaling.py [--mapc build/tools/mapc/mapc] [--quick]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def network_program(machine, bits, remap):
    n = 1 << bits
    lines = [machine,
             "array A(%d) : f32;" % n,
             "layout G of A = ktile { k = [1, %d]; m = [0; 1]; d = [1; %d]; "
             "e = [b, g]; };" % (n, n),
             "layout B of A = ktile { k = [1, %d]; m = [0; 1]; d = [1; %d]; };"
             % (n, n),
             "layout R of A = bitrev(B, 0);"]
    if remap == "gray->binary":
        lines += ["place A in G;", "remap A to B;"]
    else:
        lines += ["place A in B;", "remap A to R;"]
    return "\n".join(lines) + "\n"


def maspar_program(bits, remap):
    rows = 1 << (bits // 2)
    cols = 1 << (bits - bits // 2)
    lines = ["machine maspar(pes = [32, 32], memory = 65536, cluster = 16);",
             "array A(%d, %d) : f32;" % (rows, cols)]
    if remap == "transpose":
        lines.append("layout T of A = transpose(A, 0, 1);")
    else:
        # The bit reversal of the whole linear index: a 1-d view.
        lines = [lines[0], "array A(%d) : f32;" % (1 << bits),
                 "layout T of A = bitrev(A, 0);"]
    lines.append("remap A to T;")
    return "\n".join(lines) + "\n"


def machines(kind, bits):
    if kind == "cube":
        return "machine hypercube(dims = %d, memory = 1);" % bits
    if kind == "2-d mesh":
        return "machine mesh(pes = [%d, %d], memory = 1);" % (
            1 << (bits // 2), 1 << (bits - bits // 2))
    return "machine mesh(pes = [%d], memory = 1);" % (1 << bits)


def run_measured(mapc, path, timeout):
    """Runs `mapc path --run`; returns seconds, the child's own peak RSS in
    MB (from wait4) and (exit code, output)."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        out = os.open(path + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.dup2(fd, 0)
        try:
            os.execv(mapc, [mapc, path, "--run"])
        finally:
            os._exit(127)
    deadline = t0 + timeout
    while True:
        wpid, status, usage = os.wait4(pid, os.WNOHANG)
        if wpid:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.wait4(pid, 0)
            return None, None, "timeout"
        time.sleep(0.02)
    dt = time.monotonic() - t0
    with open(path + ".out", errors="replace") as f:
        text = f.read()
    peak_mb = usage.ru_maxrss / 1024.0
    code = os.waitstatus_to_exitcode(status)
    return dt, peak_mb, (code, text)


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--mapc", default=os.path.join(
        here, "..", "build", "tools", "mapc", "mapc"))
    ap.add_argument("--quick", action="store_true",
                    help="only the two smallest sizes of each case")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    mapc = os.path.abspath(args.mapc)
    if not os.access(mapc, os.X_OK):
        sys.exit("no mapc at %s (build first, or pass --mapc)" % mapc)

    cases = []
    for kind in ("cube", "2-d mesh", "line"):
        for remap in ("gray->binary", "bit reversal"):
            sizes = [14, 16, 18, 20]
            cases.append((kind, remap, sizes,
                          lambda b, k=kind, r=remap:
                          network_program(machines(k, b), b, r)))
    for remap in ("transpose", "bit reversal"):
        cases.append(("maspar", remap, [20, 22, 24, 26],
                      lambda b, r=remap: maspar_program(b, r)))

    tmp = tempfile.mkdtemp(prefix="mapc-scaling-")
    print("| machine | remap | elements | result | seconds | peak MB | "
          "growth per 4x (time) | growth per 4x (memory) |")
    print("|---|---|---|---|---|---|---|---|")
    worst_time = worst_growth = worst_mem = 0.0
    try:
        for kind, remap, sizes, program in cases:
            if args.quick:
                sizes = sizes[:2]
            prev = None
            for bits in sizes:
                path = os.path.join(tmp, "case.map")
                with open(path, "w") as f:
                    f.write(program(bits))
                dt, peak, res = run_measured(mapc, path, args.timeout)
                if dt is None:
                    print("| %s | %s | 2^%d | timeout | > %g | | | |"
                          % (kind, remap, bits, args.timeout))
                    prev = None
                    continue
                code, text = res
                if code == 0 and ": verified," in text:
                    result = "verified"
                elif "exceed 2^28 hops" in text or "more than 2^20" in text:
                    result = "refused"
                else:
                    result = "FAILED (exit %d)" % code
                growth_t = growth_m = ""
                if prev and result == "verified":
                    growth_t = "x%.1f" % (dt / prev[0])
                    growth_m = "x%.1f" % (peak / prev[1])
                    if bits >= 16:
                        worst_growth = max(worst_growth, dt / prev[0])
                if result == "verified":
                    worst_time = max(worst_time, dt)
                    worst_mem = max(worst_mem, peak)
                print("| %s | %s | 2^%d | %s | %.2f | %.0f | %s | %s |"
                      % (kind, remap, bits, result, dt, peak, growth_t,
                         growth_m))
                sys.stdout.flush()
                prev = (dt, peak) if result == "verified" else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("slowest verified case: %.1f s; largest peak: %.0f MB; largest "
          "time growth per 4x (from 2^16 up): x%.1f"
          % (worst_time, worst_mem, worst_growth))


if __name__ == "__main__":
    main()
