#!/usr/bin/env python3
"""Extracts the ML.ENERGY Benchmark v3 LLM runs that servesim can replay into one CSV.

Source: github ml-energy/leaderboard, public/data/models/<org>__<model>__lm-arena-chat.json
(commit given with --commit; the leaderboard's data of the ML.ENERGY Benchmark v3, vLLM 0.11.1,
H100 and B200, "Where Do the Joules Go?", Chung et al., arXiv:2601.22076).

Each run: one model on one GPU count, vLLM's max_num_seqs set to a batch cap, requests fed
until the batch stays full; ITL and throughput measured over the steady state (batch >= 0.85 x
cap), board power by NVML (Zeus), summed over the run's GPUs. Only models in servesim's catalog are kept (dense and
MoE); the output-length histogram is reduced to its mean, standard deviation and maximum.

  python3 tools/data/mlenergy_v3_extract.py --repo /path/to/ml-energy-leaderboard \
      --commit 0cd52dab897c5d91a45f4d413038f3b8b4251b0f > data/serving/mlenergy_v3_lm_arena.csv
"""
import argparse
import csv
import json
import math
import subprocess
import sys

# leaderboard model id -> (servesim catalog model, weights dtype)
MODELS = {
    "meta-llama/Llama-3.1-8B-Instruct": ("llama-3.1-8b", "bf16"),
    "meta-llama/Llama-3.1-70B-Instruct": ("llama-3.1-70b", "bf16"),
    "meta-llama/Llama-3.3-70B-Instruct": ("llama-3.1-70b", "bf16"),  # same shapes as 3.1 70B
    "meta-llama/Llama-3.1-405B-Instruct": ("llama-3.1-405b", "bf16"),
    "meta-llama/Llama-3.1-405B-Instruct-FP8": ("llama-3.1-405b", "fp8"),
    "Qwen/Qwen3-14B": ("qwen3-14b", "bf16"),
    "google/gemma-3-12b-it": ("gemma-3-12b", "bf16"),
    "google/gemma-3-27b-it": ("gemma-3-27b", "bf16"),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": ("llama-4-scout-17b-16e", "bf16"),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8": ("llama-4-maverick-17b-128e", "fp8"),
}
GPUS = {"H100": "h100-sxm", "B200": "b200"}


def histogram_moments(h):
    bins, counts = h["bins"], h["counts"]
    n = sum(counts)
    mids = [(bins[i] + bins[i + 1]) / 2 for i in range(len(counts))]
    mean = sum(m * c for m, c in zip(mids, counts)) / n
    var = sum(c * (m - mean) ** 2 for m, c in zip(mids, counts)) / n
    top = max(bins[i + 1] for i, c in enumerate(counts) if c > 0)
    return mean, math.sqrt(var), top, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--commit", required=True)
    a = ap.parse_args()
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["source", "model_id", "model", "weights", "architecture", "gpu", "num_gpus", "tp", "ep", "dp",
                  "max_num_seqs", "avg_batch_size", "avg_output_len", "output_len_std", "output_len_max",
                  "median_itl_ms", "p90_itl_ms", "p99_itl_ms", "output_tokens_per_s", "avg_power_w_all_gpus",
                  "energy_per_token_j"])
    for model_id, (model, weights) in MODELS.items():
        path = f"public/data/models/{model_id.replace('/', '__')}__lm-arena-chat.json"
        text = subprocess.run(["git", "-C", a.repo, "show", f"{a.commit}:{path}"], check=True,
                              capture_output=True, text=True).stdout
        d = json.loads(text)
        for c in d["configurations"]:
            p = c["parallelization"]
            mean, std, top, _ = histogram_moments(c["output_length_distribution"])
            out.writerow([f"ml-energy/leaderboard@{a.commit[:12]}:{path}", model_id, model, weights,
                          d.get("architecture", ""), GPUS[c["gpu_model"]], c["num_gpus"], p["tensor_parallel"],
                          p["expert_parallel"], p["data_parallel"], c["max_num_seqs"],
                          f"{c['avg_batch_size']:.2f}", f"{c['avg_output_len']:.1f}", f"{std:.1f}", int(top),
                          f"{c['median_itl_ms']:.3f}", f"{c['p90_itl_ms']:.3f}", f"{c['p99_itl_ms']:.3f}",
                          f"{c['output_throughput_tokens_per_sec']:.1f}", f"{c['avg_power_watts']:.1f}",
                          f"{c['energy_per_token_joules']:.4f}"])


if __name__ == "__main__":
    main()
