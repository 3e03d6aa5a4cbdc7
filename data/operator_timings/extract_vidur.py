#!/usr/bin/env python3
"""Regenerates data/operator_timings/{a100,h100,a40}/*.csv from Vidur's operator profiles.

Usage: python3 data/operator_timings/extract_vidur.py [SHARED_DATA_DIR]
SHARED_DATA_DIR defaults to ../shared/data relative to the repository root; it holds
operator_timings/compute/<gpu>/<org>/<model>/mlp.csv copied from github microsoft/vidur
@7d47513 data/profiling/compute/<gpu>/. Keeps only the shape columns and the per-op
median times (ms), rounded to 1 ns (the source resolves 1 us), sorted by (tp, tokens).
Each GPU folder gets the models Vidur profiled on it (H100 and A40 lack the Llama 3 pair).
"""
import csv
import os
import sys

# Vidur model folder -> servesim model name (catalog name or data/operator_timings/models/<name>.yaml).
MODELS = {
    "meta-llama/Llama-2-7b-hf": "llama-2-7b",
    "meta-llama/Llama-2-70b-hf": "llama-2-70b",
    "codellama/CodeLlama-34b-Instruct-hf": "codellama-34b",
    "meta-llama/Meta-Llama-3-8B": "llama-3.1-8b",    # same layer shapes as Llama 3.1 8B
    "meta-llama/Meta-Llama-3-70B": "llama-3.1-70b",  # same layer shapes as Llama 3.1 70B
    "internlm/internlm-20b": "internlm-20b",        # models/internlm-20b.yaml here
    "Qwen/Qwen-72B": "qwen-72b",                    # models/qwen-72b.yaml here
    # microsoft/phi-2 skipped: parallel attention+MLP block, LayerNorm, GELU, partial rotary.
}
# Vidur's GPU folders extracted (data/profiling/compute/<gpu>/); see PROVENANCE.md for the SKUs.
GPUS = ["a100", "h100", "a40"]
SHAPE = ["num_tensor_parallel_workers", "num_tokens", "n_head", "n_kv_head", "n_embd",
         "n_expanded_embd", "vocab_size", "use_gated_mlp"]
OPS = ["attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_act", "mlp_down_proj",
       "input_layernorm", "post_attention_layernorm", "attn_rope", "add"]


def fmt(x):
    v = round(float(x), 6)
    s = repr(v)
    return s[:-2] if s.endswith(".0") else s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "..", "shared", "data")
    for gpu in GPUS:
        src_root = os.path.join(shared, "operator_timings", "compute", gpu)
        out_dir = os.path.join(here, gpu)
        os.makedirs(out_dir, exist_ok=True)
        for src, name in MODELS.items():
            path = os.path.join(src_root, src, "mlp.csv")
            if not os.path.exists(path):
                print(f"{gpu}: no {src} profile, skipped")
                continue
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            rows.sort(key=lambda r: (int(r["num_tensor_parallel_workers"]), int(r["num_tokens"])))
            cols = SHAPE + [f"time_stats.{op}.median" for op in OPS]
            with open(os.path.join(out_dir, name + ".csv"), "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(cols)
                for r in rows:
                    w.writerow([r[c] for c in SHAPE] + [fmt(r[f"time_stats.{op}.median"]) for op in OPS])
            print(f"{src} -> {gpu}/{name}.csv ({len(rows)} rows)")


if __name__ == "__main__":
    main()
