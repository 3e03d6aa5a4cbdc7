#!/usr/bin/env python3
"""Does the FP32 arithmetic an elementwise kernel issues explain why Hopper moves more bytes per
SM-cycle than Ampere? (issue 12; prototype of what `calibrate operators` fits with
<kind>_fp32_per_byte.) The per-kind model of elementwise_l2.py (floor in SM cycles, rate in bytes
per SM-cycle within / beyond the L2, occupancy c x SMs tokens, the target's own HBM cap, Vidur's
unfused norm work), with the SM cycles per byte split in two:

    SM cycles per byte = 1 / b  +  w / lanes

b: the kernel's memory-side rate in bytes per SM-cycle (fitted on one GPU, carried as it is);
w: FP32 instructions (FFMA, FADD, FMUL) the kernel issues per byte it moves, counted from its
   machine code (tools/operator-prototype/kernels/count_fp32.py: the same 12 per SiLU-and-mul
   element on sm_80 and sm_90), not fitted;
lanes: FP32 lanes per SM = FP32 peak / (2 x SMs x clock) from the datasheets (A100 19.5 TFLOP/s,
   108 SMs: 64; H100 SXM 67 TFLOP/s, 132 SMs: 128; A40 37.4 TFLOP/s, 84 SMs: 128).
Sums, not a max: the arithmetic of one element waits on its loads and the next loads wait on it
(one thread per element, no software pipelining in these kernels), so its cycles add.

Prints, for w = 0 (elementwise_l2.py's model) and w = the counted values, the A100 -> H100,
H100 -> A100, A100 -> A40 and H100 -> A40 median |error| per op kind (fits on all rows of one GPU)
and the H100 / A100 rate per SM-cycle the model predicts at large token counts next to the
measured one (elementwise_ratio.py). Usage: python3 tools/operator-prototype/elementwise_fp32.py
(about a minute)
"""
import os, statistics as st, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P
import elementwise_l2 as L

LANES = {'a100': 64, 'h100': 128, 'a40': 128}  # FP32 peak / (2 x SMs x clock), prototype.py's figures
# FP32 instructions per byte (kernels/count_fp32.py): act 12 per element over 6 bytes; norm as
# Vidur's two RMSNorms (3 per element + the block reduction, 11 per thread over hidden / 1024
# elements) and two adds (1 per element) over 20 bytes per element, at hidden 8192; rope 6 per
# rotated pair over 8 bytes.
COUNTED = {'act': 12 / 6, 'norm': (2 * (3 + 11 / 8) + 2 * 1) / 20, 'rope': 6 / 8}


def arith(s, g, c, w):
    """SM-cycles of FP32 issue: the charged bytes x w / lanes, over SMs x clock (seconds)."""
    G = P.GPU[g]; charged = s['bytes'] * max(s['M'], c * G['sm']) / s['M']
    return charged * w / LANES[g] / L.smc(g)


def predict(s, g, fit, cap, w):
    floor, inv_l2, inv, c, scale = fit; a = L.columns(s, g, c, scale)
    inv_cap = L.smc(g) / (cap * P.GPU[g]['bw'])
    extra = w / LANES[g]
    return a[0] * floor + a[1] * (inv_l2 + extra if a[1] else 0) + a[2] * max(inv + extra, inv_cap)


def fit(S, g, w, scale=1.0):
    """As elementwise_l2.fit, with the FP32 cycles a known part of each row's time."""
    best = None
    for c in [0.1 * i for i in range(31)]:
        rows = [L.columns(s, g, c, scale) for s in S]
        # weighted least squares of (model - t) / t with the known term moved to the target
        n = 3; A = [[0.0] * n for _ in range(n)]; v = [0.0] * n
        for a, s in zip(rows, S):
            t = s['meas']; r = t - arith(s, g, c, w)
            for i in range(n):
                v[i] += a[i] * r / (t * t)
                for j in range(n): A[i][j] += a[i] * a[j] / (t * t)
        keep = [i for i in range(n) if A[i][i] > 0]
        M = [[A[i][j] for j in keep] + [v[i]] for i in keep]; k = len(keep)
        for i in range(k):
            p = max(range(i, k), key=lambda q: abs(M[q][i])); M[i], M[p] = M[p], M[i]
            for q in range(k):
                if q != i:
                    f = M[q][i] / M[i][i]; M[q] = [x - f * y for x, y in zip(M[q], M[i])]
        x = [0.0] * n
        for idx, i in enumerate(keep): x[i] = M[idx][k] / M[idx][idx]
        if x[0] < 0 or min(x[1:]) <= 0: continue
        f = (x[0], x[1], x[2], c, scale)
        e = st.median(abs(predict(s, g, f, 10.0, w) / s['meas'] - 1) for s in S)
        if best is None or e < best[0]: best = (e, f)
    return best[1]


def main():
    data = {g: [s for s in P.load(g) if not s['gemm']] for g in ['a100', 'h100', 'a40']}
    for g in data:  # Vidur's norm: two RMSNorms and two adds, 20 bytes per element in 4 launches
        for s in data[g]:
            if s['kind'] == 'norm': s['bytes'] *= 20 / 16; s['n'] = 4
    by = lambda g, k: [s for s in data[g] if s['kind'] == k]
    for label, ws in [('w = 0', {k: 0.0 for k in L.KINDS}), ('w counted', COUNTED)]:
        print(f'{label}: ' + ', '.join(f'{k} {ws[k]:.3f}' for k in L.KINDS) + ' FP32 instructions per byte')
        for k in L.KINDS:
            w = ws[k]; fits = {g: fit(by(g, k), g, w) for g in ['a100', 'h100']}
            cells = ' '.join(f'{a}->{b} {100 * st.median(abs(predict(s, b, fits[a], L.CAP[b], w) / s["meas"] - 1) for s in by(b, k)):5.1f}'
                             for a, b in [('a100', 'h100'), ('h100', 'a100'), ('a100', 'a40'), ('h100', 'a40')])
            bias = ' '.join(f'{a}->{b} {100 * st.median(predict(s, b, fits[a], L.CAP[b], w) / s["meas"] - 1 for s in by(b, k)):+5.1f}'
                            for a, b in [('a100', 'h100'), ('h100', 'a100')])
            # Predicted H100 / A100 rate per SM-cycle beyond the L2, from the A100 fit's b.
            inv = fits['a100'][2]; ratio = (inv + w / LANES['a100']) / (inv + w / LANES['h100'])
            desc = ' '.join(f'{g}: b {1 / f[2]:.2f} b_l2 {1 / f[1]:.2f} floor {f[0]:.0f} c {f[3]:.1f}' for g, f in fits.items())
            print(f'  {k:4s} {cells}   bias {bias}   H100/A100 per SM-cycle {ratio:.3f}   [{desc}]')


if __name__ == '__main__':
    main()
