#!/usr/bin/env python3
"""Where does the A100 GEMM fit miss on H100's tables? (issue 12, mlp_down A100 -> H100; analysis,
nothing built.) The closed form of sim/calibration/operator_fit.cpp with the five GEMM knobs
`calibrate operators` fits on the A100 tables (every 4th token count held out; printed by
`servesim calibrate operators --gpu a100-sxm4-80gb --data data/operator_timings/a100`):

  1. signed median error per GEMM kind, TP and token bucket (M <= 8 / 9-128 / 129-1024 / > 1024),
     on the A100 rows (own GPU) and on the H100 rows (carried);
  2. median |error| on H100 with the kernel floor carried in SM cycles instead of microseconds
     (5.58 us x 1.41 GHz / 1.98 GHz);
  3. decode GEMMs (M <= 8): achieved fraction of HBM peak by weight size against the two L2s
     (A100 40 MiB, H100 50 MiB): does a weight matrix that fits in the L2 stream faster?
Usage: python3 tools/operator-prototype/gemm_transfer_buckets.py   (a few seconds)
"""
import os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

# The A100 fit (calibrate operators, C++): gemm_compute, gemm_tokens_half, gemm_memory, gemm_overlap,
# kernel_overhead.
GC, HALF, GM, OV, KO = 0.7614, 17.44, 0.8891, 0.5666, 5.582e-6
KINDS = ['qkv', 'o', 'up', 'down']
BUCKETS = [('M<=8', 8), ('9-128', 128), ('129-1024', 1024), ('>1024', 1 << 30)]


def predict(s, g, floor_in_cycles=False):
    G = P.GPU[g]; fill = s['M'] / (s['M'] + HALF)
    c = s['flops'] / (G['peak'] * GC * fill); m = s['bytes'] / (G['bw'] * GM)
    floor = KO * P.GPU['a100']['clk'] / G['clk'] if floor_in_cycles else KO
    return max(c, m) + (1 - OV) * min(c, m) + floor


def bucket(M): return next(name for name, top in BUCKETS if M <= top)


def main():
    data = {g: [s for s in P.load(g) if s['gemm']] for g in ('a100', 'h100')}
    print('1. signed median error %, per TP: ' + ' / '.join(n for n, _ in BUCKETS))
    for g in data:
        agg = defaultdict(list)
        for s in data[g]: agg[s['kind'], s['tp'], bucket(s['M'])].append(predict(s, g) / s['meas'] - 1)
        print(f'  A100 fit on {g} rows')
        for k in KINDS:
            print(f'    {k:4s} ' + '  '.join(f'tp{tp} ' + '/'.join(f'{100 * st.median(agg[k, tp, b]):+.0f}' for b, _ in BUCKETS)
                                           for tp in (1, 2, 4, 8)))
    print('2. H100 median |error| %, kernel floor in microseconds / in SM cycles')
    for cyc in (False, True):
        print('   ' + ('cycles' if cyc else 'us    ') + ' ' + ' '.join(
            f'{k} {100 * st.median(abs(predict(s, "h100", cyc) / s["meas"] - 1) for s in data["h100"] if s["kind"] == k):.1f}'
            for k in KINDS))
    print('3. decode GEMMs (M <= 8), fraction of HBM peak reached (median) by weight size, A100 / H100')
    rows = {g: {(s['model'], s['tp'], s['M'], s['kind']): s for s in data[g]} for g in data}
    agg = defaultdict(list)
    for key, h in rows['h100'].items():
        a = rows['a100'].get(key)
        if a is None or key[2] > 8: continue
        mib = h['K'] * h['N'] * 2 / 2 ** 20
        size = '< 40 MiB (fits both L2s)' if mib < 40 else ('40-50 MiB (H100 L2 only)' if mib < 50 else '> 50 MiB')
        agg[key[3], size].append((a['bytes'] / a['meas'] / P.GPU['a100']['bw'], h['bytes'] / h['meas'] / P.GPU['h100']['bw']))
    for (k, size), v in sorted(agg.items()):
        print(f'   {k:4s} {size:26s} {len(v):3d} rows  {st.median(x for x, _ in v):.3f} / {st.median(y for _, y in v):.3f}')


if __name__ == '__main__':
    main()
