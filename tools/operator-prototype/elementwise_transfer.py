#!/usr/bin/env python3
"""Which physics carries elementwise kernel times across GPUs? (issue 12, part 1; prototype, not
built into servesim). Reads Vidur's A100, H100 and A40 operator tables through prototype.py's
loader (same bytes per op as the cost model) and fits, per op kind and GPU, by weighted linear
least squares on the relative error (closed form, a second or two):

    t = kernels x floor + bytes / rate

then carries each fit to the other GPUs two ways:
  frac : floor in microseconds, rate as a fraction of the datasheet HBM bandwidth (today's model:
         elementwise_overhead, elementwise_memory)
  cycle: floor in SM clock cycles, rate as bytes per SM-cycle x SMs x boost clock, capped at the
         target GPU's weight-streaming fraction x HBM bandwidth (hardware/*.yaml gemm_memory: the
         share of peak a streaming kernel reaches where the SMs are not the limit)
  occ  : as cycle, with the bytes of max(M, c x SMs) tokens: a kernel of one thread block per token
         runs at the full rate only with about c blocks per SM, below that every token costs the
         same (c, a count, is fitted per op on the source GPU over 0.1..3 and carried as is; the
         floor is kept >= 0)
SM counts and clocks: prototype.py (whitepapers; clock = FP32 peak / (SMs x FP32 lanes x 2)).
Also prints each fit's signed median error by token-count bucket: the kernels are flat up to
about one token per SM (one thread block per token) and linear beyond, which a floor plus a
rate does not describe. Usage: python3 tools/operator-prototype/elementwise_transfer.py
"""
import math, os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

GEMM_MEMORY = {'a100': 0.796, 'h100': 0.906, 'a40': 0.788}  # hardware/*.yaml, gpus/a40.yaml fit (tools/fit/memory_fraction.py)
KINDS = ['act', 'norm', 'rope']

def xbytes(s, g, c):
    """bytes the rate is charged for: all of them, or those of c x SMs tokens when fewer run."""
    return s['bytes'] if c is None else s['bytes'] * max(s['M'], c * P.GPU[g]['sm']) / s['M']

def wls(S, g=None, c=None):
    """floor >= 0, rate minimising sum(((n floor + bytes / rate) / t - 1)^2)."""
    s11 = s12 = s22 = r1 = r2 = 0.0
    for s in S:
        u, v = s['n'] / s['meas'], xbytes(s, g, c) / s['meas']
        s11 += u * u; s12 += u * v; s22 += v * v; r1 += u; r2 += v
    det = s11 * s22 - s12 * s12
    floor, inv_rate = (r1 * s22 - r2 * s12) / det, (s11 * r2 - s12 * r1) / det
    if floor < 0: floor, inv_rate = 0.0, r2 / s22  # the floor at its bound
    return floor, 1 / inv_rate

def smcyc(g): return P.GPU[g]['sm'] * P.GPU[g]['clk']

def carry(fit, src, dst, mode):
    floor, rate = fit
    if mode == 'frac': return floor, rate / P.GPU[src]['bw'] * P.GPU[dst]['bw']
    b = rate / smcyc(src)  # bytes per SM-cycle
    return floor * P.GPU[src]['clk'] / P.GPU[dst]['clk'], min(b * smcyc(dst), GEMM_MEMORY[dst] * P.GPU[dst]['bw'])

def med_err(S, floor, rate, g=None, c=None):
    return 100 * st.median(abs((s['n'] * floor + xbytes(s, g, c) / rate) / s['meas'] - 1) for s in S)

def occ_fit(S, g):
    cs = [0.1 * i for i in range(1, 31)]
    c = min(cs, key=lambda c: med_err(S, *wls(S, g, c), g, c))
    return wls(S, g, c) + (c,)

def main():
    data = {g: [s for s in P.load(g) if not s['gemm']] for g in ['a100', 'h100', 'a40']}
    by = lambda g, k: [s for s in data[g] if s['kind'] == k]
    print('per-GPU fits (all rows of that GPU): floor, rate, rate as HBM fraction and bytes per SM-cycle, own median |error|')
    fits = {}
    for k in KINDS:
        for g in data:
            fits[g, k] = wls(by(g, k)); f, r = fits[g, k]
            print(f'  {k:4s} {g:4s} floor {f * 1e6:5.2f} us ({f * P.GPU[g]["clk"]:5.0f} cycles)  rate {r / 1e12:5.3f} TB/s '
                  f'= {r / P.GPU[g]["bw"]:.3f} of HBM = {r / smcyc(g):4.2f} B/SM-cycle  own error {med_err(by(g, k), f, r):4.1f}%')
    occ = {}
    for k in KINDS:
        for g in data:
            occ[g, k] = occ_fit(by(g, k), g); f, r, c = occ[g, k]
            print(f'  occ {k:4s} {g:4s} c {c:.1f} floor {f * 1e6:5.2f} us  {r / smcyc(g):4.2f} B/SM-cycle  own error {med_err(by(g, k), f, r, g, c):4.1f}%')
    print('\ncarried (fit on one GPU, every row of the other; none fitted on): median |error| %, frac / cycle / occ')
    for src, dst in [('a100', 'h100'), ('h100', 'a100'), ('a100', 'a40'), ('h100', 'a40')]:
        cells = []
        for k in KINDS:
            e = [med_err(by(dst, k), *carry(fits[src, k], src, dst, m)) for m in ('frac', 'cycle')]
            f, r, c = occ[src, k]
            e.append(med_err(by(dst, k), *carry((f, r), src, dst, 'cycle'), dst, c))
            cells.append(f'{k} {e[0]:5.1f} / {e[1]:5.1f} / {e[2]:5.1f}')
        print(f'  {src} -> {dst:4s}  ' + '   '.join(cells))
    print('\nsigned median error of the own-GPU fit by token count (2^k bucket), %')
    for k in KINDS:
        for g in data:
            f, r = fits[g, k]; agg = defaultdict(list)
            for s in by(g, k): agg[2 ** int(math.log2(s['M']))].append((s['n'] * f + s['bytes'] / r) / s['meas'] - 1)
            print(f'  {k:4s} {g:4s} ' + ' '.join(f'{b}:{100 * st.median(v):+.0f}' for b, v in sorted(agg.items())))

if __name__ == '__main__':
    main()
