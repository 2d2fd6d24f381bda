#!/usr/bin/env python3
"""Runs the shell transcripts of the docs and compares what mapc prints.

A transcript is a code block (fenced, or indented by four spaces) whose
first line starts with `$ `. Each `$ COMMAND` line is followed by what the
command prints, up to the next `$ ` line or the block's end:

- `$ cat FILE` defines FILE as what follows;
- `$ mapc ARGS` and `$ build/tools/mapc/mapc ARGS` run the mapc under test
  (with `; echo $?` and a trailing `# comment` as a shell would), in a
  directory holding the files, and must print exactly the lines shown,
  standard error included.

A file may also be defined by the code block right after a line
`<!-- file: NAME -->`, so that a program shown as it is can be run, or by
the lines of a comment `<!-- file: NAME` ... `-->` (a variant of a program
shown, which the reader need not see again).

A code block right after a line `<!-- excerpt: mapc ARGS -->` is part of
what that command prints: its lines must be found together, in order, in
the output (`...` eliding as below). ARGS may name a test file by its path
from the repository's root (`test/mixed-radix/....map`) or a file a block
defines, so the plan excerpts of the pages are checked too. In the
expected lines, a line that is only `...` stands for any number of lines,
and `...` inside a line for any text. A transcript that names a file no
block defines is an error, so every transcript in the docs is checked.

usage: check_transcripts.py --mapc MAPC --dir DIR DOC.md...
Prints one line per doc and a summary; exits 1 on any difference.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

FILE_MARK = re.compile(r"<!--\s*file:\s*(\S+)\s*-->")
EXCERPT_MARK = re.compile(r"<!--\s*excerpt:\s*(.+?)\s*-->")
HIDDEN_FILE = re.compile(r"<!--\s*file:\s*(\S+)")
MAPC_COMMAND = re.compile(r"^(?:build/tools/mapc/)?mapc(\s|$)")


def blocks(text):
    """Yields (first line number, lines, mark): the mark is None, ("file",
    NAME) or ("excerpt", COMMAND)."""
    lines = text.split("\n")
    i, mark = 0, None
    while i < len(lines):
        line = lines[i]
        m = FILE_MARK.fullmatch(line.strip())
        if m:
            mark = ("file", m.group(1))
            i += 1
            continue
        m = EXCERPT_MARK.fullmatch(line.strip())
        if m:
            mark = ("excerpt", m.group(1))
            i += 1
            continue
        m = HIDDEN_FILE.fullmatch(line.strip())
        if m:  # a file the reader does not need to see, up to `-->`
            j = i + 1
            while j < len(lines) and lines[j].strip() != "-->":
                j += 1
            yield i + 2, lines[i + 1:j], ("file", m.group(1))
            i = j + 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield i + 2, lines[i + 1:j], mark
            mark = None
            i = j + 1
            continue
        if line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or
                                      not lines[j].strip()):
                j += 1
            body = [l[4:] for l in lines[i:j]]
            while body and not body[-1].strip():
                body.pop()
            yield i + 1, body, mark
            mark = None
            i = j
            continue
        if line.strip():
            mark = None
        i += 1


def matches(expected, actual):
    """Whether `actual` lines match `expected` with the `...` elisions."""
    def line_ok(e, a):
        if "..." not in e:
            return e == a
        parts = [re.escape(p) for p in e.split("...")]
        return re.fullmatch(".*?".join(parts), a) is not None

    def go(i, j):
        if i == len(expected):
            return j == len(actual)
        if expected[i] == "...":
            return any(go(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and line_ok(expected[i], actual[j]) and \
            go(i + 1, j + 1)
    return go(0, 0)


def write_files(files, workdir):
    for name, content in files.items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(content)


def run_mapc(command, mapc, workdir):
    """What `command` (a mapc line) prints, standard error included."""
    shell = re.sub(MAPC_COMMAND, lambda m: shlex.quote(mapc) + m.group(1),
                   command)
    run = subprocess.run(["bash", "-c", "exec 2>&1\n" + shell], cwd=workdir,
                         capture_output=True, text=True, timeout=300)
    return run.stdout.rstrip("\n").split("\n")


def check_excerpt(start, body, command, files, mapc, workdir, root, doc):
    """Checks a marked excerpt; returns a list of failure messages."""
    if not MAPC_COMMAND.match(command):
        return ["%s:%d: excerpt of `%s`, not of a mapc command" %
                (doc, start, command)]
    words = shlex.split(command)
    resolved = []
    for w in words:
        if w.endswith(".map") and w not in files:
            path = os.path.join(root, w)
            if not os.path.isfile(path):
                return ["%s:%d: the excerpt's %s is neither a file of the "
                        "repository nor one a block defines" % (doc, start, w)]
            w = path
        resolved.append(w)
    write_files(files, workdir)
    actual = run_mapc(" ".join(shlex.quote(w) for w in resolved), mapc,
                      workdir)
    if matches(["..."] + body + ["..."], actual):
        return []
    return ["%s:%d: `%s` printed:\n%s\nwhich does not contain:\n%s" %
            (doc, start, command, "\n".join(actual), "\n".join(body))]


def run_transcript(start, body, files, mapc, workdir, doc):
    """Checks one transcript; returns a list of failure messages."""
    failures = []
    steps, k = [], 0
    while k < len(body):
        if not body[k].startswith("$ "):
            k += 1
            continue
        command, out = body[k][2:], []
        k += 1
        while k < len(body) and not body[k].startswith("$ "):
            out.append(body[k])
            k += 1
        steps.append((command, out))
    for command, out in steps:
        words = shlex.split(command, comments=True)
        if words[:1] == ["cat"] and len(words) == 2:
            files[words[1]] = "\n".join(out) + "\n"
            continue
        if not MAPC_COMMAND.match(command):
            failures.append("%s:%d: `%s` is not a mapc command or a cat" %
                            (doc, start, command))
            continue
        missing = [w for w in words[1:] if w.endswith(".map") and
                   w not in files]
        for word in missing:
            failures.append("%s:%d: no block defines %s (add "
                            "<!-- file: %s --> before its program)" %
                            (doc, start, word, word))
        if missing:
            break
        write_files(files, workdir)
        actual = run_mapc(command, mapc, workdir)
        if not matches(out, actual):
            failures.append("%s:%d: `%s` printed:\n%s\nnot:\n%s" %
                            (doc, start, command, "\n".join(actual),
                             "\n".join(out)))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapc", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--root", help="the repository (default: the parent of "
                    "the first doc's folder)")
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    root = os.path.abspath(args.root or os.path.join(
        os.path.dirname(os.path.abspath(args.docs[0])), os.pardir))
    mapc = os.path.abspath(shutil.which(args.mapc) or args.mapc)
    total = total_excerpts = bad = 0
    for doc in args.docs:
        name = os.path.basename(doc)
        workdir = os.path.join(args.dir, name)
        os.makedirs(workdir, exist_ok=True)
        with open(doc) as f:
            text = f.read()
        files, count, excerpts, failures = {}, 0, 0, []
        for start, body, mark in blocks(text):
            if mark and mark[0] == "file":
                files[mark[1]] = "\n".join(body) + "\n"
            if mark and mark[0] == "excerpt":
                excerpts += 1
                failures += check_excerpt(start, body, mark[1], files, mapc,
                                          workdir, root, name)
            elif body and body[0].startswith("$ "):
                count += 1
                failures += run_transcript(start, body, files, mapc, workdir,
                                           name)
        for f in failures:
            print("FAIL " + f)
        total += count
        total_excerpts += excerpts
        bad += len(failures)
        print("%s: %d transcripts, %d excerpts, %d failures" %
              (name, count, excerpts, len(failures)))
    print("%d transcripts and %d excerpts checked, %d failures" %
          (total, total_excerpts, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
