#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No function of the program over MAX lines (STYLE.md: it fits a screen).

A function is what kernel style writes: its opening brace alone at
column 0, its closing one at column 0; its length is the lines between
the two. Its name is the first identifier before "(" in the lines above
the brace, back to the end of what came before (a blank line, a ";", a
"}" or the end of a comment).

usage: funclen.py SRCDIR [MAX]: every .c under SRCDIR, folders too, one
point a file. Prints TAP.
"""
import os
import re
import sys

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof",
            "__attribute__", "defined"}


def c_files(srcdir):
    """Every .c under srcdir, in a stable order."""
    found = []
    for root, dirs, files in os.walk(srcdir):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files)
                  if f.endswith(".c")]
    return found


def header_name(lines, brace):
    """The function's name from the lines above its opening brace."""
    head = []
    i = brace - 1
    while i >= 0:
        line = lines[i].rstrip()
        if not line or line.endswith((";", "}", "*/")) or \
                line.startswith("#"):
            break
        head.insert(0, line)
        i -= 1
    for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", " ".join(head)):
        if m.group(1) not in KEYWORDS:
            return m.group(1)
    return "?"


def functions(path):
    """[(name, first line, body lines)] of the file's functions."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found, start = [], None
    for i, line in enumerate(lines):
        if start is None and line.rstrip() == "{":
            start = i
        elif start is not None and line.startswith("}"):
            found.append((header_name(lines, start), start + 1,
                          i - start - 1))
            start = None
    return found


def main():
    srcdir = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    files = c_files(srcdir)
    if not files:
        print(f"Bail out! no .c file under {srcdir}")
        sys.exit(1)
    print(f"1..{len(files)}")
    for n, path in enumerate(files, 1):
        rel = os.path.relpath(path, srcdir)
        long = [f for f in functions(path) if f[2] > limit]
        print(f"{'not ' if long else ''}ok {n} - {rel}: no function over "
              f"{limit} lines")
        for name, line, length in long:
            print(f"# {rel}:{line}: {name}() is {length} lines")


if __name__ == "__main__":
    main()
