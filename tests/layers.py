#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What may call and include what, checked on the tree and the objects.

src/ is a stack of folders, each a layer of doc/design.md's table (rows
"| N | folder/ | modules |"). A module is a .c of a folder (with its .h);
a folder's types.h holds types alone and is no module.

- Every module is in the folder its row names, and every folder of src/
  has a row.
- A module calls only modules of its own folder or below, and no modules
  call each other round a circle. A call is a reference to a global
  symbol another module defines, as nm lists it: one through a function
  pointer (queue_ops, a lane's done) is not a call, which is how events
  go up.
- A file includes headers of its own folder or below, named by folder
  ("pkt/gso.h"), and no modules include each other's headers round a
  circle, inside a folder or between folders.

usage: layers.py DESIGN.md SRCDIR OBJECT... (an archive's members count
each). Prints TAP.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"')


def read_layers(path):
    """{module: layer}, {folder: layer} from "| N | folder/ | a, b |"."""
    layers, folders = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*(\d+)\s*\|\s*`?([a-z]+)/`?\s*\|([^|]*)\|",
                         line)
            if not m:
                continue
            n = int(m.group(1))
            folders[m.group(2)] = n
            for mod in m.group(3).replace("`", "").split(","):
                if mod.strip():
                    layers[mod.strip()] = (n, m.group(2))
    return layers, folders


def read_tree(srcdir):
    """{module: folder} and [(folder, file name)] of src/'s folders."""
    where, files = {}, []
    for folder in sorted(os.listdir(srcdir)):
        path = os.path.join(srcdir, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith((".c", ".h")):
                files.append((folder, name))
                if name != "types.h":
                    where[module_name(name)] = folder
    return where, files


def module_name(name):
    """A file's module: link.c, link.h and link-priv.h (its private
    header) are link's."""
    return re.sub(r"-priv$", "", name[:-2])


def module_of(name):
    """src/base/gsotun-log.o and libgsotun.a's log.o are both log."""
    base = os.path.basename(name)
    base = re.sub(r"\.o$", "", base)
    return re.sub(r"^gsotun(ctl)?-", "", base)


def read_symbols(objects):
    """{module: defined symbols}, {module: undefined symbols}."""
    defs, undefs = {}, {}
    out = subprocess.run(["nm", "-A"] + objects, capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        where, _, rest = line.rpartition(":")
        fields = rest.split()
        mod = module_of(where.split(":")[-1])
        if len(fields) == 3 and fields[1] in "TDBRC":
            defs.setdefault(mod, set()).add(fields[2])
        elif len(fields) == 2 and fields[0] == "U":
            undefs.setdefault(mod, set()).add(fields[1])
    return defs, undefs


def read_includes(srcdir, files):
    """[(folder, file, included path)] of the quoted includes of src/."""
    found = []
    for folder, name in files:
        with open(os.path.join(srcdir, folder, name),
                  encoding="utf-8") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m and m.group(1) != "config.h":
                    found.append((folder, name, m.group(1)))
    return found


def include_faults(includes, folders, where):
    """What an include breaks: not by folder, unknown, or going up."""
    faults = []
    for folder, name, inc in includes:
        parts = inc.split("/")
        if len(parts) != 2 or parts[0] not in folders:
            faults.append(f"{folder}/{name} includes \"{inc}\": not "
                          f"FOLDER/NAME.h of src/")
        elif parts[1] != "types.h" and \
                where.get(module_name(parts[1])) != parts[0]:
            faults.append(f"{folder}/{name} includes \"{inc}\": no such "
                          f"header")
        elif folders[parts[0]] > folders.get(folder, -1):
            faults.append(f"{folder}/{name} (layer {folders.get(folder)}) "
                          f"includes {inc} (layer {folders[parts[0]]})")
    return faults


def include_graph(includes):
    """{module: {module: [file]}}: which modules' headers a module's
    files include (a types.h is no module)."""
    edges = {}
    for folder, name, inc in includes:
        mod = module_name(name)
        other = module_name(os.path.basename(inc))
        edges.setdefault(mod, {})
        if name != "types.h" and other not in ("types", mod):
            edges[mod].setdefault(other, []).append(f"{folder}/{name}")
    return edges


def call_graph(defs, undefs):
    """{caller: {callee: [symbols]}} between modules."""
    owner = {s: m for m, syms in defs.items() for s in syms}
    edges = {m: {} for m in set(defs) | set(undefs)}
    for mod, syms in undefs.items():
        for s in sorted(syms):
            callee = owner.get(s)
            if callee and callee != mod:
                edges[mod].setdefault(callee, []).append(s)
    return edges


def circles(edges):
    """The strongly connected sets of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


class Tap:
    """TAP output: a plan, then a point per check with its reasons."""

    def __init__(self, n):
        self.n = 0
        print(f"1..{n}")

    def point(self, text, faults):
        self.n += 1
        print(f"{'not ' if faults else ''}ok {self.n} - {text}")
        for f in faults:
            print(f"# {f}")


def say_circles(found, edges):
    """A line per edge of each circle."""
    return [f"{a} -> {b}: {', '.join(edges[a][b][:3])}"
            for scc in found for a in scc for b in scc if b in edges[a]]


def check_tree(tap, layers, folders, where):
    """Every module where its row says, every folder with a row."""
    tap.point("every folder of src/ is a layer of the design",
              [f"src/{f}/ has no row" for f in sorted(set(where.values()))
               if f not in folders])
    tap.point("every module is in the folder of its layer",
              [f"{m} is in src/{f}/, the design says "
               f"{layers[m][1] + '/' if m in layers else 'nothing'}"
               for m, f in sorted(where.items())
               if m not in layers or layers[m][1] != f] +
              [f"{m} of the design is in no folder"
               for m in sorted(layers) if m not in where])


def check_calls(tap, layers, edges):
    """No circle of calls; each module calls nothing above it."""
    tap.point("no modules call each other round a circle",
              say_circles(circles(edges), edges))
    for m in sorted(edges):
        up = [(c, s) for c, s in sorted(edges[m].items())
              if c in layers and m in layers and layers[c][0] > layers[m][0]]
        tap.point(f"{m} calls nothing above its layer",
                  [f"{m} (layer {layers[m][0]}) -> {c} (layer "
                   f"{layers[c][0]}): {', '.join(s[:3])}" for c, s in up])


def main():
    layers, folders = read_layers(sys.argv[1])
    where, files = read_tree(sys.argv[2])
    defs, undefs = read_symbols(sys.argv[3:])
    edges = call_graph(defs, undefs)
    includes = read_includes(sys.argv[2], files)
    inc_edges = include_graph(includes)
    tap = Tap(len(edges) + 5)

    check_tree(tap, layers, folders, where)
    tap.point("every file includes by folder, none from a folder above",
              include_faults(includes, folders, where))
    tap.point("no modules include each other's headers round a circle",
              say_circles(circles(inc_edges), inc_edges))
    check_calls(tap, layers, edges)


if __name__ == "__main__":
    main()
