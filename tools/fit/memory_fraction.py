#!/usr/bin/env python3
"""Achieved weight-streaming bandwidth per GPU, from the Vidur operator tables.

At M <= 8 tokens a GEMM is bound by reading its weights once from memory: its time is
    t = weight_bytes / (f * datasheet_bandwidth) + c
with f the achieved fraction of the datasheet bandwidth (servesim's `gemm_memory`) and c
the kernel's fixed floor. This script fits (f, c) by least squares per GPU on the four
GEMMs (QKV, output, gate+up, down) of every model and TP degree of
data/operator_timings/<gpu>/, on half of the models (alternate, sorted by name), and
reports the median |error| of the other half (held out). It then refits on all models,
which gives the value the GPU catalog carries (hardware/*.yaml `efficiency.gemm_memory`).

Usage: python3 tools/fit/memory_fraction.py [DATA_DIR]   (default data/operator_timings)
       python3 tools/fit/memory_fraction.py --check ROOT   (exit 1 unless hardware/*.yaml carry
       these values, to 3 decimals: a ctest)
Nothing here reads the serving runs (data/serving): they stay held out.
"""
import csv
import glob
import os
import statistics
import sys

# Datasheet bandwidths (bytes/s) of the GPUs the tables were measured on, the same figures
# as hardware/a100-sxm4-80gb.yaml, hardware/h100-sxm.yaml, data/operator_timings/gpus/a40.yaml.
DATASHEET_BW = {"a100": 2.039e12, "h100": 3.35e12, "a40": 696e9}
MAX_TOKENS = 8  # decode-sized M: far below the ridge point (FLOP/B = M) of every GPU here
COLUMNS = {"qkv": "attn_pre_proj", "o": "attn_post_proj", "up": "mlp_up_proj", "down": "mlp_down_proj"}


def rows(path):
    """(weight_bytes, seconds) of each memory-bound GEMM in one table (fp16 weights)."""
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            m = int(r["num_tokens"])
            if m > MAX_TOKENS:
                continue
            k = int(r["num_tensor_parallel_workers"])
            h, nh, nkv = int(r["n_embd"]), int(r["n_head"]), int(r["n_kv_head"])
            ffn = int(r["n_expanded_embd"])
            hd = h // nh
            shapes = {"qkv": (h, (nh + 2 * nkv) * hd // k), "o": (h // k, h),
                      "up": (h, 2 * ffn // k), "down": (ffn // k, h)}
            for op, (K, N) in shapes.items():
                out.append((2.0 * K * N, float(r[f"time_stats.{COLUMNS[op]}.median"]) * 1e-3))
    return out


def fit(points, bw):
    """Least-squares t = b * s + c; returns (f = 1 / (s * bw), c)."""
    n = len(points)
    mx = sum(b for b, _ in points) / n
    my = sum(t for _, t in points) / n
    s = sum((b - mx) * (t - my) for b, t in points) / sum((b - mx) ** 2 for b, _ in points)
    return 1.0 / (s * bw), my - s * mx


def median_abs_err(points, f, c, bw):
    return statistics.median(abs((b / (f * bw) + c) / t - 1.0) * 100 for b, t in points)


# Catalog GPU files that carry each table's value (the carried ones say so in their comment).
CATALOG = {"a100": ["a100-sxm4-80gb", "a100-sxm4-40gb"], "h100": ["h100-sxm", "h200-sxm", "gh200"], "a40": ["l40s"]}


def catalog_value(root, gpu):
    import re
    with open(os.path.join(root, "hardware", gpu + ".yaml")) as f:
        m = re.search(r"^efficiency:\n(?:  .*\n)*?  gemm_memory: ([0-9.]+)", f.read(), re.M)
    return float(m.group(1)) if m else None


def check(root):
    bad = 0
    for table, gpus in CATALOG.items():
        files = sorted(glob.glob(os.path.join(root, "data", "operator_timings", table, "*.csv")))
        f, _ = fit([p for fp in files for p in rows(fp)], DATASHEET_BW[table])
        for gpu in gpus:
            v = catalog_value(root, gpu)
            ok = v is not None and abs(v - round(f, 3)) < 5e-4
            bad += not ok
            print(f"{gpu}: catalog gemm_memory {v}, {table} tables give {f:.3f}: {'ok' if ok else 'MISMATCH'}")
    return 1 if bad else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    data = sys.argv[1] if len(sys.argv) > 1 else "data/operator_timings"
    print(f"{'gpu':5} {'fit models':>10} {'f (fit half)':>12} {'c us':>6} {'held-out |err| %':>17}"
          f" {'f (all)':>8} {'c us':>6} {'n rows':>7}")
    for gpu, bw in DATASHEET_BW.items():
        files = sorted(glob.glob(os.path.join(data, gpu, "*.csv")))
        fit_pts = [p for i, fp in enumerate(files) if i % 2 == 0 for p in rows(fp)]
        test_pts = [p for i, fp in enumerate(files) if i % 2 == 1 for p in rows(fp)]
        f, c = fit(fit_pts, bw)
        err = median_abs_err(test_pts, f, c, bw)
        fa, ca = fit(fit_pts + test_pts, bw)
        print(f"{gpu:5} {len(files[::2]):>10} {f:12.3f} {c * 1e6:6.2f} {err:17.1f} {fa:8.3f} {ca * 1e6:6.2f}"
              f" {len(fit_pts) + len(test_pts):7}")


if __name__ == "__main__":
    main()
