#!/usr/bin/env python3
"""Host (CPU) time of a vLLM V0 engine step against its batch, from Vidur's profile.

Shared data: operator_timings/historical/57720caf.../data/profiling/{a100,a40}/cpu_overheads.csv
(microsoft/vidur; vLLM V0 on an A100 and an A40 node; medians in ms per step of schedule,
sampler_e2e, prepare_inputs_e2e, process_model_outputs, against batch_size and TP).
Least squares of each part on the batch at TP 1 on the A100 host (26 rows) gives the
vllm-v0 preset's terms (sim/engine/framework_preset.cpp):
  per step    = intercepts of all four parts
  per sequence = slope of schedule + prepare inputs       (work per running sequence)
  per token    = slope of sampler + process model outputs (work per sampled token)
and tests the total on rows never fitted: A100 at TP 2-4 (Ray workers) and the A40 node's TP 1.
Pure Python. Usage: python3 tools/fit/host_cost.py [SHARED_DATA_DIR]
"""
import csv, os, statistics as st, sys

PARTS_SEQ = ['schedule_median', 'prepare_inputs_e2e_median']
PARTS_TOKEN = ['sampler_e2e_median', 'process_model_outputs_median']


def line(xs, ys):
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main(argv):
    shared = argv[0] if argv else '/work/shared/data'
    base = os.path.join(shared, 'operator_timings', 'historical', '57720caf01edae3e5e7391581266e57c258e97dd',
                        'data', 'profiling')
    rows = {g: list(csv.DictReader(open(os.path.join(base, g, 'cpu_overheads.csv')))) for g in ('a100', 'a40')}
    fit = [r for r in rows['a100'] if r['tensor_parallel_degree'] == '1']
    xs = [float(r['batch_size']) for r in fit]
    a_seq, b_seq = line(xs, [sum(float(r[p]) for p in PARTS_SEQ) for r in fit])
    a_tok, b_tok = line(xs, [sum(float(r[p]) for p in PARTS_TOKEN) for r in fit])
    step, per_seq, per_tok = a_seq + a_tok, b_seq * 1e3, b_tok * 1e3
    print(f"fitted on {len(fit)} A100 TP 1 rows: per step {step:.3f} ms, per sequence {per_seq:.1f} us, "
          f"per sampled token {per_tok:.1f} us")
    # The per-step intercept's two parts: what multi-step scheduling (vLLM V0 --num-scheduler-steps)
    # runs once per N decode steps (schedule + prepare inputs) and what it runs every step.
    print(f"  of the per-step time: schedule + prepare inputs {a_seq:.3f} ms, sampler + process outputs "
          f"{a_tok:.3f} ms")

    def err(rs):
        e = [abs((step + (b_seq + b_tok) * float(r['batch_size'])) /
                 sum(float(r[p]) for p in PARTS_SEQ + PARTS_TOKEN) - 1) for r in rs]
        return 100 * st.median(e), len(e)

    for label, rs in [('fitted rows (A100 TP 1)', fit),
                      ('held out: A100 TP 2-4', [r for r in rows['a100'] if r['tensor_parallel_degree'] != '1']),
                      ('held out: A40 TP 1 (another host)', [r for r in rows['a40'] if r['tensor_parallel_degree'] == '1']),
                      ('held out: A40 TP 2-8', [r for r in rows['a40'] if r['tensor_parallel_degree'] != '1'])]:
        e, n = err(rs)
        print(f"  {label:36s} n={n:3d} median |error| {e:5.1f}%")


if __name__ == '__main__':
    main(sys.argv[1:])
