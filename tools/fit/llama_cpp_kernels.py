#!/usr/bin/env python3
"""Fits the ggml back ends' kernel parameters (sim/cost/ggml_kernels.h) on the `fit` rows
of the published llama-bench tables (data/llama_cpp/*.csv), and reports the median
|error| of pp and tg on the `held_out` rows, which never enter the fit.

Each back end has its own few physical parameters:
  metal: matvec_memory (share of bandwidth the mat-vec kernels stream weights at),
         kernel_time (fixed time per kernel), gemm_compute (prompt processing's share of the
         FP16 = FP32 peak) and dequant_compute (what quantized prompt processing keeps of it);
  cuda:  matvec_memory, matvec_alu_per_weight (FP32-op equivalents per quantized weight of
         MMVQ), kernel_time and mmq_flops_per_sm_cycle (MMQ prompt processing per SM-cycle).
Every prediction comes from `servesim llama-bench --data` (one request of P prompt and N
generated tokens simulated alone, pp = P / TTFT, tg = 1 / TPOT), with the parameters set
through engine.llama_cpp.kernels.*; the fit minimises the sum of squared log ratios
(predicted / measured) over the back end's fit rows with Nelder-Mead.

Usage:
  python3 tools/fit/llama_cpp_kernels.py SERVESIM [ROOT]           fit, print values and errors
  python3 tools/fit/llama_cpp_kernels.py --record SERVESIM [ROOT]  write data/llama_cpp/fit.json: the
      median |errors| with the committed defaults (run after putting the fitted values in
      sim/cost/ggml_kernels.cpp)
  python3 tools/fit/llama_cpp_kernels.py --check SERVESIM [ROOT]   recompute the held-out errors
      with the committed defaults and compare them with data/llama_cpp/fit.json (a ctest):
      exit 1 when a row is not simulated, a median moved by more than 0.1 point from the
      recorded one, or a held-out median is above 15%.
"""
import csv
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

PARAMS = {
    "metal": [("matvec_memory", 0.9, 0.3, 1.0), ("kernel_time", 18e-6, 0.0, 1e-3),
              ("gemm_compute", 0.75, 0.05, 1.0), ("dequant_compute", 0.9, 0.1, 1.0)],
    "cuda": [("matvec_memory", 0.9, 0.3, 1.0), ("matvec_alu_per_weight", 5.0, 0.0, 100.0),
             ("kernel_time", 3e-6, 0.0, 1e-3), ("mmq_flops_per_sm_cycle", 450.0, 10.0, 1e5)],
}
LIMIT = 0.15  # the target for each held-out median


def rows_of(root):
    out = []
    for f in sorted(glob.glob(os.path.join(root, "data", "llama_cpp", "*.csv"))):
        with open(f, newline="") as fh:
            for r in csv.DictReader(fh):
                r["_file"] = f
                out.append(r)
    return out


def write_csv(rows, path):
    cols = ["source", "backend", "device", "device_as_published", "model", "weights", "flash_attention", "test",
            "tokens_per_s", "build", "split", "notes", "sets"]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") or "" for c in cols})


def set_of(name, v):
    """A --set for one kernel parameter, in its unit (kernel_time is a duration)."""
    value = f"{v * 1e6:.9g} us" if name == "kernel_time" else f"{v:.9g}"
    return f"engine.llama_cpp.kernels.{name}={value}"


def predict(servesim, csv_path, sets, cwd):
    cmd = [servesim, "llama-bench", "--data", csv_path, "--json"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if p.returncode != 0:
        raise SystemExit(f"servesim failed: {' '.join(cmd)}\n{p.stderr}")
    return json.loads(p.stdout)


def nelder_mead(f, x0, step, iters=400, tol=1e-10):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step[j] if j == i else 0.0) for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) < tol:
            break
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i], vals[i]


def medians(result_rows):
    by = {}
    for r in result_rows:
        if "error" not in r:
            continue
        kind = r["test"][:2]
        by.setdefault(f"{r['split']}/{kind}", []).append(abs(r["error"]))
    return {k: statistics.median(v) for k, v in sorted(by.items())}, {k: len(v) for k, v in sorted(by.items())}


