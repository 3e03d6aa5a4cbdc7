#!/usr/bin/env bash
# Benchmark (not a test): a 1,000-point sweep of the quickstart scenario
# (10 arrival rates x 10 max_num_seqs x 10 max_num_batched_tokens, 1,000 requests
# per point) with -j2, printing the wall time.
# Usage: tools/bench/sweep-1000.sh [SERVESIM_BINARY] [JOBS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${1:-$root/build/servesim}"
jobs="${2:-2}"
out="$(mktemp -d)/sweep-1000.csv"
start=$(date +%s.%N)
"$bin" sweep "$root/scenarios/quickstart.yaml" \
  --set workload.requests=1000 \
  --vary workload.arrival.rate=2:20:2 \
  --vary engine.max_num_seqs=16:160:16 \
  --vary engine.max_num_batched_tokens=2048:20480:2048 \
  -j "$jobs" --out "$out" > /dev/null
end=$(date +%s.%N)
rows=$(($(wc -l < "$out") - 1))
ok=$(grep -c ',ok,' "$out" || true)
awk -v s="$start" -v e="$end" -v n="$rows" -v ok="$ok" -v j="$jobs" 'BEGIN {
  printf "1000-point sweep: %d rows (%d feasible), -j%s, wall %.2f s (%.1f ms per point)\n", n, ok, j, e - s, 1000 * (e - s) / n }'
rm -f "$out"
