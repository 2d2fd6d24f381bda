#!/usr/bin/env python3
"""The browser test of `mapc --emit=html` (CTest `browser`).

Writes the workbench page of a .map file, loads it in headless Chromium
(test/tools/browser.py), and for the first statement steps through every
state of its plan with the ArrowRight key, then back with ArrowLeft and the
`previous` button. At every state it reads the device from the DOM (each
cell's `<text data-pe data-m>`) and checks that the rows equal the rows
`mapc --run --trace` prints for that step, that the page names the state,
and that exactly the cells whose value changed in the step are highlighted
(`data-moved`). A screenshot of every state is kept in --out-dir.

With --heat-example it also loads a second program's page, whose device is
drawn as a heat map, steps once, and checks every pixel's colour against
the data index `--run --trace` gives for that cell (faded where the cell
kept its element).

With --tamper the page's data is altered (two cells of state 1 swapped)
before it is loaded: the check must then fail (CTest `browser-tamper`).
Exits 1 on any difference, or when Chromium is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, BrowserError  # noqa: E402

READ_DEVICE = r"""
(function () {
  var a = document.querySelector('article.statement[data-statement="0"]');
  var svg = a.querySelector('.device svg');
  var out = {state: a.dataset.state,
             name: a.querySelector('.stepname').textContent,
             active: a.classList.contains('active'), rows: null, moved: -1};
  if (!svg) return out;
  var pes = Number(svg.dataset.pes), mem = Number(svg.dataset.memory);
  var rows = [];
  for (var r = 0; r < pes; ++r) rows.push(new Array(mem).fill('.'));
  svg.querySelectorAll('text[data-pe]').forEach(function (t) {
    rows[Number(t.dataset.pe)][Number(t.dataset.m)] = t.textContent;
  });
  out.rows = rows.map(function (r) { return r.join(' '); });
  out.moved = svg.querySelectorAll('text[data-moved]').length;
  return out;
})()
"""

ARTICLE_BOX = r"""
(function () {
  var a = document.querySelector('article.statement[data-statement="0"]');
  a.scrollIntoView();
  var b = a.getBoundingClientRect();
  return {x: b.left + window.scrollX, y: b.top + window.scrollY,
          width: b.width, height: b.height};
})()
"""


def trace_states(text):
    """The first statement's states in `--run --trace` output."""
    states, array = [], None
    for line in text.splitlines():
        m = re.match(r"trace (\S+) step (\d+)$", line)
        if m:
            if array is not None and m.group(1) != array or \
                    int(m.group(2)) != len(states):
                break  # the next statement
            array = m.group(1)
            states.append([])
        elif states and ": " not in line:
            states[-1].append(line)
        elif states:
            break
    return states


def changed(before, after):
    n = 0
    for rb, ra in zip(before, after):
        for b, a in zip(rb.split(), ra.split()):
            n += a != "." and a != b
    return n


READ_HEAT = r"""
(function () {
  var a = document.querySelector('article.statement[data-statement="0"]');
  var c = a.querySelector('.device canvas.heatmap');
  if (!c) return null;
  var px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  return {state: a.dataset.state, width: c.width, height: c.height,
          shape: JSON.parse(document.getElementById('mapc-data').textContent)
              .statements[0].shape,
          rgb: Array.from(px).filter(function (_, i) { return i % 4 !== 3; })};
})()
"""


