#!/usr/bin/env python3
"""Per-sequence decode cost in the measured vLLM serving runs, from the data alone (no simulation).

Each serving run of data/serving/vllm_serving_experiments.json has two or more load stages of the
same workload. Between two stages the decode batch grows (Little's law: sequences in flight =
rate x E2E) and so does TPOT. The slope dTPOT / d(sequences in flight) is what one more running
sequence costs per decode step. The roofline says: its KV cache read, kv_bytes_per_token / TP x
mean context / (attention_memory x HBM bandwidth). This prints both, per run, and their ratio;
and, for dense models, what is left over (slope - KV read) next to one token's GEMM compute on
one GPU, 2 x parameters / TP / (0.7 x dense bf16 peak): the time a token would add if its GEMM
work were not hidden under the weight streaming.

Used in docs/validation.md ("What the serving runs say about the GPUs"). Pure Python.
Usage: python3 tools/fit/decode_slope.py [experiments.json] [--attention-memory 0.7]
"""
import json, os, statistics as st, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
# Datasheet HBM/GDDR bandwidth and dense bf16 tensor peak (hardware/*.yaml cites each):
# A100 SXM4 80GB 2.039 TB/s, 312 TFLOP/s; H100 SXM5 3.35 TB/s, 989.4; L40S 864 GB/s, 362.05.
BW = {'A100-80GB': 2.039e12, 'H100': 3.35e12, 'L40S': 864e9}
PEAK = {'A100-80GB': 312e12, 'H100': 989.4e12, 'L40S': 362.05e12}
GEMM_COMPUTE = 0.7  # catalog default gemm_compute (sim/hardware/efficiency.cpp)

def main(argv):
    path = os.path.join(ROOT, 'data', 'serving', 'vllm_serving_experiments.json')
    eff = 0.7  # catalog default attention_memory (sim/hardware/efficiency.cpp)
    args = list(argv)
    if '--attention-memory' in args:
        i = args.index('--attention-memory'); eff = float(args[i + 1]); del args[i:i + 2]
    if args: path = args[0]
    d = json.load(open(path))
    ratios = {}
    left = {}
    print(f"{'run':44s} {'gpu':9s} {'seqs lo->hi':>12s} {'TPOT lo->hi ms':>15s} {'slope us/seq':>12s} {'KV-read us/seq':>14s} ratio"
          f" {'left us':>8s} {'compute us':>10s} left/compute")
    for e in d['experiments']:
        if not e.get('recommended_for_validation'): continue
        st_ = e['metrics']['stages']
        if len(st_) < 2: continue
        lo, hi = st_[0], st_[-1]
        n_lo = lo['rate_rps'] * lo['e2e_mean_ms'] / 1e3
        n_hi = hi['rate_rps'] * hi['e2e_mean_ms'] / 1e3
        if n_hi - n_lo < 4: continue  # too little change in batch to read a slope
        slope = (hi['tpot_mean_ms'] - lo['tpot_mean_ms']) / (n_hi - n_lo) * 1e3  # us per sequence
        tp = e['serving']['tensor_parallel_size']
        p = e['workload']['template_params']
        ctx = p['system_prompt_len'] + p['question_len'] + p['output_len'] / 2  # mean context while decoding
        kv = e['model']['architecture']['kv_cache_bytes_per_token_16bit'] / tp * ctx
        gpu = e['hardware']['gpu_short']
        roof = kv / (eff * BW[gpu]) * 1e6
        ratios.setdefault(gpu, []).append(slope / roof)
        arch = e['model']['architecture']
        extra = ''
        if not arch.get('moe'):  # an MoE token's active parameters are not in the file
            compute = 2 * arch['params_total_approx'] / tp / (GEMM_COMPUTE * PEAK[gpu]) * 1e6
            left.setdefault((gpu, tp), []).append((slope - roof) / compute)
            extra = f" {slope - roof:8.1f} {compute:10.1f} {(slope - roof) / compute:5.2f}"
        print(f"{e['key'][:44]:44s} {gpu:9s} {n_lo:5.1f}->{n_hi:5.1f} {lo['tpot_mean_ms']:6.2f}->{hi['tpot_mean_ms']:6.2f} "
              f"{slope:12.1f} {roof:14.1f} {slope / roof:5.2f}" + extra)
    for g, r in ratios.items():
        print(f"{g}: median measured/roofline per-sequence slope {st.median(r):.2f} over {len(r)} runs")
    for (g, tp), r in sorted(left.items()):
        print(f"{g} TP {tp} dense: median (slope - KV read) / one token's GEMM compute {st.median(r):.2f} over {len(r)} runs")

if __name__ == '__main__':
    main(sys.argv[1:])
