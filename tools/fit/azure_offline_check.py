#!/usr/bin/env python3
"""Replays Azure's AI-benchmarking-guide end-to-end inference tables (ND MI300X v5 with vLLM,
ND H200 v5 with TensorRT-LLM) through servesim (data/mi300x_vs_nvidia/azure_e2e_offline.csv,
data/mi300x_vs_nvidia/PROVENANCE.md, docs/validation.md "MI300X and MI325X").

Nothing here is fitted: every row is held out. Each row is one offline call: 1000 prompts of
fixed length queued at once, output tokens / elapsed over the call (vLLM's
benchmark_throughput.py "output tokens/s" on the MI300X; trtllm-bench's "Token Throughput
(tokens/sec)", output tokens over the total latency, on the H200).

Besides each row's error the script pairs every MI300X row with the H200 row of the same model
and lengths and compares the ratio MI300X / H200, measured against servesim's. The two sides ran
different engines (vLLM against TensorRT-LLM), so the ratio keeps what servesim gets wrong about
either engine as well as about the GPU.

Usage: python3 tools/fit/azure_offline_check.py [--servesim BIN] [--set KEY=VALUE ...]
       [--set-nvidia KEY=VALUE ...] [--csv OUT]
       (--set applies to the MI300X rows only, e.g. the old efficiencies; --set-nvidia to the H200 rows)
"""
import argparse
import csv
import math
import os
import statistics
import sys

from servesim_run import offline_workload, print_error_summary, run_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data", "mi300x_vs_nvidia", "azure_e2e_offline.csv")

# How each side ran (data/mi300x_vs_nvidia/PROVENANCE.md, "azure_e2e_offline.csv").
# MI300X: Benchmarks/AMD/LLMBenchmark.py at 04e2ae7 with config.json's max_num_seqs 3000:
# vLLM V0 (ROCm build of Nov 2024) with --num-scheduler-steps 10 (multi-step scheduling:
# engine.num_scheduler_steps, the preset's schedule + prepare-inputs time once per 10 decode
# steps; before that key existed every step paid it, "--set engine.num_scheduler_steps=1"), HIP graphs (no
# --enforce-eager), FP8 weights and activations, --kv-cache-dtype fp8, whole prompts
# (--enable-chunked-prefill false), a 131072-token step budget, --max-model-len 8192,
# --gpu-memory-utilization 0.90.
MI300X = dict(gpu="mi300x", framework="vllm-v0", kv="fp8", max_num_seqs=3000, max_num_batched_tokens=131072,
              max_model_len=8192, chunked_prefill="false", gpu_memory_utilization=0.90, num_scheduler_steps=10)
# H200: Benchmarks/NVIDIA/LLMBenchmark.py at 26d18e9 (TensorRT-LLM 0.15.0): one engine per model
# built by `trtllm-bench build --quantization FP8 --tp_size TP --dataset <the 2048/2048 set>`, which
# forces an FP8 KV cache and sets max_seq_len 4096; max_batch_size and max_num_tokens come from
# trtllm-bench's build heuristic (tensorrt_llm/bench/build/tuning.py) for ISL/OSL 2048/2048 on
# 143,771 MiB GPUs: computed here, not read from a log (an assumption; PROVENANCE.md).
# KV memory: 0.90 of the memory free after the engine loads (trtllm-bench throughput's default in
# the later versions read; assumed for 0.15.0), given to servesim as gpu_memory_utilization 0.90
# (of all memory; a few GB less KV). Scheduler: guaranteed no evict (the trtllm preset's).
H200_ENGINE = {  # model: (max_batch_size, max_num_tokens) from the build heuristic
    "llama-3.1-8b": (512, 2048),
    "llama-3.1-70b": (1792, 3328),
    "llama-3.1-405b": (768, 2048),
}
H200 = dict(gpu="h200-sxm", framework="trtllm", kv="fp8", max_model_len=4096, chunked_prefill="true",
            gpu_memory_utilization=0.90)


def scenario(s, model, tp, n, isl, osl, max_num_seqs, max_num_batched_tokens):
    return (
        f"hardware: {{gpu: {s['gpu']}}}\n"
        f"model: {{name: {model}, weights: fp8, activations: fp8, kv_cache: {s['kv']}}}\n"
        f"parallelism: {{tp: {tp}}}\n"
        f"engine: {{framework: {s['framework']}, max_num_seqs: {max_num_seqs}, "
        f"max_num_batched_tokens: {max_num_batched_tokens}, max_model_len: {s['max_model_len']}, "
        f"chunked_prefill: {s['chunked_prefill']}, gpu_memory_utilization: {s['gpu_memory_utilization']}"
        + (f", num_scheduler_steps: {s['num_scheduler_steps']}" if "num_scheduler_steps" in s else "")
        + "}\n"
        + offline_workload(n, isl, osl)
    )


