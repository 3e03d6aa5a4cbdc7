#!/usr/bin/env python3
"""Writes docs/seeds.md: what the two seed articles ask, what servesim answers.

Usage: tools/docs/seeds_page.py [--bin build/servesim] [--quick]

Each section runs servesim sweeps (the commands are printed in the page, so
every number there can be reproduced by hand), keeps the CSV under
docs/seeds/, draws a chart with gnuplot into docs/img/seeds-*.svg/png and
writes a short table. The claims quoted are the seeds' (../shared/docs/seeds/);
the numbers are servesim's, with catalog defaults (no calibration): read them as
what the model says, with the error bars of docs/validation-report.md.
Only the Python standard library and gnuplot are needed.
"""
import argparse
import csv
import io
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_DIR = "docs/seeds"
IMG_DIR = "docs/img"
BASE = "scenarios/quickstart.yaml"  # Llama-3.1-8B, one H100, vLLM v1, chat lengths


class Page:
    def __init__(self, binary, quick):
        self.bin = binary
        self.requests = 300 if quick else 1000
        self.out = []

    def sweep(self, name, scenario, sets, vary):
        """Runs one sweep, stores its CSV as docs/seeds/NAME.csv, returns (rows, command)."""
        args = [self.bin, "sweep", scenario, "--csv", "-j", "2", "--set", "workload.requests=%d" % self.requests]
        for s in sets:
            args += ["--set", s]
        for v in vary:
            args += ["--vary", v]
        shown = "./build/servesim " + " ".join(shlex.quote(a) for a in args[1:])
        res = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("seeds_page: %s failed:\n%s" % (shown, res.stderr))
        with open(os.path.join(ROOT, DATA_DIR, name + ".csv"), "w") as f:
            f.write(res.stdout)
        rows = list(csv.DictReader(io.StringIO(res.stdout)))
        bad = [r for r in rows if r["status"] != "ok"]
        if bad:
            sys.exit("seeds_page: %s: point %s is %s (%s)" % (shown, bad[0]["point"], bad[0]["status"], bad[0]["reason"]))
        return rows, shown

    def w(self, text=""):
        self.out.append(text)

    def table(self, header, rows):
        self.w("| " + " | ".join(header) + " |")
        self.w("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
        for r in rows:
            self.w("| " + " | ".join(r) + " |")
        self.w()

    def commands(self, cmds):
        self.w("```")
        for c in cmds:
            self.w(c)
        self.w("```")
        self.w()


def f(x, digits=1):
    return "%.*f" % (digits, float(x))


def chart(name, title, xlabel, ylabel, series, logx=False, logy=False):
    """series: [(label, [(x, y), ...])]; writes docs/img/seeds-NAME.{svg,png}."""
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for i, (label, pts) in enumerate(series):
            path = os.path.join(tmp, "s%d.dat" % i)
            with open(path, "w") as fh:
                for x, y in pts:
                    fh.write("%r %r\n" % (float(x), float(y)))
            plots.append("'%s' using 1:2 with linespoints lw 2 pt %d title '%s'" % (path, 7 + 2 * i, label.replace("'", "")))
        body = ["set grid lc rgb '#dddddd'", "set key outside right top",
                "set title '%s' font ',13'" % title, "set xlabel '%s'" % xlabel, "set ylabel '%s'" % ylabel,
                "set logscale x" if logx else "", "set logscale y" if logy else "",
                "plot " + ", ".join(plots)]
        for term, ext in (("svg size 900,420 dynamic font 'sans,11'", "svg"), ("pngcairo size 900,420 font 'sans,10'", "png")):
            script = "set terminal %s\nset output '%s'\n%s\n" % (
                term, os.path.join(ROOT, IMG_DIR, "seeds-%s.%s" % (name, ext)), "\n".join(body))
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return "![%s](img/seeds-%s.svg)" % (title, name)


def by(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(r[key], []).append(r)
    return groups


def model_size(p):
    p.w("## 1. Is a smaller model faster?")
    p.w()
    p.w("> 模型越小，通常越快 — *smaller is usually faster, but parameter count is not the whole story.*")
    p.w()
    configs = [("llama-3.1-8b", "h100-sxm", 1), ("qwen3-14b", "h100-sxm", 1), ("llama-3.1-70b", "h100-sxm", 4),
               ("llama-3.1-70b", "h200-sxm", 2)]
    rows_out, cmds = [], []
    for model, gpu, tp in configs:
        rows, cmd = p.sweep("model-%s-%s-tp%d" % (model, gpu, tp), BASE,
                            ["model.name=%s" % model, "hardware.gpu=%s" % gpu, "parallelism.tp=%d" % tp],
                            ["workload.arrival.rate=0.5,4"])
        cmds.append(cmd)
        lo, hi = rows[0], rows[1]
        rows_out.append([model, "%s x%d" % (gpu, tp), f(lo["ttft_ms.p50"]), f(lo["tpot_ms.p50"], 2),
                         f(hi["ttft_ms.p50"]), f(hi["tpot_ms.p50"], 2),
                         f(float(hi["throughput.output_tokens_per_s_per_gpu"]), 0)])
    p.table(["model", "GPUs", "TTFT p50 @0.5 req/s (ms)", "TPOT p50 @0.5 (ms)", "TTFT p50 @4 req/s (ms)",
             "TPOT p50 @4 (ms)", "output tok/s per GPU @4"], rows_out)
    p.w("Decode is memory-bound: TPOT follows the bytes of weights read per step divided by the GPUs'")
    p.w("bandwidth, so a 70B model on four H100s (4 × 3.35 TB/s) decodes at a speed comparable to an 8B model")
    p.w("on one, while costing four GPUs; per GPU it delivers far fewer tokens. The same 70B on two H200s")
    p.w("(4.8 TB/s each) sits between: the hardware, not only the parameter count, sets the speed.")
    p.w()
    p.commands(cmds)


def context_length(p):
    p.w("## 2. Why does a long context make the first token slow?")
    p.w()
    p.w("> 上下文越长，首 Token 延迟也会越高 — *Prefill sets the first-token time; decode the speed after it.*")
    p.w()
    rows, cmd = p.sweep("context", BASE, ["workload.input_tokens={dist: fixed, value: 1}", "workload.arrival.rate=0.1"],
                        ["workload.input_tokens.value=256,1024,4096,16384,32000", "model.name=llama-3.1-8b,qwen3-14b"])
    series = []
    for model, rs in by(rows, "model.name").items():
        series.append(("%s TTFT p50" % model, [(r["workload.input_tokens.value"], r["ttft_ms.p50"]) for r in rs]))
    p.w(chart("context", "TTFT vs prompt length (one H100, 0.1 req/s)", "prompt tokens", "TTFT p50 (ms)", series,
              logx=True, logy=True))
    p.w()
    p.table(["model", "prompt tokens", "TTFT p50 (ms)", "TPOT p50 (ms)"],
            [[r["model.name"], r["workload.input_tokens.value"], f(r["ttft_ms.p50"]), f(r["tpot_ms.p50"], 2)] for r in rows])
    p.w("At 0.1 req/s requests rarely overlap, so this is the prompt's own cost. TTFT grows about linearly")
    p.w("with the prompt while the weight GEMMs dominate, and faster than linearly at tens of thousands of")
    p.w("tokens where attention's quadratic term takes over; TPOT grows more slowly (each decode step reads")
    p.w("the weights once plus this request's KV, which is what a long prompt adds). At 0.5 req/s the 32k-token")
    p.w("prompts would already saturate the GPU: prefill alone takes about 1.2 s of each 2 s.")
    p.w()
    p.commands([cmd])


def gpus(p):
    p.w("## 3. How much does the GPU matter?")
    p.w()
    p.w("> 模型不变，GPU 不同，最终速度可能完全不同 — *same model, different GPU, different speed.*")
    p.w()
    rows, cmd = p.sweep("gpus", BASE, [], ["hardware.gpu=a100-sxm4-80gb,l40s,h100-sxm,h200-sxm,b200",
                                            "workload.arrival.rate=1,6"])
    out = []
    for gpu, rs in by(rows, "hardware.gpu").items():
        lo, hi = rs[0], rs[1]
        out.append([gpu, f(lo["ttft_ms.p50"]), f(lo["tpot_ms.p50"], 2), f(hi["ttft_ms.p99"]), f(hi["tpot_ms.p99"], 2),
                    hi["slo.met"]])
    p.table(["GPU", "TTFT p50 @1 req/s (ms)", "TPOT p50 @1 (ms)", "TTFT p99 @6 req/s (ms)", "TPOT p99 @6 (ms)",
             "SLOs met @6 (TTFT p99 ≤ 500 ms, TPOT p99 ≤ 50 ms)"], out)
    p.w("At low load TPOT tracks memory bandwidth (A100 2.0, L40S 0.86, H100 3.35, H200 4.8, B200 8 TB/s per")
    p.w("the catalog's cited datasheets); TTFT tracks dense tensor FLOP/s.")
    p.w()
    p.commands([cmd])


def quantization(p):
    p.w("## 4. Does quantization make it faster? By how much, and when?")
    p.w()
    p.w("> 量化能在几乎不损失精度的前提下，将推理速度提升2-3倍 — *one seed says 2-3× faster;*")
    p.w("> 量化不等于一定更快 — *the other says: not necessarily.*")
    p.w()
    rates = "workload.arrival.rate=0.5,2,4,6,8,10,12"
    rows, cmd = p.sweep("quantization", "scenarios/whatif-quantization.yaml", [],
                        ["model.weights=bf16,fp8,int4", rates])
    series = []
    for wt, rs in by(rows, "model.weights").items():
        series.append((wt + " TPOT p50", [(r["workload.arrival.rate"], r["tpot_ms.p50"]) for r in rs]))
    p.w(chart("quantization", "Llama-3.1-8B on one H100: TPOT vs load by weight precision", "offered load (req/s)",
              "TPOT p50 (ms)", series, logy=True))
    p.w()
    base = {r["workload.arrival.rate"]: r for r in rows if r["model.weights"] == "bf16"}
    out = []
    for r in rows:
        if r["model.weights"] == "bf16":
            continue
        b = base[r["workload.arrival.rate"]]
        out.append([r["model.weights"], r["workload.arrival.rate"], f(float(b["tpot_ms.p50"]) / float(r["tpot_ms.p50"]), 2),
                    f(float(b["ttft_ms.p50"]) / float(r["ttft_ms.p50"]), 2), r["slo.met"]])
    p.table(["weights", "load (req/s)", "TPOT speed-up vs bf16", "TTFT speed-up vs bf16", "SLOs met"], out)
    p.w("The gain depends on the regime. At low load decode is bandwidth-bound and fewer weight bytes make")
    p.w("each step shorter (int4 less than 4× because the KV cache, activations and dequantisation are not")
    p.w("shrunk); under load the batch grows, steps become compute-bound, and the gain comes mostly from the")
    p.w("KV room freed by smaller weights (more sequences fit) and, for fp8, from fp8 tensor cores.")
    p.w()
    p.commands([cmd])


def concurrency(p):
    p.w("## 5. Why does it get slower when more people use it?")
    p.w()
    p.w("> 单个用户最快 和 整个系统吞吐最高 并不是同一件事 — *fastest for one user is not highest throughput.*")
    p.w()
    rows, cmd = p.sweep("concurrency", BASE, [], ["workload.arrival.rate=0.5,2,4,6,8,10,12,14"])
    p.w(chart("concurrency", "Llama-3.1-8B on one H100: per-user speed vs system throughput",
              "output tokens/s (whole GPU)", "per-user tokens/s (1000 / TPOT p50)",
              [("chat workload", [(r["throughput.output_tokens_per_s"], 1000.0 / float(r["tpot_ms.p50"])) for r in rows])]))
    p.w()
    p.table(["offered req/s", "output tok/s", "batch (mean)", "TTFT p99 (ms)", "TPOT p50 (ms)", "SLOs met"],
            [[r["workload.arrival.rate"], f(r["throughput.output_tokens_per_s"], 0), f(r["utilization.batch_size_mean"]),
              f(r["ttft_ms.p99"]), f(r["tpot_ms.p50"], 2), r["slo.met"]] for r in rows])
    p.w("Batching multiplies throughput many times over while each user's token rate falls only slowly, until")
    p.w("the queue starts to grow: beyond that point TTFT explodes and the SLO column turns false.")
    p.w()
    p.commands([cmd])


def frameworks(p):
    p.w("## 6. Same model, different framework?")
    p.w()
    p.w("> 模型相同，不代表性能相同 — *the framework is part of the performance.*")
    p.w()
    rows, cmd = p.sweep("frameworks", BASE, [], ["engine.framework=vllm-v1,vllm-2023-eager,sglang,trtllm",
                                                  "workload.arrival.rate=1,8"])
    out = []
    for fw, rs in by(rows, "engine.framework").items():
        lo, hi = rs[0], rs[1]
        out.append([fw, f(lo["ttft_ms.p50"]), f(lo["tpot_ms.p50"], 2), f(hi["ttft_ms.p99"]), f(hi["tpot_ms.p50"], 2),
                    hi["slo.met"]])
    p.table(["framework preset", "TTFT p50 @1 (ms)", "TPOT p50 @1 (ms)", "TTFT p99 @8 (ms)", "TPOT p50 @8 (ms)",
             "SLOs met @8"], out)
    p.w("The presets differ in CPU time per step and per sequence, kernel-launch cost (CUDA graphs or eager),")
    p.w("asynchronous scheduling, the scheduler and, for trtllm, a faster decode-attention kernel than the")
    p.w("catalog's (docs/validation.md, \"Framework presets\", says which were")
    p.w("fitted and on what). A 2023 eager-mode vLLM pays a launch floor on every small decode step.")
    p.w()
    p.commands([cmd])


def speculative(p):
    p.w("## 7. Speculative decoding: fewer passes of the big model — at what load does it stop paying?")
    p.w()
    p.w("> 投机采样 … 显著降低了大模型的推理次数 — *a small model drafts, the big one verifies.*")
    p.w()
    rates = "workload.arrival.rate=1,4,8,12,16,20,24,28,32"
    on, cmd_on = p.sweep("speculative-on", "scenarios/spec-decode-eagle.yaml", [], [rates])
    off, cmd_off = p.sweep("speculative-off", "scenarios/spec-decode-eagle.yaml", ["engine.speculative=null"], [rates])
    speedup = [(a["workload.arrival.rate"], float(b["tpot_ms.p50"]) / float(a["tpot_ms.p50"])) for a, b in zip(on, off)]
    p.w(chart("speculative", "EAGLE k=4, alpha=0.7, Llama-3.1-8B on one H100: TPOT speed-up vs load",
              "offered load (req/s)", "TPOT p50 without / with speculation", [("speed-up", speedup), ("break-even", [(1, 1), (32, 1)])]))
    p.w()
    p.table(["load (req/s)", "TPOT p50 without (ms)", "TPOT p50 with (ms)", "speed-up", "batch (mean) with",
             "overloaded without / with"],
            [[a["workload.arrival.rate"], f(b["tpot_ms.p50"], 2), f(a["tpot_ms.p50"], 2), f(s, 2),
              f(a["utilization.batch_size_mean"]), "%s / %s" % (b["load.overloaded"], a["load.overloaded"])]
             for a, b, (_, s) in zip(on, off, speedup)])
    p.w("With i.i.d. acceptance α = 0.7 and k = 4 a step yields (1 − α^5)/(1 − α) = 2.77 tokens per sequence")
    p.w("in expectation. At low load the verification pass costs about as much as one decode step (memory-bound),")
    p.w("so TPOT falls by nearly that factor less the drafter's cost; as the batch grows, verifying k + 1")
    p.w("positions per sequence makes the step compute-bound and the gain shrinks, then reverses.")
    p.w()
    p.commands([cmd_on, cmd_off])


def energy(p):
    p.w("## 8. Energy: does a busy GPU cost more per token than an idle one?")
    p.w()
    p.w("> 长时间的推理意味着更高的能耗 — *longer inference means more energy.*")
    p.w()
    rows, cmd = p.sweep("energy", BASE, [], ["workload.arrival.rate=0.5,2,8,14"])
    p.table(["load (req/s)", "average board power (W/GPU)", "J per output token", "J per request"],
            [[r["workload.arrival.rate"], f(r["energy.power_w_per_gpu"], 0), f(r["energy.joules_per_output_token"], 3),
              f(r["energy.joules_per_request"], 0)] for r in rows])
    p.w("Board power follows utilisation (docs/energy.md cites the coefficients): a lightly loaded GPU draws")
    p.w("well below its TDP yet spends more energy per token, because that power is shared by few tokens.")
    p.w()
    p.commands([cmd])


def beams(p):
    p.w("## 9. Beam search: how much slower?")
    p.w()
    p.w("> 解码策略如Beam Search虽然能提升生成质量，但会显著增加耗时 — *beam search makes it much slower.*")
    p.w()
    rows, cmd = p.sweep("beams", "scenarios/beam-search.yaml", [], ["workload.sampling.beam_width=1,2,4,8"])
    p.table(["beam width", "TPOT p50 (ms)", "TTFT p99 (ms)", "served / offered req/s", "overloaded"],
            [[r["workload.sampling.beam_width"], f(r["tpot_ms.p50"], 2), f(r["ttft_ms.p99"]),
              "%s / %s" % (f(r["load.served_rps"], 2), f(r["load.offered_rps"], 2)), r["load.overloaded"]] for r in rows])
    p.w("Each beam is a sequence in the batch: b beams decode like a batch of b at the shared context (the")
    p.w("prompt's KV is shared, each beam holds its own last block). The cost per request grows with b once")
    p.w("the batch leaves the memory-bound regime, and the GPU serves fewer users at the same latency.")
    p.w()
    p.commands([cmd])


def patience(p):
    p.w("## 10. Users who leave after 3-5 seconds")
    p.w()
    p.w("> 一旦推理耗时超过3秒，用户流失率将显著上升 — *beyond 3 s, users start to leave.*")
    p.w()
    on, cmd_on = p.sweep("patience-on", "scenarios/patience.yaml", [], ["workload.arrival.rate=3,5"])
    off, cmd_off = p.sweep("patience-off", "scenarios/patience.yaml", ["workload.patience=null"], ["workload.arrival.rate=3,5"])
    p.table(["conversations started per s (3 turns each)", "patience", "TTFT p99 (ms)", "goodput (req/s)", "abandoned"],
            [[r["workload.arrival.rate"], label, f(r["ttft_ms.p99"]), f(r["slo.goodput_rps"], 2), r["requests.failed"]]
             for label, rows in (("3-5 s", on), ("waits for ever", off)) for r in rows])
    p.w("Users who give up free the GPU for the others: the served requests' TTFT stays near the users'")
    p.w("patience instead of growing with the backlog, and goodput counts the ones who left as misses.")
    p.w()
    p.commands([cmd_on, cmd_off])


SECTIONS = [model_size, context_length, gpus, quantization, concurrency, frameworks, speculative, energy, beams, patience]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/servesim")
    ap.add_argument("--quick", action="store_true", help="300 requests per point instead of 1000")
    a = ap.parse_args()
    binary = a.bin if os.path.isabs(a.bin) else os.path.join(ROOT, a.bin)
    os.makedirs(os.path.join(ROOT, DATA_DIR), exist_ok=True)
    p = Page(binary, a.quick)
    p.w("# What the seeds ask, what servesim answers")
    p.w()
    p.w("servesim grew from two short articles (in Chinese) on why LLM responses are fast or slow and why it")
    p.w("matters. Each section quotes a claim, then lets the simulator answer it with numbers. Catalog defaults,")
    p.w("no calibration: docs/validation-report.md gives the error to expect. Regenerate this page with")
    p.w("`python3 tools/docs/seeds_page.py` (CSV behind every table in docs/seeds/; %d requests per point)." % p.requests)
    p.w()
    for s in SECTIONS:
        s(p)
    with open(os.path.join(ROOT, "docs/seeds.md"), "w") as fh:
        fh.write("\n".join(p.out).rstrip() + "\n")
    print("seeds_page: wrote docs/seeds.md")


if __name__ == "__main__":
    main()
