#!/usr/bin/env python3
"""Renders docs/pictures.md's pictures with headless Chromium (the browser
the browser test uses, test/tools/browser.py): --emit=svg drawings of
003 ch. 3 and 001 fig. 3, and --emit=html workbench pages at a chosen step.

  python3 test/tools/render_pictures.py --mapc build/tools/mapc/mapc \\
      --out docs/pictures
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# (picture, .map file, what to draw, options)
PICTURES = [
    ("crinkle-sheet.png", "test/layout/3.1.12-crinkle-sheet.map", "svg", {}),
    ("gray-cube.png", "test/run/gray-fig3.map", "svg", {}),
    ("workbench-transpose.png", "examples/transpose.map", "html",
     {"steps": 1, "height": 1000}),
    ("workbench-heatmap.png", "examples/redistribute.map", "html",
     {"steps": 1, "height": 900}),
]

SVG_BOX = """(function () {
  var s = document.documentElement;
  return {x: 0, y: 0, width: Number(s.getAttribute('width')),
          height: Number(s.getAttribute('height'))};
})()"""

ARTICLE_BOX = """(function () {
  var a = document.querySelector('article.statement');
  a.scrollIntoView();
  var b = a.getBoundingClientRect();
  return {x: b.left + window.scrollX, y: b.top + window.scrollY,
          width: b.width, height: b.height};
})()"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, Browser() as b:
        for name, source, kind, opts in PICTURES:
            page = os.path.join(tmp, name + "." + kind)
            subprocess.run([os.path.abspath(args.mapc), source,
                            "--emit=" + kind, "-o", page], check=True,
                           cwd=ROOT)
            if kind == "svg":
                b.open("file://" + page, ready="true")
                box = b.evaluate(SVG_BOX)
            else:
                b.open("file://" + page)
                for _ in range(opts.get("steps", 0)):
                    b.key("ArrowRight")
                box = b.evaluate(ARTICLE_BOX)
                box["height"] = min(box["height"], opts.get("height", 1000))
            out = os.path.join(args.out, name)
            b.screenshot(out, box)
            print("wrote", out, "(%d x %d)" % (box["width"], box["height"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
