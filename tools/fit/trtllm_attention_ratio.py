#!/usr/bin/env python3
"""The `trtllm` preset's attention ratio: a one-parameter grid fit, held-out errors on both data sets.

engine.attention_memory_ratio multiplies the GPU profile's attention_memory (the fraction of HBM
bandwidth at which decode attention reads the KV cache, set for vLLM's paged attention). This
fits it for TensorRT-LLM on every other compared row (file order: the 1st, 3rd, ...) of the
TensorRT-LLM 0.11 offline-throughput set, minimising their median |error|, and prints the
median |error| of the fitted half, the held-out half and all of that set, and of the 17
TensorRT-LLM 0.5/0.6.1 static rows, which no value was chosen on. The static set alone is too
small to split (7 A100 throughput rows: `calibrate static` on its 6 fitted rows runs the ratio
to its bound), so it is the second, never-fitted test.

Each point runs `servesim validate-static --set engine.framework=trtllm --set
engine.attention_memory_ratio=R` on both files (about a second each).
Used in docs/validation.md ("Framework presets"). Pure Python.
Usage: python3 tools/fit/trtllm_attention_ratio.py [--bin build/servesim] [--grid 1.00:1.30:0.01]
"""
import csv, os, statistics as st, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
OFFLINE = 'data/offline_throughput/trtllm_v0.11_throughput.csv'
STATIC = 'data/static_batch/trtllm_v05_v061_static_a100_l40s.csv'


def compared_rows(binary, path, ratio, offline, out):
    cmd = [binary, 'validate-static', '--file', path, '--set', 'engine.framework=trtllm',
           '--set', 'engine.attention_memory_ratio=%g' % ratio, '--out', out]
    if not offline:
        cmd.append('--no-offline')
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    with open(os.path.join(out, 'static_rows.csv')) as f:
        return [r for r in csv.DictReader(f) if r['predicted']]


def halves(rows):
    """Every other compared row of each metric, file order: (fitted, held out)."""
    fit, held, seen = [], [], {}
    for r in rows:
        i = seen.get(r['metric'], 0)
        seen[r['metric']] = i + 1
        (fit if i % 2 == 0 else held).append(r)
    return fit, held


def median_abs(rows):
    return st.median(abs(float(r['error_pct'])) for r in rows)


def main(argv):
    binary = os.path.join(ROOT, 'build', 'servesim')
    lo, hi, step = 1.0, 1.30, 0.01
    args = list(argv)
    if '--bin' in args:
        i = args.index('--bin'); binary = os.path.abspath(args[i + 1]); del args[i:i + 2]
    if '--grid' in args:
        i = args.index('--grid'); lo, hi, step = (float(x) for x in args[i + 1].split(':')); del args[i:i + 2]
    if args:
        sys.exit('trtllm_attention_ratio.py: unknown arguments %s (see the docstring)' % ' '.join(args))
    grid = [round(lo + k * step, 6) for k in range(int(round((hi - lo) / step)) + 1)]
    results = []
    with tempfile.TemporaryDirectory() as out:
        for ratio in grid:
            off = compared_rows(binary, OFFLINE, ratio, True, out)
            sta = compared_rows(binary, STATIC, ratio, False, out)
            fit, held = halves(off)
            results.append((median_abs(fit), ratio, median_abs(held), median_abs(off), median_abs(sta), len(fit),
                            len(held), len(sta)))
    print('ratio   offline fitted  offline held-out  offline all  static (never fitted)')
    for m_fit, ratio, m_held, m_off, m_sta, n_fit, n_held, n_sta in sorted(results, key=lambda r: r[1]):
        print('%5.2f   %6.1f%% (%d)   %6.1f%% (%d)     %6.1f%%      %6.1f%% (%d)' %
              (ratio, m_fit, n_fit, m_held, n_held, m_off, m_sta, n_sta))
    best = min(results)  # the smallest fitted-half median; ties to the smaller ratio
    print('fitted: %.2f (offline fitted half %.1f%%); held out: offline %.1f%%, static %.1f%%' %
          (best[1], best[0], best[2], best[4]))


if __name__ == '__main__':
    main(sys.argv[1:])
