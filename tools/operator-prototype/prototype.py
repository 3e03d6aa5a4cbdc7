#!/usr/bin/env python3
"""Prototype of operator-timing models, to try kernel-efficiency curves before building them
into servesim: reads data/operator_timings/{a100,h100,a40} (the five models all three GPUs have),
rebuilds each op's FLOPs/bytes/kernels as the cost model does, fits a variant and prints its
transfer across GPUs. No numpy/scipy needed. Results are in docs/validation.md ("Tried and not
adopted") and the session report of issue 12 part 1.
"""
import csv, math, sys, statistics as st
import os
D=os.path.join(os.path.dirname(os.path.abspath(__file__)),'..','..','data','operator_timings')
# Datasheet figures (hardware/a100-sxm4-80gb.yaml, hardware/h100-sxm.yaml, data/operator_timings/gpus/a40.yaml).
# SM counts: A100 108 (GA100 whitepaper), H100 SXM5 132 (H100 whitepaper table 3), A40 84 (GA102 whitepaper).
# clk: boost clock derived from the datasheet FP32 peak / (SMs x FP32 lanes per SM x 2):
#   A100 19.5e12 / (108 x 64 x 2) = 1.41 GHz; H100 67e12 / (132 x 128 x 2) = 1.98 GHz; A40 37.4e12 / (84 x 128 x 2) = 1.74 GHz.
GPU={'a100':dict(peak=312e12,bw=2.039e12,sm=108,clk=1.41e9),'h100':dict(peak=989.4e12,bw=3.35e12,sm=132,clk=1.98e9),
     'a40':dict(peak=149.7e12,bw=696e9,sm=84,clk=1.74e9)}
MODELS=['llama-2-7b','llama-2-70b','codellama-34b','internlm-20b','qwen-72b']
KINDS=['qkv','o','up','down','act','norm','rope']
def load(g):
    S=[]
    for m in MODELS:
        for r in csv.DictReader(open(f'{D}/{g}/{m}.csv')):
            tp=int(r['num_tensor_parallel_workers']);T=int(r['num_tokens']);E=int(r['n_embd']);F=int(r['n_expanded_embd']);H=int(r['n_head']);KV=int(r['n_kv_head'])
            hd=E//H; h=H/tp; kv=max(KV/tp,1)
            ms=lambda c: float(r[f'time_stats.{c}.median'])*1e-3
            for kind,K,N,col in [('qkv',E,(h+2*kv)*hd,['attn_pre_proj']),('o',h*hd,E,['attn_post_proj']),('up',E,2*F/tp,['mlp_up_proj']),('down',F/tp,E,['mlp_down_proj'])]:
                S.append(dict(kind=kind,gemm=True,M=T,K=K,N=N,flops=2*T*K*N,bytes=2*(K*N+T*K+T*N),n=1,meas=sum(ms(c) for c in col),model=m,tp=tp))
            S.append(dict(kind='act',gemm=False,bytes=3*T*F/tp*2,n=1,meas=ms('mlp_act'),model=m,tp=tp,M=T,rowbytes=3*F/tp*2))
            S.append(dict(kind='norm',gemm=False,bytes=16*T*E,n=2,meas=ms('input_layernorm')+ms('post_attention_layernorm')+2*ms('add'),model=m,tp=tp,M=T,rowbytes=8*E))
            S.append(dict(kind='rope',gemm=False,bytes=2*T*(h+kv)*hd*2,n=1,meas=ms('attn_rope'),model=m,tp=tp,M=T,rowbytes=2*(h+kv)*hd*2))
    return S
def med(v): return st.median(v) if v else float('nan')
def report(S,pred,label):
    out=[]
    for k in KINDS:
        e=[abs(pred(s)/s['meas']-1) for s in S if s['kind']==k]
        out.append(f"{k}:{100*med(e):5.1f}")
    print(f"{label:28s}"," ".join(out))
