#!/usr/bin/env python3
"""The GEMM step at 64 tokens (issue 12; prototype, not built into servesim). Vidur's GEMMs are
flat from 1 to 64 tokens and jump 25-31% (A100) at 65 while still memory-bound. Two forms next to
the catalog roofline (gemm_compute 0.7, gemm_tokens_half 48, each GPU's gemm_memory, 3 us floor):
  pad   : the compute term counts M rounded up to 64-row tiles
  reread: every 64-row M-tile past the first reads a share beta of the weights again
Prints, per GPU and beta, the median |error| per GEMM kind and the signed median error per token
bucket (lower edge). Usage: python3 tools/operator-prototype/gemm_mtile.py
"""
import math, os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

GEMM_MEMORY = {'a100': 0.796, 'h100': 0.906, 'a40': 0.788}  # hardware/*.yaml (tools/fit/memory_fraction.py)
TILE = 64
EDGES = [1, 9, 17, 33, 49, 65, 97, 129, 193, 257, 513, 1025, 1 << 30]

def model(g, form, beta):
    G = P.GPU[g]
    def f(s):
        M = s['M']; tiles = math.ceil(M / TILE); w = s['K'] * s['N'] * 2
        if form == 'pad': c = 2 * tiles * TILE * s['K'] * s['N'] / (G['peak'] * 0.7)
        else: c = s['flops'] / (G['peak'] * 0.7 * M / (M + 48))
        wb = w * (1 + beta * (tiles - 1)) if form == 'reread' else w
        m = (wb + s['bytes'] - w) / (G['bw'] * GEMM_MEMORY[g])
        return max(c, m) + 3e-6
    return f

def main():
    data = {g: [s for s in P.load(g) if s['gemm']] for g in ['a100', 'h100', 'a40']}
    for g, S in data.items():
        for form, beta in [('roofline', 0), ('pad', 0), ('reread', 0.1), ('reread', 0.2), ('reread', 0.33)]:
            f = model(g, form, beta); agg = defaultdict(list)
            for s in S:
                for lo, hi in zip(EDGES, EDGES[1:]):
                    if lo <= s['M'] < hi: agg[lo].append(f(s) / s['meas'] - 1)
            kinds = ' '.join(f"{k}:{100 * st.median(abs(f(s) / s['meas'] - 1) for s in S if s['kind'] == k):4.1f}" for k in ['qkv', 'o', 'up', 'down'])
            label = form + (f' {beta}' if form == 'reread' else '')
            print(f'{g:4s} {label:12s} {kinds} | ' + ' '.join(f'{lo}:{100 * st.median(v):+.0f}' for lo, v in sorted(agg.items())))

if __name__ == '__main__':
    main()
