#!/usr/bin/env python3
"""Reads `mapc --emit=svg` output and prints its cells in `--emit=layout`'s
format, so a test can compare the picture with the text.

The SVG must parse as XML. For every `<g data-layout data-array>` it prints
`layout NAME of ARRAY`, then one line per PE (`data-pes` of them) with
`data-memory` cells: the text of the `<text>` whose `data-pe` and `data-m`
name the cell, or `.` where there is none. A cell drawn twice, a text that
is not a data index, or a cell outside the device is an error.

  svg_cells.py [FILE]          one SVG (default: stdin)
  svg_cells.py --mapc MAPC F1.map F2.map ...
                               for each .map file, compares the SVG's cells
                               with --emit=layout; prints `ok F` or a diff
"""
import difflib
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def cells_text(svg_text):
    root = ET.fromstring(svg_text)
    out = []
    for g in root.iter(SVG + "g"):
        name = g.get("data-layout")
        if name is None:
            continue
        pes, mem = int(g.get("data-pes")), int(g.get("data-memory"))
        grid = {}
        for t in g.iter(SVG + "text"):
            if t.get("data-m") is None:
                continue
            pe, m = int(t.get("data-pe")), int(t.get("data-m"))
            if not (0 <= pe < pes and 0 <= m < mem):
                raise SystemExit("cell (%d, %d) outside the device of %s" %
                                 (pe, m, name))
            if (pe, m) in grid:
                raise SystemExit("cell (%d, %d) of %s drawn twice" %
                                 (pe, m, name))
            label = t.get("data-index", t.text)
            if not label.isdigit():
                raise SystemExit("cell text %r is not a data index" % label)
            grid[(pe, m)] = label
        out.append("layout %s of %s" % (name, g.get("data-array")))
        for pe in range(pes):
            out.append(" ".join(grid.get((pe, m), ".") for m in range(mem)))
    return "\n".join(out) + "\n"


def compare(mapc, files):
    bad = 0
    for f in files:
        svg = subprocess.run([mapc, f, "--emit=svg"], check=True,
                             capture_output=True, text=True).stdout
        layout = subprocess.run([mapc, f, "--emit=layout"], check=True,
                                capture_output=True, text=True).stdout
        got = cells_text(svg)
        if got == layout:
            print("ok", f)
            continue
        bad += 1
        print("MISMATCH", f)
        sys.stdout.writelines(difflib.unified_diff(
            layout.splitlines(True), got.splitlines(True), "--emit=layout",
            "--emit=svg"))
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if args and args[0] == "--mapc":
        return compare(args[1], args[2:])
    text = open(args[0]).read() if args else sys.stdin.read()
    sys.stdout.write(cells_text(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
