#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What may call what, checked on the objects gsotun is linked from.

Every module (a .c of src/, its object in the build) is in one layer of
doc/design.md's table; a module calls only modules of its own layer or
below, and no two modules call each other, directly or round a circle.
A call is a reference to a global symbol another module defines, as nm
lists them: one through a function pointer (queue_ops, a lane's done)
is not a call, which is how events go up.

Headers are held to the same rule: no module's .c includes the header
of a module above it (a struct of a higher layer is not its business).

usage: layers.py DESIGN.md SRCDIR OBJECT... (an archive's members count
each). Prints TAP.
"""
import os
import re
import subprocess
import sys


def read_layers(path):
    """{module: layer} from the rows "| N | room | a, b, c |"."""
    layers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|", line)
            if not m:
                continue
            for mod in m.group(2).replace("`", "").split(","):
                if mod.strip():
                    layers[mod.strip()] = int(m.group(1))
    return layers


def module_of(name):
    """src/gsotun-tx.o and libgsotun.a's tx.o are both tx."""
    base = os.path.basename(name)
    base = re.sub(r"\.o$", "", base)
    return re.sub(r"^gsotun-", "", base)


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


def upward_includes(srcdir, layers):
    """[(module, header module)] of includes that go up a layer."""
    found = []
    for name in sorted(os.listdir(srcdir)):
        if not name.endswith(".c"):
            continue
        mod = name[:-2]
        with open(os.path.join(srcdir, name), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'^#include "([a-z0-9_]+)\.h"', line)
                inc = m and m.group(1)
                if inc and mod in layers and inc in layers and \
                        layers[inc] > layers[mod]:
                    found.append((mod, inc))
    return found


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


def main():
    layers = read_layers(sys.argv[1])
    defs, undefs = read_symbols(sys.argv[3:])
    edges = call_graph(defs, undefs)
    mods = sorted(edges)
    n = 0
    print(f"1..{len(mods) + 3}")

    n += 1
    missing = [m for m in mods if m not in layers]
    print(f"{'not ' if missing else ''}ok {n} - every module is in a "
          f"layer of the design")
    for m in missing:
        print(f"# {m} is in no layer of {sys.argv[1]}")

    n += 1
    found = circles(edges)
    print(f"{'not ' if found else ''}ok {n} - no modules call each other "
          f"round a circle")
    for scc in found:
        for a in scc:
            for b in scc:
                if b in edges[a]:
                    print(f"# {a} -> {b}: {', '.join(edges[a][b][:3])}")

    n += 1
    ups = upward_includes(sys.argv[2], layers)
    print(f"{'not ' if ups else ''}ok {n} - no module includes the header "
          f"of one above it")
    for m, inc in ups:
        print(f"# {m}.c (layer {layers[m]}) includes {inc}.h (layer "
              f"{layers[inc]})")

    for m in mods:
        n += 1
        up = [(c, s) for c, s in sorted(edges[m].items())
              if c in layers and m in layers and layers[c] > layers[m]]
        print(f"{'not ' if up else ''}ok {n} - {m} calls nothing above "
              f"its layer")
        for c, s in up:
            print(f"# {m} (layer {layers[m]}) -> {c} (layer {layers[c]}): "
                  f"{', '.join(s[:3])}")


if __name__ == "__main__":
    main()
