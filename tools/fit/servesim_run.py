"""Runs `servesim run` on a scenario given as YAML text, with --set edits, and returns the
parsed --json result; and the pieces the offline replay scripts in tools/fit share (an
all-at-once batch of fixed lengths, the median-error summary line)."""
import json
import os
import statistics
import subprocess
import tempfile


def run_json(binary, scenario_text, sets=None):
    """The run's JSON document, or (None, the last line of stderr) when servesim refuses it."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as y:
        y.write(scenario_text)
    try:
        cmd = [binary, "run", y.name, "--json"]
        for k, v in (sets or {}).items():
            cmd += ["--set", f"{k}={v}"]
        out = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(y.name)
    if out.returncode != 0:
        err = out.stderr.strip()
        return None, err.splitlines()[-1] if err else "failed"
    return json.loads(out.stdout), ""


def offline_workload(n, isl, osl):
    """The workload section of an offline batch: n prompts of isl tokens queued at once, each
    generating osl tokens (vLLM's benchmark_throughput.py, trtllm-bench, MLPerf Offline)."""
    return (
        "workload:\n"
        "  seed: 1\n"
        f"  requests: {n}\n"
        "  arrival: {process: all_at_once}\n"
        f"  input_tokens: {{dist: fixed, value: {isl}}}\n"
        f"  output_tokens: {{dist: fixed, value: {osl}}}\n"
    )


def print_error_summary(label, errs, width):
    """One summary line: how many rows, the median |error| and the median signed error (the
    bias); rows servesim refused (None) are left out, and nothing is printed without any."""
    errs = [e for e in errs if e is not None]
    if not errs:
        return
    med = statistics.median(abs(e) for e in errs)
    bias = statistics.median(errs)
    print(f"  {label:<{width}} n={len(errs):3d} median |error| {100 * med:5.1f}% (median {100 * bias:+.1f}%)")
