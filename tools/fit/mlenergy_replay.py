#!/usr/bin/env python3
"""Replays the ML.ENERGY Benchmark v3 runs (data/serving/mlenergy_v3_lm_arena.csv) through servesim.

Each run is vLLM 0.11.1 serving LMArena chat prompts with max_num_seqs = a batch cap and the
request queue kept full (avg_batch_size / max_num_seqs >= 0.85 in every kept run); ITL and output
throughput are measured over that steady state, board power by NVML. servesim replays it as
all requests at once into an engine with the same cap, outputs drawn lognormal with the run's
measured mean and standard deviation (capped at its longest output, <= 4,096 = the benchmark's
--max-output-tokens), and compares the median ITL, the output throughput and the power per GPU.

Not published with the runs: the prompt lengths (LMArena human-preference prompts, first turn,
with the chat template). --input-mean / --input-std set them (default 200 / 300 tokens, an
assumption; the report gives the sensitivity). max_num_batched_tokens is vLLM V1's default for
the OpenAI server on these GPUs, 8192.

  python3 tools/fit/mlenergy_replay.py --servesim build/servesim [--set engine.framework=vllm-v1-sync]
      [--rows 'gpu=h100-sxm'] [--csv out.csv]
"""
import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
import tempfile
import os

BASE = """hardware: {gpu: h100-sxm}
model: {name: llama-3.1-8b}
parallelism: {tp: 1, pp: 1, replicas: 1}
engine: {kind: vllm, max_num_seqs: 8, max_num_batched_tokens: 8192, block_size: 16,
         gpu_memory_utilization: 0.9, prefix_caching: false}
workload:
  seed: 1
  requests: 1000
  arrival: {process: all_at_once}
  input_tokens: {dist: lognormal, mean: 200, stddev: 300, max: 4096}
  output_tokens: {dist: lognormal, mean: 400, stddev: 300, max: 4096}
"""


