#!/usr/bin/env python3
"""All-reduce time by message size, A100 <-> H100 (issue 12 part 3; prototype, not built into
servesim). Data: Vidur's NCCL profiles, shared as ../shared/data/operator_timings/network/
{a100,h100}_{dgx,pairwise_nvlink}/all_reduce.csv (pass the network folder as the first argument).
Rows of rank 0 whose ranks all sit in one node (devices_per_node = num_workers); `size` is read
as bytes (as elements of 2 B, the H100 8-GPU bus bandwidth would be 729 GB/s, above NVLink 4's
450 GB/s per direction). servesim's closed form (sim/cost/collectives.cpp):
    t = 2 (n - 1) / n x bytes / (comm_bandwidth x link) + 2 ceil(log2 n) x latency
with link = NVLink per direction (A100 300 GB/s, H100 450 GB/s: hardware/*.yaml). Fitted
(comm_bandwidth, latency) on one GPU's rows by Nelder-Mead on the relative error, carried as is to
the other GPU's rows (none fitted on), next to the catalog's 0.75 and 3 us.
Usage: python3 tools/operator-prototype/allreduce_transfer.py [network_dir]
"""
import csv, glob, math, os, statistics as st, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

LINK = {'a100': 300e9, 'h100': 450e9}
DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data', 'operator_timings', 'network')

def load(d, g):
    rows, seen = [], set()
    for f in sorted(glob.glob(os.path.join(d, f'{g}_*', 'all_reduce.csv'))):
        for r in csv.DictReader(open(f)):
            n = int(r['num_workers'])
            if r['rank'] != '0' or int(r['devices_per_node']) != n or n < 2: continue
            key = (n, int(r['size']))
            if key in seen: continue  # the same point in both folders
            seen.add(key)
            rows.append(dict(n=n, bytes=int(r['size']), t=float(r['time_stats.all_reduce.median']) * 1e-3))
    return rows

def pred(p, s, g):
    eff, lat = p; n = s['n']
    return 2 * (n - 1) / n * s['bytes'] / (eff * LINK[g]) + 2 * math.ceil(math.log2(n)) * lat

def fit(rows, g):
    conv = lambda x: (1 / (1 + math.exp(-x[0])), math.exp(x[1]) * 1e-6)
    x, _ = P.nm(lambda x: sum((pred(conv(x), s, g) / s['t'] - 1) ** 2 for s in rows), [P.lg(0.75), math.log(3)], iters=300)
    return conv(x)

def report(rows, p, g, label):
    cells = []
    for lo, hi, name in [(0, 1 << 20, '< 1 MiB'), (1 << 20, 1 << 24, '1-16 MiB'), (1 << 24, 1 << 40, '>= 16 MiB')]:
        sel = [s for s in rows if lo <= s['bytes'] < hi]
        if sel:
            e = [pred(p, s, g) / s['t'] - 1 for s in sel]
            cells.append(f'{name}: {100 * st.median(map(abs, e)):.1f}% (bias {100 * st.median(e):+.0f}%)')
    allm = 100 * st.median(abs(pred(p, s, g) / s['t'] - 1) for s in rows)
    print(f'  {label:34s} all {allm:5.1f}%   ' + '   '.join(cells))

def main(argv):
    d = argv[0] if argv else DEFAULT
    data = {g: load(d, g) for g in LINK}
    for g, rows in data.items():
        print(f'{g}: {len(rows)} intra-node rows, ranks {sorted(set(s["n"] for s in rows))}, {min(s["bytes"] for s in rows)}-{max(s["bytes"] for s in rows)} B')
    fits = {g: fit(data[g], g) for g in data}
    for g, p in fits.items(): print(f'fit on {g}: comm_bandwidth {p[0]:.3f}, latency per hop {p[1] * 1e6:.2f} us')
    for dst in data:
        report(data[dst], (0.75, 3e-6), dst, f'{dst}, catalog 0.75 / 3 us')
        for src in data:
            report(data[dst], fits[src], dst, f'{dst}, {src} fit' + (' (own)' if src == dst else ' (carried)'))

if __name__ == '__main__':
    main(sys.argv[1:])
