#!/usr/bin/env python3
"""mlp_down A100 -> H100 (issue 12; prototype, nothing built). Two GEMM forms next to the C++
closed form (sim/calibration/operator_fit.cpp), each fitted on the A100 tables' train rows
(every 4th distinct token count held out, as `calibrate operators`; squared relative error,
Nelder-Mead) and carried to the H100 and A40 tables (all rows), plus the H100's own fit:
  base : max(c, m) + (1 - ov) min(c, m) + floor, m = bytes / (gemm_memory x HBM peak)
  r    : memory rate min(HBM peak, b x SMs x clock) (bytes per SM-cycle b in place of gemm_memory)
  re   : r, and the output write (M x N x 2 bytes) adds eo x its time (an unhidden epilogue);
         also carried with eo = 0 on H100 (a Hopper epilogue overlapped by TMA stores)
Then (4) the fraction of dense peak each GEMM reaches at M = 4096 on the three GPUs, the evidence
that H100's mlp_down is fast for a reason its shape does not give.
SM counts and clocks: hardware/*.yaml (the boost clock derived from the FP32 peak, as there).
Usage: python3 tools/operator-prototype/gemm_down_h100.py   (about 10 minutes, pure Python)
"""
import csv, glob, math, os, statistics as st, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prototype as P  # the Nelder-Mead fitter the other prototypes share
D=os.path.join(os.path.dirname(os.path.abspath(__file__)),'..','..','data','operator_timings')
# Dense BF16 peak and HBM bandwidth as the catalog files give them, each citing its datasheet:
# hardware/a100-sxm4-80gb.yaml (312 TFLOP/s, 2,039 GB/s), hardware/h100-sxm.yaml (989.4 TFLOP/s
# dense = 1,979 sparse / 2, 3.35 TB/s), data/operator_timings/gpus/a40.yaml (149.7 TFLOP/s, 696 GB/s).
GPU={'a100':dict(peak=312e12,bw=2.039e12,sm=108,clk=1.41e9),
     'h100':dict(peak=989.4e12,bw=3.35e12,sm=132,clk=1.98e9),
     'a40':dict(peak=149.7e12,bw=696e9,sm=84,clk=1.74e9)}
KINDS=['qkv','o','up','down']
def load(g):
    S=[]
    for f in sorted(glob.glob(f'{D}/{g}/*.csv')):
        m=os.path.basename(f)[:-4]
        for r in csv.DictReader(open(f)):
            tp=int(r['num_tensor_parallel_workers']);T=int(r['num_tokens']);E=int(r['n_embd']);F=int(r['n_expanded_embd']);H=int(r['n_head']);KV=int(r['n_kv_head'])
            hd=E//H; h=H/tp; kv=max(KV/tp,1)
            ms=lambda c: float(r[f'time_stats.{c}.median'])*1e-3
            for kind,K,N,col in [('qkv',E,(h+2*kv)*hd,'attn_pre_proj'),('o',h*hd,E,'attn_post_proj'),('up',E,2*F/tp,'mlp_up_proj'),('down',F/tp,E,'mlp_down_proj')]:
                S.append(dict(kind=kind,M=T,K=K,N=N,flops=2*T*K*N,bytes=2*(K*N+T*K+T*N),w=2*K*N,a=2*T*K,out=2*T*N,meas=ms(col),model=m,tp=tp))
    toks=sorted({s['M'] for s in S}); test={t for i,t in enumerate(toks) if i%4==3}
    for s in S: s['test']=s['M'] in test
    return S