def heat_colour(v, shape, fade):
    """WorkbenchAssets.cpp's hsl() and rgb(), and the fading of cells that
    kept their element."""
    if v < 0:
        px = [225, 225, 225]
    else:
        len0 = max(shape[0] if shape else 1, 1)
        rest = 1
        for n in shape[1:]:
            rest *= max(n, 1)
        h = (v % len0) * 300 // len0
        light = 86 - ((v // len0) % rest * 40 // rest if rest > 1 else 0)
        s, l = 0.7, light / 100
        a = s * min(l, 1 - l)

        def f(n):
            k = (n + h / 30) % 12
            return round(255 * (l - a * max(-1, min(k - 3, min(9 - k, 1)))))
        px = [f(0), f(8), f(4)]
    if fade:
        px = [round(x * 0.25 + 191) for x in px]
    return px


def check_heat(b, states, errors):
    """Steps to state 1 of a page drawn as a heat map and checks every
    pixel's colour against the trace's data index."""
    b.key("ArrowRight")
    got = b.evaluate(READ_HEAT)
    if not got or got["state"] != "1":
        errors.append("heat map: no canvas at state 1")
        return
    rows = [r.split() for r in states[1]]
    before = [r.split() for r in states[0]]
    if got["height"] != len(rows) or got["width"] != len(rows[0]):
        errors.append("heat map: %d x %d pixels for %d x %d cells" %
                      (got["width"], got["height"], len(rows[0]), len(rows)))
        return
    bad = 0
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            v = -1 if cell == "." else int(cell)
            # A general plan's states may differ in shape (GeneralRun.cpp).
            fade = cell == "." or (r < len(before) and c < len(before[r])
                                   and before[r][c] == cell)
            want = heat_colour(v, got["shape"], fade)
            i = 3 * (r * len(row) + c)
            if any(abs(x - y) > 1 for x, y in zip(got["rgb"][i:i + 3], want)):
                bad += 1
    if bad:
        errors.append("heat map: %d of %d pixels have the wrong colour" %
                      (bad, len(rows) * len(rows[0])))
    print("heat map at state 1: %d x %d cells, %d wrong pixels" %
          (len(rows[0]), len(rows), bad))


def tamper(path):
    text = open(path).read()
    m = re.search(r'(<script type="application/json" id="mapc-data">)(.*?)'
                  r'(</script>)', text, re.S)
    data = json.loads(m.group(2))
    cells = data["statements"][0]["states"][1]["device"]["cells"]
    cells[0], cells[1] = cells[1], cells[0]
    text = text[:m.start(2)] + json.dumps(data) + text[m.end(2):]
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", required=True)
    ap.add_argument("--example", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--tamper", action="store_true")
    ap.add_argument("--heat-example",
                    help="also check the heat map of this program's first "
                         "statement after its first step, pixel by pixel")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.example))[0]
    if args.tamper:
        stem += "-tampered"
    page = os.path.abspath(os.path.join(args.out_dir, stem + ".html"))
    subprocess.run([args.mapc, args.example, "--emit=html", "-o", page],
                   check=True)
    if args.tamper:
        tamper(page)
    trace = subprocess.run([args.mapc, args.example, "--run", "--trace"],
                           check=True, capture_output=True, text=True).stdout
    states = trace_states(trace)
    if len(states) < 2:
        print("FAIL: the example's first statement has no plan steps")
        return 1
    last = len(states) - 1
    errors = []
    started = time.monotonic()

    def check(b, k, how):
        got = b.evaluate(READ_DEVICE)
        where = "state %d (%s)" % (k, how)
        if got["state"] != str(k):
            errors.append("%s: the page shows state %s" % (where,
                                                           got["state"]))
        if not got["name"].startswith("state %d of %d" % (k, last)):
            errors.append("%s: the step is named %r" % (where, got["name"]))
        if got["rows"] != states[k]:
            bad = [i for i, (x, y) in enumerate(zip(got["rows"] or [],
                                                    states[k])) if x != y]
            errors.append("%s: the device differs from --run --trace "
                          "(rows %s)" % (where, bad[:8] or "count"))
        want = changed(states[k - 1], states[k]) if k else 0
        if got["moved"] != want:
            errors.append("%s: %d cells highlighted, %d changed" %
                          (where, got["moved"], want))
        print("%s: %s, %d rows, %d highlighted" %
              (where, "ok" if not errors else "checked", len(states[k]),
               got["moved"]))

    try:
        with Browser() as b:
            b.open("file://" + page)
            for k in range(last + 1):
                if k:
                    b.key("ArrowRight")
                check(b, k, "ArrowRight" if k else "loaded")
                box = b.evaluate(ARTICLE_BOX)
                box["height"] = min(box["height"], 1600)
                b.screenshot(os.path.join(args.out_dir, "%s-state-%d.png" %
                                          (stem, k)), box)
            b.key("ArrowRight")  # past the end: stays at the last state
            check(b, last, "ArrowRight at the end")
            b.key("ArrowLeft")
            check(b, last - 1, "ArrowLeft")
            if last >= 2:
                b.evaluate("document.querySelector('article.statement "
                           ".prev').click()")
                check(b, last - 2, "previous button")
            if args.heat_example:
                heat_page = os.path.abspath(os.path.join(
                    args.out_dir, stem + "-heat.html"))
                subprocess.run([args.mapc, args.heat_example, "--emit=html",
                                "-o", heat_page], check=True)
                heat_trace = subprocess.run(
                    [args.mapc, args.heat_example, "--run", "--trace"],
                    check=True, capture_output=True, text=True).stdout
                b.open("file://" + heat_page)
                check_heat(b, trace_states(heat_trace), errors)
                box = b.evaluate(ARTICLE_BOX)
                box["height"] = min(box["height"], 1600)
                b.screenshot(os.path.join(args.out_dir,
                                          stem + "-heat-state-1.png"), box)
    except BrowserError as e:
        print("FAIL:", e)
        return 1
    print("%.1f s in the browser" % (time.monotonic() - started))
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        return 1
    print("PASS: %d states of %s match --run --trace; screenshots in %s" %
          (last + 1, args.example, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
