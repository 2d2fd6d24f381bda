#!/usr/bin/env python3
"""Checks that `mapc --emit=ktile` output parses back to the same mapping.

For every .map file given (or found under the given directories) that mapc
accepts, the printed k-Tile formats are renamed NAME__rt, appended to the
source, and the device contents of every NAME and NAME__rt are compared
with --emit=layout. Files with errors, and files whose layouts are too big to
print quickly, are skipped. Exits non-zero on the first difference.
"""
import os
import re
import subprocess
import sys
import tempfile

MAX_CELLS_OUTPUT = 2_000_000  # bytes of --emit=layout output worth comparing


def run(mapc, path, emit):
    return subprocess.run([mapc, path, "--emit=" + emit], capture_output=True,
                          text=True, timeout=60)


def layouts(text):
    """Maps each layout name to its rows."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"layout (\S+) of (\S+)$", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return out


def check(mapc, path):
    first = run(mapc, path, "layout")
    if first.returncode != 0 or len(first.stdout) > MAX_CELLS_OUTPUT:
        return None
    ktile = run(mapc, path, "ktile")
    if ktile.returncode != 0:
        return "--emit=ktile failed: " + ktile.stderr
    renamed = re.sub(r"^layout (\S+) of", r"layout \1__rt of", ktile.stdout,
                     flags=re.M)
    with open(path) as f:
        source = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".map", delete=False) as f:
        f.write(source + "\n" + renamed)
        combined = f.name
    try:
        second = run(mapc, combined, "layout")
    finally:
        os.unlink(combined)
    if second.returncode != 0:
        return "the printed k-Tile formats do not parse back:\n" + second.stderr
    got = layouts(second.stdout)
    for name, rows in layouts(first.stdout).items():
        if got.get(name + "__rt") != rows:
            return "layout %s changes when printed and read back" % name
    return "ok"


def main():
    mapc, targets = sys.argv[1], sys.argv[2:]
    files = []
    for t in targets:
        if os.path.isdir(t):
            for root, _, names in os.walk(t):
                files += [os.path.join(root, n) for n in names
                          if n.endswith(".map")]
        else:
            files.append(t)
    checked = 0
    for path in sorted(files):
        result = check(mapc, path)
        if result is None:
            continue
        if result != "ok":
            print("FAIL %s: %s" % (path, result))
            return 1
        checked += 1
    print("round-tripped %d files" % checked)
    return 0 if checked else 1


if __name__ == "__main__":
    sys.exit(main())