def med(v): return st.median(v) if v else float('nan')
# params: list of (name, lo, hi, start)
def fitv(model, params, S, g, restarts=None):
    lo=[p[1] for p in params]; hi=[p[2] for p in params]
    L=lambda u:1/(1+math.exp(-max(-50,min(50,u))))
    conv=lambda x:{p[0]:lo[i]+(hi[i]-lo[i])*L(x[i]) for i,p in enumerate(params)}
    def lg(v,i): q=(v-lo[i])/(hi[i]-lo[i]); return math.log(q/(1-q))
    tr=[s for s in S if not s['test']]
    def cost(x):
        pr=model(conv(x),g); return sum((pr(s)/s['meas']-1)**2 for s in tr)
    best=None
    for st0 in (restarts or [{}]):
        x0=[lg(st0.get(p[0],p[3]),i) for i,p in enumerate(params)]
        x,v=P.nm(cost,x0,steps=[0.5]*len(x0),iters=1500,tol=1e-10)
        x,v=P.nm(cost,x,steps=[0.1]*len(x),iters=1500,tol=1e-10)
        if best is None or v<best[1]: best=(x,v)
    return conv(best[0])
def errs(S,pred,sel=None):
    return {k:100*med([abs(pred(s)/s['meas']-1) for s in S if s['kind']==k and (sel is None or sel(s))]) for k in KINDS}
def bias(S,pred):
    return {k:100*med([pred(s)/s['meas']-1 for s in S if s['kind']==k]) for k in KINDS}
def fmt(d): return ' '.join(f'{k}:{v:5.1f}' for k,v in d.items())


def model(var, p, g, hopper_epilogue_hidden=False):
    G = GPU[g]
    rate = min(G['bw'], p['b'] * G['sm'] * G['clk']) if 'r' in var else G['bw'] * p['gm']
    eo = 0.0 if var != 're' or (hopper_epilogue_hidden and g == 'h100') else p['eo']
    def f(s):
        fill = s['M'] / (s['M'] + p['half']); c = s['flops'] / (G['peak'] * p['gc'] * fill); m = s['bytes'] / rate
        return max(c, m) + (1 - p['ov']) * min(c, m) + eo * s['out'] / rate + p['ko']
    return f


def params(var):
    P = [('gc', 0.05, 1, 0.76), ('half', 0.01, 4096, 17), ('ov', 0, 1, 0.5), ('ko', 0, 50e-6, 5e-6)]
    P += [('b', 1, 40, 11.9)] if 'r' in var else [('gm', 0.05, 0.98, 0.88)]
    if var == 're': P.append(('eo', 0, 3, 0.3))
    return P


def main():
    data = {g: load(g) for g in GPU}
    for var in ('base', 'r', 're'):
        for src, starts in (('a100', [{'half': 8}, {'half': 32}]), ('h100', [{'half': 120, 'ov': 0.85}])):
            p = fitv(lambda q, g: model(var, q, g), params(var), data[src], src, restarts=starts)
            print(var, src, 'fit', {k: round(v * 1e6 if k == 'ko' else v, 4) for k, v in p.items()})
            for g in GPU:
                f = model(var, p, g)
                print(f'  {var} {src} -> {g}: median |err| %', fmt(errs(data[g], f)), '| signed', fmt(bias(data[g], f)))
            if var == 're':
                f = model(var, p, 'h100', True)
                print(f'  {var} {src} -> h100, eo = 0 there:', fmt(errs(data['h100'], f)), '| signed', fmt(bias(data['h100'], f)))
    print('4. fraction of dense peak at M = 4096 (A100 / H100 / A40)')
    idx = {g: {(s['model'], s['tp'], s['M'], s['kind']): s for s in data[g]} for g in GPU}
    e = lambda s, g: s['flops'] / (GPU[g]['peak'] * s['meas'])
    for k in KINDS:
        for m in ('llama-2-7b', 'internlm-20b', 'codellama-34b', 'llama-2-70b', 'qwen-72b'):
            cells = []
            for tp in (1, 2, 4, 8):
                key = (m, tp, 4096, k)
                if key in idx['h100'] and key in idx['a100'] and key in idx['a40']:
                    s = idx['h100'][key]
                    cells.append(f"tp{tp} K{s['K']:.0f} N{s['N']:.0f} {e(idx['a100'][key], 'a100'):.2f}/{e(s, 'h100'):.2f}/{e(idx['a40'][key], 'a40'):.2f}")
            print(f'  {k:4s} {m:14s}', ' | '.join(cells))


if __name__ == '__main__':
    main()
