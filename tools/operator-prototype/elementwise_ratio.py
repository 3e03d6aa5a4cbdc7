#!/usr/bin/env python3
"""Where does H100 beat A100 per SM-cycle on the elementwise kernels? (issue 12 part 2; analysis,
not built). For every (model, TP, tokens) row both GPUs profiled, the ratio of the two rates per
SM-cycle, (t_A100 / t_H100) x (SMs x clock)_A100 / (SMs x clock)_H100 (108 x 1.41 GHz against
132 x 1.98 GHz, prototype.py), median per token bucket (lower edge, powers of two) with the
median bytes the kernel moves. 1.00: the H100 is exactly SMs x clock faster. A kernel whose time
is all SM cycles, the per-kind model's floor included, gives 1.00 at large token counts and,
below the occupancy knee (time ~ floor + c tokens per SM, the same cycles on both), 1 / 1.22 =
0.82 (the clock ratio 1.40 over the SMs x clock ratio 1.72).
Usage: python3 tools/operator-prototype/elementwise_ratio.py   (a few seconds)
"""
import math, os, statistics as st, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

def main():
    rows = {g: {(s['model'], s['tp'], s['M'], s['kind']): s for s in P.load(g) if not s['gemm']} for g in ('a100', 'h100')}
    smc = {g: P.GPU[g]['sm'] * P.GPU[g]['clk'] for g in ('a100', 'h100')}
    agg = defaultdict(list)
    for key, h in rows['h100'].items():
        a = rows['a100'].get(key)
        if a is None: continue
        agg[key[3], 2 ** int(math.log2(key[2]))].append(((a['meas'] / h['meas']) * smc['a100'] / smc['h100'], a['bytes'] / 1e6))
    for kind in ('act', 'norm', 'rope'):
        print(f'{kind:4s} ' + ' '.join(f"{b}:{st.median(r for r, _ in v):.2f}({st.median(m for _, m in v):.0f} MB)"
                                       for (k, b), v in sorted(agg.items()) if k == kind))

if __name__ == '__main__':
    main()
