#!/usr/bin/env python3
"""The two engine-level parameters of the wide-EP step (sim/cost/moe_engine_fit.h),
fitted to the `fit` rows of data/moe_at_scale/deployments.csv.

    moe.all_to_all_slowdown   an all-to-all in a running engine over its kernel benchmark
    moe.overlap_efficiency    the share of min(compute, communication) two-batch overlap hides

Everything else in the predictions is fixed beforehand: the GPU catalog, the all-to-all
kernels' fit to their own benchmarks (tools/fit/all_to_all.py) and the routing skew's fit
to TensorRT-LLM's statistics (tools/fit/routing_skew.py). The search is a grid (slowdown
1.00-3.00 by 0.05, efficiency 0.00-1.00 by 0.05) minimising the sum of squared log errors
over the fit rows, each evaluated by `servesim validate-moe --json --set ...`; the held-out
rows' median |error| is printed, never used.

Usage: python3 tools/fit/moe_engine.py [SERVESIM]        (default build/servesim; the grid reads only the fit rows)
       python3 tools/fit/moe_engine.py --check SERVESIM ROOT
           exit 1 unless sim/cost/moe_engine_fit.cpp carries a grid point no neighbour
           (one step in either parameter) beats on the fit rows: a ctest
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys


def fit_rows_file(root):
    """The header and the `fit` rows of deployments.csv in a temporary file: the grid
    evaluates only these (the held-out rows, serving simulations among them, are
    predicted once, at the chosen point)."""
    import csv
    import tempfile
    src = os.path.join(root, "data/moe_at_scale/deployments.csv")
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    split = rows[0].index("split")
    tmp = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, newline="")
    w = csv.writer(tmp)
    w.writerow(rows[0])
    for r in rows[1:]:
        if r and r[split] == "fit":
            w.writerow(r)
    tmp.close()
    return tmp.name


def evaluate(binary, root, slowdown, efficiency, file=None):
    cmd = [binary, "validate-moe", "--json", "--set", f"moe.all_to_all_slowdown={slowdown}",
           "--set", f"moe.overlap_efficiency={efficiency}"]
    if file:
        cmd += ["--file", file]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True).stdout
    rows = [r for r in json.loads(out)["rows"] if "predicted" in r]
    fit = [r for r in rows if r["split"] == "fit"]
    held = [r for r in rows if r["split"] == "heldout"]
    sse = sum(math.log(r["predicted"] / r["measured"]) ** 2 for r in fit)
    med = lambda rs: statistics.median(abs(r["error_pct"]) for r in rs) if rs else float("nan")
    return sse, med(fit), med(held)


def carried(root):
    text = open(os.path.join(root, "sim/cost/moe_engine_fit.cpp")).read()
    s = float(re.search(r"fitted_all_to_all_slowdown\(\) \{ return ([\d.]+); \}", text).group(1))
    e = float(re.search(r"fitted_overlap_efficiency\(\) \{ return ([\d.]+); \}", text).group(1))
    return s, e


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        binary, root = os.path.abspath(sys.argv[2]), sys.argv[3]
        s, e = carried(root)
        fit_file = fit_rows_file(root)
        base, _, _ = evaluate(binary, root, s, e, fit_file)
        _, fit_med, held_med = evaluate(binary, root, s, e)
        print(f"carried: slowdown {s}, overlap efficiency {e}: fit median {fit_med:.1f}%, held out {held_med:.1f}%")
        worse = []
        for ds, de in ((0.05, 0), (-0.05, 0), (0, 0.05), (0, -0.05)):
            s2, e2 = round(s + ds, 2), round(e + de, 2)
            if not (1.0 <= s2 <= 3.0 and 0.0 <= e2 <= 1.0):
                continue
            sse, _, _ = evaluate(binary, root, s2, e2, fit_file)
            if sse < base - 1e-12:
                worse.append(f"({s2}, {e2}) fits better: {sse:.5f} < {base:.5f}")
        for w in worse:
            print(w)
        sys.exit(1 if worse else 0)
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/servesim")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    fit_file = fit_rows_file(root)
    best = None
    for i in range(41):
        s = round(1.0 + 0.05 * i, 2)
        for j in range(21):
            e = round(0.05 * j, 2)
            sse, fit_med, _ = evaluate(binary, root, s, e, fit_file)
            if best is None or sse < best[0]:
                best = (sse, s, e, fit_med)
    sse, s, e, fit_med = best
    _, _, held_med = evaluate(binary, root, s, e)
    print(f"all_to_all_slowdown {s}, overlap_efficiency {e}: fit rows median |error| {fit_med:.1f}% "
          f"(sum of squared log errors {sse:.4f}); held-out median |error| {held_med:.1f}%")


if __name__ == "__main__":
    main()