def rows():
    with open(DATA, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            model, tp = r["model"], int(r["tp"])
            if r["gpu"] == "MI300X":
                s = MI300X
                seqs, tokens = s["max_num_seqs"], s["max_num_batched_tokens"]
            else:
                s = H200
                seqs, tokens = H200_ENGINE[model]
            yield dict(gpu=r["gpu"], setup=s, model=model, tp=tp, n=int(r["num_requests"]),
                       isl=int(r["input_len"]), osl=int(r["output_len"]), seqs=seqs, tokens=tokens,
                       measured=float(r["tokens_per_s"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--servesim", default=os.path.join(ROOT, "build", "servesim"))
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for the MI300X rows")
    ap.add_argument("--set-nvidia", action="append", default=[], help="KEY=VALUE for the H200 rows")
    ap.add_argument("--csv", help="write every row here")
    a = ap.parse_args()
    amd_sets = dict(s.split("=", 1) for s in a.set)
    nv_sets = dict(s.split("=", 1) for s in a.set_nvidia)

    done = []
    for r in rows():
        text = scenario(r["setup"], r["model"], r["tp"], r["n"], r["isl"], r["osl"], r["seqs"], r["tokens"])
        d, err = run_json(a.servesim, text, amd_sets if r["gpu"] == "MI300X" else nv_sets)
        if d is None:
            r["predicted"], r["note"] = None, f"refused: {err}"
        else:
            r["predicted"] = d["throughput"]["output_tokens_per_s"]
            notes = []
            if d["requests"]["failed"]:
                notes.append(f"{d['requests']['failed']} failed")
            if d["requests"]["preemptions"]:
                notes.append(f"{d['requests']['preemptions']} preemptions")
            notes.append(f"batch max {d['utilization']['batch_size_max']}")
            r["note"] = ", ".join(notes)
        r["error"] = (r["predicted"] / r["measured"] - 1.0) if r["predicted"] else None
        done.append(r)

    print("output tokens/s, 1000 prompts at once; measured: Azure AI-benchmarking-guide (MI300X vLLM, H200 TensorRT-LLM)")
    print(f"{'gpu':<7} {'model':<15} {'tp':>2} {'isl/osl':>11} {'measured':>9} {'servesim':>9} {'error':>8}  note")
    for r in done:
        pred = f"{r['predicted']:9.0f}" if r["predicted"] else "        -"
        err = f"{100 * r['error']:+7.1f}%" if r["error"] is not None else "       -"
        print(f"{r['gpu']:<7} {r['model']:<15} {r['tp']:>2} {r['isl']:>5}/{r['osl']:<5} {r['measured']:9.0f} "
              f"{pred} {err}  {r['note']}")

    def summary(label, errs):
        print_error_summary(label, errs, 30)

    print("\nper GPU:")
    for gpu in ("MI300X", "H200"):
        summary(gpu, [r["error"] for r in done if r["gpu"] == gpu])
    print("per GPU and model:")
    for gpu in ("MI300X", "H200"):
        for model in dict.fromkeys(r["model"] for r in done):
            summary(f"{gpu} {model}", [r["error"] for r in done if r["gpu"] == gpu and r["model"] == model])

    nv = {(r["model"], r["isl"], r["osl"]): r for r in done if r["gpu"] == "H200" and r["predicted"]}
    ratio_errs = {}
    print("\npaired MI300X / H200 output tokens/s (same model, TP and lengths; vLLM on MI300X, TensorRT-LLM on H200):")
    for r in done:
        if r["gpu"] != "MI300X" or not r["predicted"]:
            continue
        o = nv.get((r["model"], r["isl"], r["osl"]))
        if o is None:
            continue
        m = r["measured"] / o["measured"]
        p = r["predicted"] / o["predicted"]
        ratio_errs.setdefault(r["model"], []).append(math.log(p / m))
        print(f"  {r['model']:<15} {r['isl']:>5}/{r['osl']:<5} measured {m:5.3f}  servesim {p:5.3f}  "
              f"({100 * (p / m - 1):+.1f}%)")

    def ratio_summary(label, errs):
        med = statistics.median(abs(math.expm1(e)) for e in errs)
        bias = math.expm1(statistics.median(errs))
        print(f"  {label:<30} n={len(errs):3d} median |ratio error| {100 * med:5.1f}% (median {100 * bias:+.1f}%)")

    for model, errs in ratio_errs.items():
        ratio_summary(model, errs)
    if ratio_errs:
        ratio_summary("all pairs", [e for errs in ratio_errs.values() for e in errs])

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["gpu", "model", "tp", "isl", "osl", "n", "max_num_seqs", "max_num_batched_tokens",
                        "measured_output_tok_s", "servesim_output_tok_s", "error", "note"])
            for r in done:
                w.writerow([r["gpu"], r["model"], r["tp"], r["isl"], r["osl"], r["n"], r["seqs"], r["tokens"],
                            r["measured"], r["predicted"] or "", r["error"] if r["error"] is not None else "",
                            r["note"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
