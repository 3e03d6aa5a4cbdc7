#!/usr/bin/env python3
"""Decode attention efficiency by batch x context on A100 (issue 12 part 3; prototype, not built
into servesim). Data: Vidur's one A100 attention profile (Llama-2-70B shapes at TP 2: 32 query and
4 KV heads per GPU, head_dim 128, block size 16, FlashAttention backend, eager mode), shared as
../shared/data/operator_timings/historical/acb95f6.../data/profiling/a100/attention.csv (pass
another path as the first argument). Decode rows: batch 1-256 x KV length 32-4032 per sequence.

Bytes read per call (one layer): batch x kv_len x 2 (K and V) x kv_heads x head_dim x 2 B. Two
models of the time, fitted by Nelder-Mead on the relative error of the EVEN batch sizes and tested
on the ODD ones (disjoint):
  flat : t = floor + bytes / (eff x HBM)                      (today's model: attention_memory, kernel_overhead)
  waves: t = floor + waves x (bytes / CTAs) / min(r, eff x HBM / min(CTAs, SMs)), with CTAs =
         batch x kv_heads (one thread block per sequence and KV head), waves = ceil(CTAs / SMs):
         the resident blocks share the HBM rate but one block streams at most r bytes/s (its loads
         in flight / latency), so a partial last wave or fewer blocks than SMs leave bandwidth idle
A100: 108 SMs (GA100 whitepaper), 2.039 TB/s (hardware/a100-sxm4-80gb.yaml).
Usage: python3 tools/operator-prototype/decode_attention.py [attention.csv]
"""
import csv, math, os, statistics as st, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P

SM, BW = 108, 2.039e12
DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data', 'operator_timings',
                       'historical', 'acb95f6cd118071401fa805a0b0bc11bd2018fc6', 'data', 'profiling', 'a100', 'attention.csv')

def load(path):
    rows = []
    for r in csv.DictReader(open(path)):
        if r['is_prefill'] != 'False': continue
        tp = int(r['num_tensor_parallel_workers'])
        kvh = int(r['n_kv_head']) // tp; hd = int(r['n_embd']) // int(r['n_q_head'])
        b, k = int(r['batch_size']), int(r['kv_cache_size'])
        rows.append(dict(b=b, k=k, ctas=b * kvh, bytes=b * k * 2 * kvh * hd * 2, t=float(r['time_stats.attn_decode.median']) * 1e-3))
    return rows

def pred(p, s, waves):
    floor, eff, r = p
    if not waves: return floor + s['bytes'] / (eff * BW)
    c = s['ctas']
    return floor + math.ceil(c / SM) * (s['bytes'] / c) / min(r, eff * BW / min(c, SM))

def conv(x): return math.exp(x[0]) * 1e-6, 1 / (1 + math.exp(-x[1])), math.exp(x[2]) * 1e9

def fit(rows, waves):
    def cost(x): return sum((pred(conv(x), s, waves) / s['t'] - 1) ** 2 for s in rows)
    x, _ = P.nm(cost, [math.log(10), P.lg(0.7), math.log(15)], iters=400)
    return conv(x)

def med(rows, p, waves): return 100 * st.median(abs(pred(p, s, waves) / s['t'] - 1) for s in rows)

def main(argv):
    rows = load(argv[0] if argv else DEFAULT)
    train = [s for s in rows if s['b'] % 2 == 0]; test = [s for s in rows if s['b'] % 2 == 1]
    print(f'{len(rows)} decode rows: fitted on {len(train)} (even batch), held out {len(test)} (odd batch)')
    print('achieved fraction of HBM peak, bytes / (t x 2.039 TB/s), by batch (rows) x KV length (columns):')
    ks = [256, 512, 1024, 2048]
    for b in [1, 4, 8, 16, 24, 32, 48, 64, 96, 128]:
        cell = {s['k']: s['bytes'] / s['t'] / BW for s in rows if s['b'] == b}
        print(f'  batch {b:3d} (CTAs {b * (rows[0]["ctas"] // rows[0]["b"]):3d}) ' + ' '.join(f'{k}:{cell[k]:.2f}' if k in cell else f'{k}:  - ' for k in ks))
    print(f'  catalog model (kernel_overhead 3 us, attention_memory 0.70): held-out median |error| {med(test, (3e-6, 0.70, 0), False):.1f}%')
    for waves in (False, True):
        p = fit(train, waves)
        extra = f', one block at most {p[2] / 1e9:.1f} GB/s' if waves else ''
        print(f"  {'waves' if waves else 'flat '}: floor {p[0] * 1e6:.1f} us, eff {p[1]:.3f}{extra}: train {med(train, p, waves):.1f}%, held-out {med(test, p, waves):.1f}%")
        for lo, hi in [(1, 8), (9, 32), (33, 64), (65, 128), (129, 256)]:
            sel = [s for s in test if lo <= s['b'] <= hi]
            if sel:
                bias = 100 * st.median(pred(p, s, waves) / s['t'] - 1 for s in sel)
                print(f'      held-out batch {lo}-{hi}: median |error| {med(sel, p, waves):.1f}%, bias {bias:+.1f}%')

if __name__ == '__main__':
    main(sys.argv[1:])
