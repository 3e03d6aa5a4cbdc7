#!/usr/bin/env python3
"""Replays data/beam_search/vllm_pr8726.csv through servesim and prints each run's
throughput against the measurement (docs/beam-search.md, "The fit").

Usage: python3 tools/fit/beam_search_check.py [SERVESIM_BINARY]
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario(row):
    return (
        f"hardware: {{gpu: {row['gpu']}}}\n"
        f"model: {{name: {row['model']}}}\n"
        "parallelism: {tp: 1}\n"
        f"engine: {{framework: {row['framework']}, beam_search: {row['beam_search']}, "
        f"prefix_caching: {row['prefix_caching']}, max_num_seqs: 256}}\n"
        "workload:\n"
        "  seed: 1\n"
        f"  requests: {row['prompts']}\n"
        "  arrival: {process: all_at_once}\n"
        f"  input_tokens: {{dist: fixed, value: {row['input_len']}}}\n"
        f"  output_tokens: {{dist: fixed, value: {row['output_len']}}}\n"
        f"  sampling: {{beam_width: {row['beam_width']}}}\n"
    )


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "servesim")
    path = os.path.join(ROOT, "data", "beam_search", "vllm_pr8726.csv")
    print(f"{'run':<24} {'role':<13} {'measured req/s':>15} {'servesim req/s':>15} {'error':>9}")
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as y:
                y.write(scenario(row))
            try:
                out = subprocess.run([binary, "run", y.name, "--json"], check=True, capture_output=True, text=True)
            finally:
                os.unlink(y.name)
            predicted = json.loads(out.stdout)["throughput"]["requests_per_s"]
            tokens = int(row["input_len"]) + int(row["output_len"])
            measured = float(row["measured_tok_s"]) / tokens
            err = 100.0 * (predicted / measured - 1.0)
            print(f"{row['run']:<24} {row['role']:<13} {measured:>15.4f} {predicted:>15.4f} {err:>+8.1f}%")


if __name__ == "__main__":
    main()
