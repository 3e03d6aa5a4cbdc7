#!/usr/bin/env python3
"""The CLI as a new user tries it (issue 39): what they type first and what each answer
must say. Each check runs the real binary from the repository root.

  --version                          prints "servesim X.Y.Z" and exits 0
  run --set slo.ttft_ms.p99=500      says which SLOs apply and where each came from
  run --slo ttft_ms.p99=500          replaces the file's SLOs (tpot_ms is gone from the table)
  run --set hardware.price_per_hour  the cost line uses that price, and its $/M tokens is
                                     price / (output tok/s x 3600) x 1e6
  whatif                             every TTFT cell carries its unit
  plan --emit vllm,kubernetes --out  launch script and Deployment of the candidate `best:` names
  chat-cpu-offload.yaml              the command its comment suggests runs

usage: check_new_user.py SERVESIM REPO_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

SMALL = ["--set", "workload.requests=300", "--seed-replicates", "0"]


def run(servesim, root, args, ok=True):
    r = subprocess.run([servesim] + args, capture_output=True, text=True, cwd=root, timeout=300)
    if ok and r.returncode != 0:
        fail(f"`servesim {' '.join(args)}` exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def expect(text, pattern, what):
    m = re.search(pattern, text, re.M)
    if not m:
        fail(f"{what}: no /{pattern}/ in:\n{text}")
    return m


def main():
    servesim, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    quick = "scenarios/quickstart.yaml"  # its slo: ttft_ms p99 500, tpot_ms p99 50

    out = run(servesim, root, ["--version"]).stdout
    expect(out, r"^servesim \d+\.\d+\.\d+$", "--version")

    out = run(servesim, root, ["run", quick, "--set", "slo.ttft_ms.p99=400"] + SMALL).stdout
    expect(out, r"^SLOs: ttft_ms\.p99 from --set, tpot_ms\.p99 from scenarios/quickstart\.yaml \(--slo replaces",
           "--set slo.* names which SLOs apply")
    expect(out, r"^  ttft_ms p99 <= 400\.0 ms", "--set slo.ttft_ms.p99=400 applied")
    expect(out, r"^  tpot_ms p99 <= 50\.0 ms", "the file's tpot_ms SLO kept under --set")

    out = run(servesim, root, ["run", quick, "--slo", "ttft_ms.p99=400"] + SMALL).stdout
    expect(out, r"^SLOs from --slo only \(ttft_ms\.p99=400\)", "--slo says it replaced the file's SLOs")
    expect(out, r"^  ttft_ms p99 <= 400\.0 ms", "--slo applied")
    if re.search(r"^  tpot_ms p99", out, re.M):
        fail(f"--slo ttft_ms.p99=400 kept the file's tpot_ms SLO:\n{out}")

    out = run(servesim, root, ["run", quick, "--set", "hardware.price_per_hour=4 USD/h"] + SMALL).stdout
    m = expect(out, r"^cost +\$4\.00/hour for 1 GPU \(h100-sxm at \$4\.00/GPU-hour\): \$([0-9.]+) per million "
                    r"output tokens at this run's ([0-9]+) output tok/s", "the cost line at --set price_per_hour")
    usd_per_m, tok_s = float(m.group(1)), float(m.group(2))
    # $4/hour over tok_s x 3600 tokens an hour, per million; both printed rounded (3 decimals, whole tok/s).
    if abs(usd_per_m - 4.0 / (tok_s * 3600) * 1e6) > 0.0015:
        fail(f"cost line: ${usd_per_m}/M tokens is not $4/h / ({tok_s} tok/s x 3600) x 1e6")

    out = run(servesim, root, ["whatif", quick, "--vary", "model.weights=bf16,fp8", "--set", "workload.requests=300",
                               "-j", "2"]).stdout
    header = expect(out, r"^config .*TTFT p50 +TTFT p99.*$", "whatif table header").group(0)
    rows = [l for l in out.splitlines() if l.startswith("model.weights=")]
    if len(rows) != 2:
        fail(f"whatif: expected 2 rows, got {len(rows)}:\n{out}")
    start = header.index("TTFT p50") - 4  # right-aligned cells end under their headers
    for row in rows:
        cells = re.findall(r"[0-9.]+ (?:ms|s)\b", row[start:])
        if len(cells) < 2:
            fail(f"whatif: a TTFT cell without its unit in: {row}")

    with tempfile.TemporaryDirectory(prefix="servesim-new-user-") as tmp:
        plan_dir = os.path.join(tmp, "plan")
        out = run(servesim, root, ["plan", "scenarios/capacity-plan.yaml", "--candidates-gpu", "h100-sxm,h200-sxm",
                                   "--candidates-weights", "fp8", "--candidates-tp", "2,4", "--trial-requests", "100",
                                   "-j", "2", "--emit", "vllm,kubernetes", "--out", plan_dir]).stdout
        best = expect(out, r"^best: (\S+ \S+ tp=\d+)", "plan's best line").group(1)
        for name in ("plan.json", "plan.csv", "launch-vllm.sh", "deployment.yaml"):
            if not os.path.isfile(os.path.join(plan_dir, name)):
                fail(f"plan --emit vllm,kubernetes --out: no {name} in {sorted(os.listdir(plan_dir))}")
        launch = open(os.path.join(plan_dir, "launch-vllm.sh")).read()
        expect(launch, r"^#!/bin/sh$", "launch-vllm.sh is a script")
        expect(launch, r"the best candidate, " + re.escape(best) + r"\.", "launch-vllm.sh names plan's best")
        tp = best.rsplit("tp=", 1)[1]
        expect(launch, r"^  --tensor-parallel-size " + tp + r" \\$", "launch-vllm.sh runs the best candidate's TP")
        expect(launch, r"^# Predicted per replica at [0-9.]+ req/s: TTFT p99 [0-9]+ ms", "predicted SLO figures")
        deployment = open(os.path.join(plan_dir, "deployment.yaml")).read()
        expect(deployment, r"^kind: Deployment$", "deployment.yaml")
        expect(deployment, r'^            nvidia\.com/gpu: "?' + tp + r'"?$', "one pod's GPUs = the candidate's TP")

    text = open(os.path.join(root, "scenarios", "chat-cpu-offload.yaml")).read()
    suggested = expect(text, r"^# Compare: --set '([^']+)'", "chat-cpu-offload.yaml's suggestion").group(1)
    out = run(servesim, root, ["run", "scenarios/chat-cpu-offload.yaml", "--set", suggested,
                               "--set", "workload.requests=100", "--seed-replicates", "0"]).stdout
    expect(out, r"^requests +\d+ completed", f"chat-cpu-offload.yaml with --set '{suggested}'")
    # inspect's local-attention line: a sliding window frees the blocks before its span under
    # vLLM V1's hybrid manager; a top-k selection (DSA) may pick any earlier key, so it keeps them.
    fixtures = "tests/fixtures/hf_configs_2026"
    out = run(servesim, root, ["inspect", "--model", f"{fixtures}/gpt-oss-20b", "--gpu", "h100-sxm"]).stdout
    expect(out, r"^local attention: sliding window of 128 tokens .*KV blocks past the span freed", "gpt-oss's window")
    out = run(servesim, root, ["inspect", "--model", f"{fixtures}/deepseek-v3.2", "--gpu", "h200-sxm", "--tp", "8"]).stdout
    expect(out, r"^local attention: top-k sparse attention \(DSA\).*KV blocks past the span kept \(any earlier key",
           "DSA keeps every block")
    print("ok: --version, --set/--slo SLO sources, cost at a set price, whatif TTFT units, plan --emit, "
          "chat-cpu-offload's suggested command, inspect's local-attention line")


if __name__ == "__main__":
    main()
