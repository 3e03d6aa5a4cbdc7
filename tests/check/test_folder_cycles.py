#!/usr/bin/env python3
"""Checks tools/check/folder-cycles.py on small made-up sim/ trees.

usage: test_folder_cycles.py PATH/TO/folder-cycles.py   (exit 0 when every case passes)
"""
import os
import subprocess
import sys
import tempfile


def tree(files):
    """A temporary sim/ folder holding {relative path: text}."""
    root = tempfile.mkdtemp()
    sim = os.path.join(root, "sim")
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(sim, path)), exist_ok=True)
        with open(os.path.join(sim, path), "w") as f:
            f.write(text)
    return sim


def run(script, sim):
    p = subprocess.run([sys.executable, script, sim], capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    script = sys.argv[1]
    failures = []

    def expect(name, cond, out):
        if not cond:
            failures.append("{}:\n{}".format(name, out))

    # Layers a -> b -> util: no cycle. System and same-folder includes are not edges.
    rc, out = run(script, tree({"a/x.cpp": '#include <vector>\n#include "a/y.h"\n#include "b/y.h"\n',
                                "b/y.h": '#include "util/z.h"\n', "util/z.h": ""}))
    expect("layers", rc == 0 and "a -> b\n" in out and "no cycle" in out, out)

    # a -> b -> c -> a: one cycle, each edge shown with the include that makes it.
    rc, out = run(script, tree({"a/x.h": '#include "b/x.h"\n', "b/x.cpp": '#include "c/x.h"\n',
                                "c/x.h": '#include "d/x.h"\n#include "a/x.h"\n', "d/x.h": ""}))
    expect("cycle", rc == 1 and "cycle among a, b, c: a -> b -> c -> a" in out and
           'c -> a   sim/c/x.h:2: #include "a/x.h"' in out and "c -> d" not in out.split("cycle among")[1], out)

    # util includes another folder (no cycle): still a failure.
    rc, out = run(script, tree({"util/x.h": '#include "core/t.h"\n', "core/t.h": ""}))
    expect("util at the bottom", rc == 1 and "util may include only no other folder, but includes core" in out, out)

    for f in failures:
        print("FAILED", f)
    print("{} of 3 cases passed".format(3 - len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
