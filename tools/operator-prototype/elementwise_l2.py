#!/usr/bin/env python3
"""Do elementwise kernels that fit in the L2 run at their own rate? (issue 12, part 1; prototype of
what `calibrate operators` now fits as <kind>_l2_bytes_per_sm_cycle.) Reads Vidur's A100, H100 and
A40 tables through prototype.py's loader (the cost model's fused bytes per op) and prints:

  1. per op kind and GPU, the measured bytes per SM-cycle by the kernel's size (bytes per launch,
     power-of-two MB buckets, rows with T >= 256), no fit: norm drops past the L2 on A100 and H100;
  2. per op kind, a fit on all rows of one GPU of
         t = kernels x floor + bytes x max(T, c x SMs) / T / rate,
         rate = b_l2 x SMs x clock       if bytes per launch <= s x L2 size (not capped by HBM)
                min(cap x HBM, b x SMs x clock)   otherwise
     (floor in SM cycles, b, b_l2 by weighted linear least squares on the relative error, c by
     grid on the median), carried to the other GPUs with the target's own cap (its gemm_memory),
     for s = 0 (one rate), 0.5, 1, 2; and with `--vidur-norm` the norm rows as Vidur's work (four
     unfused kernels, 20 bytes per element instead of the fused pair's 2 x 8).
L2 sizes: A100 40960 KiB (GA100 whitepaper), H100 SXM5 50 MiB (H100 whitepaper table 3), A40 6144 KiB
(GA102 whitepaper). Usage: python3 tools/operator-prototype/elementwise_l2.py [--vidur-norm] (~1 min)
"""
import math, os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

L2 = {'a100': 40960 * 1024, 'h100': 50 * 1024 ** 2, 'a40': 6144 * 1024}
CAP = {'a100': 0.796, 'h100': 0.906, 'a40': 0.80}  # each GPU's own gemm_memory (hardware/*.yaml; A40: the fallback)
KINDS = ['act', 'norm', 'rope']

def smc(g): return P.GPU[g]['sm'] * P.GPU[g]['clk']

def columns(s, g, c, scale):
    """(floor, L2-resident, beyond-L2) regressors, in SM cycles, of one sample."""
    G = P.GPU[g]; charged = s['bytes'] * max(s['M'], c * G['sm']) / s['M'] / smc(g)
    inside = scale > 0 and s['bytes'] / s['n'] <= scale * L2[g]
    return [s['n'] / G['clk'], charged if inside else 0.0, 0.0 if inside else charged]

def solve(rows, ts):
    """Weighted least squares of the relative error; columns that are all zero stay 0."""
    n = 3; A = [[0.0] * n for _ in range(n)]; v = [0.0] * n
    for a, t in zip(rows, ts):
        for i in range(n):
            v[i] += a[i] / t
            for j in range(n): A[i][j] += a[i] * a[j] / (t * t)
    keep = [i for i in range(n) if A[i][i] > 0]
    M = [[A[i][j] for j in keep] + [v[i]] for i in keep]; k = len(keep)
    for i in range(k):
        p = max(range(i, k), key=lambda r: abs(M[r][i])); M[i], M[p] = M[p], M[i]
        for r in range(k):
            if r != i:
                f = M[r][i] / M[i][i]; M[r] = [x - f * y for x, y in zip(M[r], M[i])]
    x = [0.0] * n
    for idx, i in enumerate(keep): x[i] = M[idx][k] / M[idx][idx]
    if len(keep) == 2: x[1] = x[2] = max(x[1], x[2])  # one rate: the same either side
    return x

def predict(s, g, fit, cap):
    floor, inv_l2, inv, c, scale = fit; a = columns(s, g, c, scale)
    inv_cap = smc(g) / (cap * P.GPU[g]['bw'])  # SM-cycles per byte at the HBM cap
    return a[0] * floor + a[1] * inv_l2 + a[2] * max(inv, inv_cap)

def med(S, g, fit, cap): return 100 * st.median(abs(predict(s, g, fit, cap) / s['meas'] - 1) for s in S)

def fit(S, g, scale):
    best = None
    for c in [0.1 * i for i in range(31)]:
        x = solve([columns(s, g, c, scale) for s in S], [s['meas'] for s in S])
        if x[0] < 0: continue
        f = (x[0], x[1], x[2], c, scale); e = med(S, g, f, 10.0)
        if best is None or e < best[0]: best = (e, f)
    return best[1]

def main():
    data = {g: [s for s in P.load(g) if not s['gemm']] for g in ['a100', 'h100', 'a40']}
    if '--vidur-norm' in sys.argv:
        for g in data:
            for s in data[g]:
                if s['kind'] == 'norm': s['bytes'] *= 20 / 16; s['n'] = 4
    by = lambda g, k: [s for s in data[g] if s['kind'] == k]
    print('measured bytes per SM-cycle by bytes per launch (MB bucket: median, rows), T >= 256')
    for k in KINDS:
        for g in data:
            agg = defaultdict(list)
            for s in by(g, k):
                if s['M'] < 256: continue
                mb = s['bytes'] / s['n'] / 1e6
                agg[2 ** int(math.log2(mb)) if mb >= 1 else 0].append(s['bytes'] / s['meas'] / smc(g))
            print(f'  {k:4s} {g:4s} ' + ' '.join(f'{b}:{st.median(v):.2f}({len(v)})' for b, v in sorted(agg.items())))
    print('\ncarried, median |error| % (fit: floor cycles, b_l2 / b bytes per SM-cycle, c)')
    for scale in [0, 0.5, 1, 2]:
        for k in KINDS:
            fits = {g: fit(by(g, k), g, scale) for g in ['a100', 'h100']}
            desc = ' '.join(f'{g} {f[0]:.0f} {1 / f[1] if f[1] else 0:.2f}/{1 / f[2]:.2f} {f[3]:.1f}' for g, f in fits.items())
            cells = ' '.join(f'{a}->{b} {med(by(b, k), b, fits[a], CAP[b]):5.1f}'
                             for a, b in [('a100', 'h100'), ('h100', 'a100'), ('a100', 'a40'), ('h100', 'a40')])
            print(f'  L2 x {scale:<3} {k:4s} {cells}   [{desc}]')

if __name__ == '__main__':
    main()