def nm(f,x0,steps=None,iters=600,tol=None):
    # tol: stop once the simplex's values agree to tol (relative); None runs all iters.
    n=len(x0); steps=steps or [0.3]*n
    pts=[list(x0)]+[[x0[j]+(steps[i] if j==i else 0) for j in range(n)] for i in range(n)]
    vals=[f(p) for p in pts]
    for it in range(iters):
        o=sorted(range(n+1),key=lambda i:vals[i]); pts=[pts[i] for i in o]; vals=[vals[i] for i in o]
        if tol is not None and vals[-1]-vals[0]<tol*max(1,abs(vals[0])): break
        c=[sum(p[j] for p in pts[:-1])/n for j in range(n)]
        xr=[c[j]+(c[j]-pts[-1][j]) for j in range(n)]; fr=f(xr)
        if fr<vals[0]:
            xe=[c[j]+2*(c[j]-pts[-1][j]) for j in range(n)]; fe=f(xe)
            pts[-1],vals[-1]=(xe,fe) if fe<fr else (xr,fr)
        elif fr<vals[-2]: pts[-1],vals[-1]=xr,fr
        else:
            xc=[c[j]+0.5*(pts[-1][j]-c[j]) for j in range(n)]; fc=f(xc)
            if fc<vals[-1]: pts[-1],vals[-1]=xc,fc
            else:
                for i in range(1,n+1):
                    pts[i]=[pts[0][j]+0.5*(pts[i][j]-pts[0][j]) for j in range(n)]; vals[i]=f(pts[i])
    i=min(range(n+1),key=lambda i:vals[i]); return pts[i],vals[i]
def bucket_report(S,pred,label):
    from collections import defaultdict
    agg=defaultdict(list)
    for s in S:
        b=2**int(math.log2(s['M'])); b=min(b,4096)
        agg[(s['kind'],b)].append(pred(s)/s['meas']-1)
    print(label)
    for k in KINDS:
        print(' ',k,' '.join(f"{b}:{100*st.median(v):+.0f}" for (kk,b),v in sorted(agg.items()) if kk==k))
import math


lg=lambda p: math.log(p/(1-p)); ex=lambda u:1/(1+math.exp(-u))

def model(var, p, g):
    """The step-cost model's closed form per op (as sim/calibration/operator_fit.cpp) with options:
    o: gemm_overlap fitted; e: separate elementwise floor; w: wave quantization over 128x128 tiles;
    i: elementwise throughput capped at p[7] bytes per SM-cycle x SMs x clock."""
    gc,half,gm,ov,ko,em,ke,bc=p; G=GPU[g]
    def f(s):
        if s['gemm']:
            util=1
            if 'w' in var:
                tiles=math.ceil(s['M']/128)*math.ceil(s['N']/128); waves=math.ceil(tiles/G['sm']); util=tiles/(waves*G['sm'])
            fill=s['M']/(s['M']+half)
            c=s['flops']/(G['peak']*gc*util*fill); m=s['bytes']/(G['bw']*gm)
            o=ov if 'o' in var else 1
            return max(c,m)+(1-o)*min(c,m)+ko
        rate=G['bw']*em
        if 'i' in var: rate=min(rate, bc*G['sm']*G['clk'])
        return s['bytes']/rate+s['n']*(ke if 'e' in var else ko)
    return f

def conv(x): return [ex(x[0]),math.exp(x[1]),ex(x[2]),ex(x[3]),math.exp(x[4])*1e-6,ex(x[5]),math.exp(x[6])*1e-6,math.exp(x[7])]

def fit(var, S, g):
    def cost(x):
        pr=model(var,conv(x),g); return sum((pr(s)/s['meas']-1)**2 for s in S)
    x0=[lg(.75),math.log(64),lg(.8),lg(.5),math.log(2.5),lg(.75 if 'i' in var else .55),math.log(2),math.log(6)]
    x,_=nm(cost,x0,iters=800)
    return conv(x)

if __name__ == '__main__':
    # Usage: python3 tools/operator-prototype/prototype.py VARIANT [VARIANT...]  (e.g. o oe ow oei)
    # Fits each variant on every third sample of the A100 and the H100 tables (pure Python
    # Nelder-Mead, a minute or two per variant) and prints median |error| per op kind on all
    # samples: fitted on its own GPU, and carried A100 -> H100, H100 -> A100 and A100 -> A40.
    data={g:load(g) for g in ['a100','h100','a40']}
    for var in sys.argv[1:] or ['o','oe']:
        fits={g:fit(var,data[g][::3],g) for g in ['a100','h100']}
        for g in fits: print(var,g,'fit',[round(v,7) for v in fits[g]])
        report(data['a100'],model(var,fits['a100'],'a100'),f'{var} a100 self')
        report(data['h100'],model(var,fits['h100'],'h100'),f'{var} h100 self')
        report(data['h100'],model(var,fits['a100'],'h100'),f'{var} a100 -> h100')
        report(data['a100'],model(var,fits['h100'],'a100'),f'{var} h100 -> a100')
        report(data['a40'],model(var,fits['a100'],'a40'),f'{var} a100 -> a40')
