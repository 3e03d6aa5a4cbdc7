#!/usr/bin/env python3
"""`run --json`, `sweep --csv` and `plan --json` carry the uncertainty bands (data/uncertainty/bands.json).

usage: test_run_bands.py SERVESIM_BINARY SOURCE_DIR
Checks: an H100 vLLM run has lo <= hi around each TTFT/TPOT/E2E statistic with its group and n;
a GPU family no measured run covers (MI300X, cdna3) or fp8 weights say so instead of giving a band; the sweep
CSV has bands.* columns; each feasible plan candidate has a bands object.
"""
import csv
import io
import json
import os
import subprocess
import sys

binary, root = sys.argv[1], sys.argv[2]
env = dict(os.environ, SERVESIM_HOME=root)


def servesim(*args):
    r = subprocess.run([binary, *args], cwd=root, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"servesim {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return r.stdout


quick = os.path.join(root, "scenarios", "quickstart.yaml")
j = json.loads(servesim("run", quick, "--set", "workload.requests=200", "--json"))
b = j["bands"]
assert b["available"] is True, b
assert b["key"] == {"calibrated": False, "gpu_family": "hopper", "framework": "vllm", "load": b["key"]["load"],
                    "uncovered": []}, b["key"]
# A short run replays 4 more seeds and widens its bands by their spread (docs/validation.md).
assert b["seed_spread"]["seeds"] == [2, 3, 4, 5], b.get("seed_spread")
for metric in ("ttft_ms", "tpot_ms", "e2e_ms"):
    for stat in ("mean", "p50", "p90", "p99"):
        band = b[metric][stat]
        assert 0 < band["lo"] <= band["hi"], (metric, stat, band)
        assert band["n"] >= 8 and band["group"] and band["label"] and band["from"], band

far = json.loads(servesim("run", quick, "--set", "workload.requests=200", "--set", "hardware.gpu=mi300x", "--json"))
assert far["bands"]["available"] is False, far["bands"]
assert "cdna3" in far["bands"]["reason"], far["bands"]["reason"]
text = servesim("run", quick, "--set", "workload.requests=200", "--set", "hardware.gpu=mi300x")
assert "no band" in text, text
# A run using what no measured run did (fp8 weights) gets no band, naming it.
fp8 = json.loads(servesim("run", quick, "--set", "workload.requests=200", "--set", "model.weights=fp8", "--json"))
assert fp8["bands"]["available"] is False and "fp8 weights" in fp8["bands"]["reason"], fp8["bands"]
# ... and so do speculative decoding and a prefill/decode disaggregated deployment.
for scenario, what in (("spec-decode-eagle.yaml", "speculative decoding"),
                       ("disaggregated-1p2d.yaml", "prefill/decode disaggregation")):
    other = json.loads(servesim("run", os.path.join(root, "scenarios", scenario), "--set", "workload.requests=200",
                                "--json"))
    assert other["bands"]["available"] is False and what in other["bands"]["reason"], (scenario, other["bands"])

rows = list(csv.DictReader(io.StringIO(servesim("sweep", quick, "--set", "workload.requests=200",
                                                "--vary", "engine.max_num_seqs=32,64", "--csv"))))
assert len(rows) == 2 and float(rows[0]["bands.tpot_ms.mean.lo"]) > 0 and rows[0]["bands.tpot_ms.mean.group"], rows[0]

plan = json.loads(servesim("plan", os.path.join(root, "scenarios", "quickstart.yaml"), "--trial-requests", "200",
                           "--json"))
feasible = [c for c in plan["candidates"] if not c["error"]]
assert feasible and all("bands" in c for c in feasible), [c["label"] for c in feasible]
print("ok")