def simulate(exe, row, a, base_path):
    B = int(row["max_num_seqs"])
    requests = max(a.min_requests, a.requests_per_slot * B)
    w = row["weights"]
    sets = {
        "hardware.gpu": row["gpu"],
        "model.name": row["model"],
        "model.weights": w,
        "model.activations": w,
        "model.kv_cache": "bf16",
        "parallelism.tp": row["tp"],
        "engine.max_num_seqs": B,
        "workload.requests": requests,
        "workload.input_tokens.mean": a.input_mean,
        "workload.input_tokens.stddev": a.input_std,
        "workload.output_tokens.mean": row["avg_output_len"],
        "workload.output_tokens.stddev": max(1.0, float(row["output_len_std"])),
        "workload.output_tokens.max": row["output_len_max"],
    }
    for s in a.set or []:
        k, v = s.split("=", 1)
        sets[k] = v
    # One run per measured run: the bands' seed replicates would only multiply the time.
    cmd = [exe, "run", base_path, "--json", "--seed-replicates", "0"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return json.loads(p.stdout), ""


def write_residuals(path, done):
    """The runs as residuals of the band table (sim/uncertainty/residual_csv.h).

    ML.ENERGY publishes ITL percentiles, not TPOT: at a batch kept full every token's gap is
    one decode step, so servesim's median ITL against theirs stands for its TPOT error. Each
    run is keyed as servesim keys the replayed scenario (its bands.key: GPU family, framework,
    load, and what no band covers, which calibrate bands leaves out). Source: data set,
    engine version and GPU, what a leave-one-source-out check holds out together."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["experiment", "source", "calibrated", "family", "framework", "load", "uncovered", "metric",
                    "measured", "predicted"])
        for r in done:
            if not r.get("band_load"):  # servesim printed no band key (the run is outside the table's reach)
                continue
            exp = f"mlenergy-v3/{r['model_id']}/{r['gpu']}/tp{r['tp']}/{r['weights']}/b{r['batch']}"
            w.writerow([exp, f"mlenergy-v3/vllm-0.11.1/{r['gpu']}", 0, r["band_family"], r["band_framework"],
                        r["band_load"], r["band_uncovered"], "tpot_mean", f"{r['itl_meas']:.6g}",
                        f"{r['itl_pred']:.6g}"])


def keep(row, filters):
    for f in filters or []:
        k, v = f.split("=", 1)
        if str(row.get(k)) not in v.split("|"):
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--servesim", default="build/servesim")
    ap.add_argument("--data", default="data/serving/mlenergy_v3_lm_arena.csv")
    ap.add_argument("--set", action="append")
    ap.add_argument("--rows", action="append", help="key=value[|value] filters on the CSV columns")
    ap.add_argument("--input-mean", type=float, default=200)
    ap.add_argument("--input-std", type=float, default=300)
    ap.add_argument("--requests-per-slot", type=int, default=4)
    ap.add_argument("--min-requests", type=int, default=400)
    ap.add_argument("--max-batch", type=int, default=1024)
    ap.add_argument("--csv")
    ap.add_argument("--residuals",
                    help="write the runs' ITL residuals as a band-table source (servesim calibrate bands --extra)")
    a = ap.parse_args()
    # Data-parallel attention with expert parallelism (the Llama 4 runs: TP 1, DP 4-8) is not
    # what servesim's parallelism keys describe: those runs are left out, not replayed wrongly.
    rows = [r for r in csv.DictReader(open(a.data))
            if keep(r, a.rows) and int(r["max_num_seqs"]) <= a.max_batch and int(r["dp"]) == 1]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(BASE)
        base_path = f.name
    out = []
    for r in rows:
        j, err = simulate(a.servesim, r, a, base_path)
        rec = dict(model_id=r["model_id"], gpu=r["gpu"], tp=r["tp"], weights=r["weights"], batch=r["max_num_seqs"],
                   itl_meas=float(r["median_itl_ms"]), tput_meas=float(r["output_tokens_per_s"]),
                   power_meas=float(r["avg_power_w_all_gpus"]) / int(r["num_gpus"]))
        if j is None:
            rec["note"] = err
        else:
            rec["itl_pred"] = j["itl_ms"]["p50"]
            # Where a prediction of this run would look its band up (uncertainty/bands.h).
            key = j.get("bands", {}).get("key", {})
            rec["band_family"] = key.get("gpu_family", "")
            rec["band_framework"] = key.get("framework", "")
            rec["band_load"] = key.get("load", "")
            rec["band_uncovered"] = "|".join(key.get("uncovered", []))
            rec["tput_pred"] = j["throughput"]["output_tokens_per_s"]
            rec["power_pred"] = j["energy"]["power_w_per_gpu"]
            # The run's mean utilisations (the inputs of the power model, hardware/power_model.h).
            rec["mfu"] = j["utilization"]["mfu"]
            rec["mem_util"] = j["utilization"]["memory_bandwidth"]
            rec["busy"] = j["utilization"]["busy_fraction"]
            for m in ("itl", "tput", "power"):
                rec[f"{m}_err"] = rec[f"{m}_pred"] / rec[f"{m}_meas"] - 1
        out.append(rec)
        print(f"{rec['model_id'][:38]:38s} {rec['gpu']:9s} tp{rec['tp']} {rec['weights']:4s} B={int(rec['batch']):5d} "
              + (f"ITL {rec['itl_meas']:7.2f} -> {rec['itl_pred']:7.2f} ({rec['itl_err']:+6.1%})  "
                 f"tok/s {rec['tput_meas']:8.0f} -> {rec['tput_pred']:8.0f} ({rec['tput_err']:+6.1%})  "
                 f"W/GPU {rec['power_meas']:5.0f} -> {rec['power_pred']:5.0f} ({rec['power_err']:+6.1%})"
                 if "itl_err" in rec else f"skipped: {rec['note']}"), flush=True)
    os.unlink(base_path)
    done = [r for r in out if "itl_err" in r]
    if done:
        for m in ("itl", "tput", "power"):
            e = [r[f"{m}_err"] for r in done]
            print(f"{m:5s} n={len(e):3d} median |error| {statistics.median(abs(x) for x in e):6.1%} "
                  f"median error {statistics.median(e):+6.1%}")
    if a.residuals:
        write_residuals(a.residuals, done)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=sorted({k for r in out for k in r}))
            w.writeheader()
            w.writerows(out)


if __name__ == "__main__":
    main()
