#!/usr/bin/env python3
"""Reads a `mapc --emit=html` page and prints the device states it holds in
`--run --trace`'s format (`trace ARRAY step N`, then the rows), so a test
can compare the page's data with the trace, and checks that the page is
self-contained (no external scripts, styles, images or links).

  html_states.py PAGE.html
"""
import html.parser
import json
import re
import sys


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.data = None
        self.in_data = False
        self.external = []
        self.labels = []
        self.in_h3 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("id") == "mapc-data":
            self.in_data = True
        for key in ("src", "href"):
            # In-page references (#id) and data: URLs are self-contained.
            v = a.get(key)
            if v and not v.startswith("#") and not v.startswith("data:"):
                self.external.append("<%s %s=%s>" % (tag, key, v))
        if tag == "h3":
            self.in_h3 = True
            self.labels.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_data = False
        if tag == "h3":
            self.in_h3 = False

    def handle_data(self, d):
        if self.in_data:
            self.data = (self.data or "") + d
        elif self.in_h3 and not self.labels[-1]:
            self.labels[-1] = d.strip()


def main():
    page = Page()
    text = open(sys.argv[1]).read()
    page.feed(text)
    if page.external:
        print("not self-contained:", " ".join(page.external))
        return 1
    if re.search(r"url\((?!#)", text) or "@import" in text:
        print("not self-contained: a CSS url() or @import")
        return 1
    data = json.loads(page.data)
    for label, st in zip(page.labels, data["statements"]):
        if not st["traced"]:
            continue  # too large for --trace: the layouts, not a trace
        array = label.split()[1].rstrip(":")
        for k, s in enumerate(st["states"]):
            print("trace %s step %d" % (array, k))
            d = s["device"]
            if d is None:
                print("(not drawn)")
                continue
            for r in range(d["rows"]):
                row = d["cells"][r * d["rowLen"]:(r + 1) * d["rowLen"]]
                print(" ".join("." if v < 0 else str(v) for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
