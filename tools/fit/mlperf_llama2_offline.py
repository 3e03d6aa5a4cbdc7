#!/usr/bin/env python3
"""MLPerf Inference v5.1 Llama-2-70B (99%) Offline, per accelerator: servesim against the
published results of MI300X, MI325X, H200 and H100 systems
and of B200 / GB200 (data/mi300x_vs_nvidia/mlperf_v5.1_llama2_70b_99_offline.csv;
docs/validation-report.md, "MI300X against Hopper").

Nothing is fitted on these rows. The MI300X, MI325X and Hopper submissions ran FP8 weights,
activations and KV cache, the Blackwell ones FP4 weights (the `weights` column, from each
system's measurements JSON; servesim runs them as NVFP4 W4A4 with an FP8 KV cache); AMD's
with vLLM (TP 1, one engine per GPU), NVIDIA's with TensorRT-LLM. servesim
runs one engine per accelerator (H100: TP 2, 70B FP8 does not leave an 80 GB H100 room for
a KV cache) with N requests queued at once, each of the run's own mean output length
(tokens/s / samples/s). The OpenOrca prompts' mean length is not in the results: it is
an assumption (--input, default 300 tokens), and --sweep-input shows what it moves.

Usage: python3 tools/fit/mlperf_llama2_offline.py [--servesim BIN] [--input N]
       [--sweep-input] [--set KEY=VALUE ...]   (--set applies to the AMD rows)
"""
import argparse
import csv
import os
import statistics
import sys

from servesim_run import offline_workload, run_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data", "mi300x_vs_nvidia", "mlperf_v5.1_llama2_70b_99_offline.csv")

# accelerator name in the submission -> (servesim GPU, TP of one engine, framework, family)
GPUS = [
    ("GB200", "gb200", 1, "trtllm", "blackwell"),  # before B200: "GB200" contains "B200"
    ("B200-SXM", "b200", 1, "trtllm", "blackwell"),
    ("MI300X", "mi300x", 1, "vllm-v1", "cdna3"),
    ("MI325X", "mi325x", 1, "vllm-v1", "cdna3"),
    ("H200-SXM", "h200-sxm", 1, "trtllm", "hopper"),
    ("H100-SXM", "h100-sxm", 2, "trtllm", "hopper"),
]


def gpu_of(accelerator):
    if "(x" in accelerator:  # mixed MI300X + MI325X clusters: no single GPU to compare
        return None
    for key, gpu, tp, fw, fam in GPUS:
        if key.lower() in accelerator.lower().replace(" ", "-"):
            return gpu, tp, fw, fam
    return None  # H200 NVL (a 600 W PCIe card) has no catalog file


def scenario(gpu, tp, framework, isl, osl, n, weights):
    # fp8 submissions: W8A8 with an FP8 KV cache; fp4 (NVIDIA's Blackwell ones): NVFP4 W4A4, FP8 KV.
    return (
        f"hardware: {{gpu: {gpu}}}\n"
        f"model: {{name: llama-2-70b, weights: {weights}, activations: {weights}, kv_cache: fp8}}\n"
        f"parallelism: {{tp: {tp}}}\n"
        f"engine: {{framework: {framework}, max_num_seqs: 1792, max_num_batched_tokens: 40960, "
        "max_model_len: 2048, gpu_memory_utilization: 0.95}\n"
        + offline_workload(n, isl, osl)
    )


def simulate(binary, text, sets):
    d, err = run_json(binary, text, sets)
    if d is None:
        sys.exit(f"servesim refused a replay: {err}")
    return d["throughput"]["output_tokens_per_s_per_gpu"]


def run(binary, isl, sets, requests, quiet=False):
    rows = []
    cache = {}
    with open(DATA, newline="") as f:
        for r in csv.DictReader(f):
            g = gpu_of(r["accelerator"])
            if g is None or r["result"] != "VALID":
                continue
            gpu, tp, fw, fam = g
            osl = round(float(r["tokens_per_s"]) / float(r["samples_per_s"]))
            weights = r["weights"]
            key = (gpu, osl, weights)
            if key not in cache:
                cache[key] = simulate(binary, scenario(gpu, tp, fw, isl, osl, requests, weights),
                                      sets if fam == "cdna3" else {})
            measured = float(r["tokens_per_s"]) / int(r["accelerators"])
            rows.append(dict(system=f"{r['submitter']}/{r['system']}", gpu=gpu, fam=fam, osl=osl,
                             measured=measured, predicted=cache[key]))
    if not quiet:
        print(f"{'system':<58} {'gpu':<9} {'OSL':>4} {'measured/GPU':>12} {'servesim':>9} {'error':>8}")
        for r in rows:
            print(f"{r['system'][:58]:<58} {r['gpu']:<9} {r['osl']:>4} {r['measured']:12.0f} {r['predicted']:9.0f} "
                  f"{100 * (r['predicted'] / r['measured'] - 1):+7.1f}%")
    return rows


def summarise(rows, label=""):
    med = {}
    for gpu in dict.fromkeys(r["gpu"] for r in rows):
        rs = [r for r in rows if r["gpu"] == gpu]
        m = statistics.median(r["measured"] for r in rs)
        p = statistics.median(r["predicted"] for r in rs)
        med[gpu] = (m, p)
        errs = [r["predicted"] / r["measured"] - 1 for r in rs]
        print(f"  {label}{gpu:<9} n={len(rs):2d} median measured/GPU {m:7.0f} servesim {p:7.0f}  "
              f"median |error| {100 * statistics.median(abs(e) for e in errs):5.1f}% (median {100 * statistics.median(errs):+.1f}%)")
    if "h200-sxm" in med:
        hm, hp = med["h200-sxm"]
        for gpu in ("mi300x", "mi325x", "h100-sxm", "b200", "gb200"):
            if gpu in med:
                m, p = med[gpu]
                print(f"  {label}{gpu} / h200-sxm per GPU: measured {m / hm:.3f}, servesim {p / hp:.3f} "
                      f"({100 * ((p / hp) / (m / hm) - 1):+.1f}%)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--servesim", default=os.path.join(ROOT, "build", "servesim"))
    ap.add_argument("--input", type=int, default=300, help="mean prompt tokens (an assumption)")
    ap.add_argument("--requests", type=int, default=6000, help="requests queued per simulated engine")
    ap.add_argument("--sweep-input", action="store_true", help="also summarise at 150 and 600 prompt tokens")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for the AMD rows")
    a = ap.parse_args()
    sets = dict(s.split("=", 1) for s in a.set)
    rows = run(a.servesim, a.input, sets, a.requests)
    print(f"\nprompt {a.input} tokens (assumed):")
    summarise(rows)
    if a.sweep_input:
        for isl in (150, 600):
            print(f"\nprompt {isl} tokens (assumed):")
            summarise(run(a.servesim, isl, sets, a.requests, quiet=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
