#!/usr/bin/env python3
"""Prints the include graph between the folders of sim/ and fails on a cycle.

A file sim/A/x.cpp that writes `#include "B/y.h"` (B another folder of sim/)
makes an edge A -> B. The folders should form layers (core and util at the
bottom, cli at the top); a cycle means two folders cannot be understood, tested
or reused apart. Every strongly connected component with more than one folder
is reported with one example include per edge inside it.

The bottom folders also keep to what they may include (BOTTOM below): util is
used by everything and includes no other folder; core (simulated time, the
event queue, random streams) includes only util.

usage: tools/check/folder-cycles.py [SIM_DIR]   (exit 1 on a cycle or a BOTTOM rule broken)
"""
import os
import re
import sys

# Folder -> the only folders it may include.
BOTTOM = {"util": set(), "core": {"util"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"')


def folder_graph(sim_dir):
    """{folder: {folder it includes: 'file:line: #include "..."' (first seen)}}."""
    folders = sorted(d for d in os.listdir(sim_dir) if os.path.isdir(os.path.join(sim_dir, d)))
    graph = {f: {} for f in folders}
    for folder in folders:
        for root, _, files in os.walk(os.path.join(sim_dir, folder)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder or m.group(1) not in graph:
                            continue
                        where = "{}:{}: {}".format(os.path.relpath(path, os.path.dirname(sim_dir)), number,
                                                   line.strip())
                        graph[folder].setdefault(m.group(1), where)
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm: the components with more than one folder, each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def one_cycle(graph, comp):
    """A shortest cycle through the component's first folder, as a list a, ..., a."""
    start, inside = comp[0], set(comp)
    previous, frontier = {start: None}, [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return path[::-1] + [start]  # walked back to start, whose previous is None
                if w in inside and w not in previous:
                    previous[w] = v
                    following.append(w)
        frontier = following
    return [start]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sim_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "sim")
    sim_dir = os.path.normpath(sim_dir)
    graph = folder_graph(sim_dir)
    print("folder include graph of {}:".format(sim_dir))
    for folder in sorted(graph):
        print("  {} -> {}".format(folder, ", ".join(sorted(graph[folder])) or "(nothing)"))
    failed = False
    for folder, allowed in sorted(BOTTOM.items()):
        for b in sorted(set(graph.get(folder, {})) - allowed):
            print("\n{} may include only {}, but includes {}: {}".format(
                folder, ", ".join(sorted(allowed)) or "no other folder", b, graph[folder][b]))
            failed = True
    cycles = strongly_connected(graph)
    if not cycles:
        print("no cycle")
        return 1 if failed else 0
    for comp in cycles:
        cycle = one_cycle(graph, comp)
        print("\ncycle among {}: {}".format(", ".join(comp), " -> ".join(cycle)))
        print("  every edge inside it, with one include each:")
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    print("  {} -> {}   {}".format(a, b, graph[a][b]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
