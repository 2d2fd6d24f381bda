#!/usr/bin/env python3
"""Compiles mapc's --emit=cpp output with a harness and runs it.

The emitted source and the harness are compiled together with
-std=c++17 -Wall -Wextra -Werror against the runtime's headers and linked
with the runtime library alone (no LLVM: emitted code must not need it).
The program's stdout is printed and its exit code returned. A failed
compile prints the compiler's messages and exits with the compiler's code.
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--runtime-include", required=True)
    ap.add_argument("--runtime-lib", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--harness", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cxxflag", action="append", default=[],
                    help="extra compiler flag (repeatable)")
    ap.add_argument("--lib", action="append", default=[],
                    help="a library linked after --runtime-lib (repeatable)")
    args = ap.parse_args()

    # The header's directory first, so that both the source's and the
    # harness's #include of it find this header.
    cmd = [args.cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror",
           *args.cxxflag,
           "-I", os.path.dirname(os.path.abspath(args.header)),
           "-I", args.runtime_include,
           args.source, args.harness, args.runtime_lib, *args.lib, "-o",
           args.out]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + built.stdout + built.stderr)
        return built.returncode
    ran = subprocess.run([os.path.abspath(args.out)], stdout=subprocess.PIPE,
                         text=True)
    sys.stdout.write(ran.stdout)
    return ran.returncode


if __name__ == "__main__":
    sys.exit(main())