def fit(servesim, root):
    rows = rows_of(root)
    tmp = tempfile.mkdtemp()
    fitted = {}
    for backend, params in PARAMS.items():
        fit_rows = [r for r in rows if r["backend"] == backend and r["split"] == "fit"]
        if not fit_rows:
            continue
        path = os.path.join(tmp, f"{backend}_fit.csv")
        write_csv(fit_rows, path)

        def sets_of(x):
            return [set_of(name, v) for (name, _, _, _), v in zip(params, x)]

        def clamp(x):
            return [min(max(v, lo), hi) for v, (_, _, lo, hi) in zip(x, params)]

        def objective(x):
            x = clamp(x)
            out = predict(servesim, path, sets_of(x), root)
            skipped = [r for r in out["rows"] if "error" not in r]
            if skipped:
                raise SystemExit(f"not simulated: {skipped[0]}")
            return sum(math.log(1 + r["error"]) ** 2 for r in out["rows"])

        # Work in units of the start values so that one step size fits every parameter.
        x0 = [p[1] for p in params]
        best, val = nelder_mead(lambda u: objective([a * b for a, b in zip(u, x0)]), [1.0] * len(x0),
                                [0.2] * len(x0))
        x = clamp([a * b for a, b in zip(best, x0)])
        fitted[backend] = dict(zip([p[0] for p in params], x))
        print(f"{backend}: fitted on {len(fit_rows)} rows: " +
              ", ".join(f"{k} = {v:.4g}" for k, v in fitted[backend].items()) + f" (sum sq log err {val:.4f})")
    # Held-out errors with every back end at its fitted values.
    all_path = os.path.join(tmp, "all.csv")
    write_csv(rows, all_path)
    per_backend = {}
    for backend, values in fitted.items():
        sub = [r for r in rows if r["backend"] == backend]
        p = os.path.join(tmp, f"{backend}_all.csv")
        write_csv(sub, p)
        out = predict(servesim, p, [set_of(k, v) for k, v in values.items()], root)
        per_backend[backend] = medians(out["rows"])
        print(f"{backend}: median |error| " + ", ".join(f"{k} {100 * v:.1f}% (n={per_backend[backend][1][k]})"
                                                      for k, v in per_backend[backend][0].items()))


READINGS = {"llama_bench": [], "one_request": ["--one-request"]}


def compare_all(servesim, root, extra):
    files = sorted(glob.glob(os.path.join(root, "data", "llama_cpp", "*.csv")))
    cmd = [servesim, "llama-bench", "--json"] + extra
    for f in files:
        cmd += ["--data", os.path.relpath(f, root)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    return json.loads(p.stdout)


def record(servesim, root):
    doc = {"note": "median |predicted / measured - 1| per reading (llama_bench: pp and tg as llama-bench runs them; "
                   "one_request: one request of P + N tokens), split and test, with the defaults of "
                   "sim/cost/ggml_kernels.cpp; written by tools/fit/llama_cpp_kernels.py --record, checked by "
                   "its --check (ctest llama_cpp_errors_recorded)",
           "median_abs_error": {}, "rows": {}}
    for reading, extra in READINGS.items():
        out = compare_all(servesim, root, extra)
        for k, v in out["median_abs_error"].items():
            doc["median_abs_error"][f"{reading}/{k}"] = round(v["median"], 5)
            doc["rows"][f"{reading}/{k}"] = v["rows"]
    with open(os.path.join(root, "data", "llama_cpp", "fit.json"), "w") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True)
        fh.write("\n")
    for k, v in sorted(doc["median_abs_error"].items()):
        print(f"{k}: {100 * v:.2f}% (n={doc['rows'][k]})")


def check(servesim, root):
    with open(os.path.join(root, "data", "llama_cpp", "fit.json")) as fh:
        recorded = json.load(fh)["median_abs_error"]
    bad = 0
    got = {}
    for reading, extra in READINGS.items():
        out = compare_all(servesim, root, extra)
        for r in out["rows"]:
            if "error" not in r:
                print(f"not simulated ({reading}): {r['file']}:{r['line']} {r['device']} {r['weights']} {r['test']}: "
                      f"{r.get('skipped')}")
                bad += 1
        got.update({f"{reading}/{k}": v["median"] for k, v in out["median_abs_error"].items()})
    for k, v in sorted(got.items()):
        want = recorded.get(k)
        print(f"{k}: {100 * v:.2f}% (recorded {100 * want:.2f}%)" if want is not None else f"{k}: {100 * v:.2f}% (not recorded)")
        if want is None or abs(v - want) > 0.001:
            bad += 1
        if "/held_out/" in k and v > LIMIT:
            print(f"  above the {100 * LIMIT:.0f}% target")
            bad += 1
    for k in recorded:
        if k not in got:
            print(f"{k}: recorded but not computed")
            bad += 1
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if args and args[0] == "--record":
        record(os.path.abspath(args[1]), os.path.abspath(args[2] if len(args) > 2 else "."))
        return
    if args and args[0] == "--check":
        servesim, root = os.path.abspath(args[1]), (args[2] if len(args) > 2 else ".")
        sys.exit(check(servesim, os.path.abspath(root)))
    if not args:
        print(__doc__)
        sys.exit(2)
    servesim, root = os.path.abspath(args[0]), (args[1] if len(args) > 1 else ".")
    fit(servesim, os.path.abspath(root))


if __name__ == "__main__":
    main()
