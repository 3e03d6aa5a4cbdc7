#!/usr/bin/env bash
# Simulator speed and memory benchmark (not a test: its numbers depend on the
# machine). Runs the chat workload of scenarios/bench-chat-1m.yaml on one
# replica (Llama-3.1-8B bf16 / H100, Poisson arrivals, lognormal ~1k-token
# prompts, 64-512 output tokens) for 1M and 100k requests, and reports simulated
# requests per second of wall time and of CPU (user + sys) time, and the peak
# resident memory (/usr/bin/time -v "Maximum resident set size").
#
# Two arrival rates: 20 req/s as specified, which with the default (uncalibrated)
# cost model is more than one H100 sustains, so the waiting queue (and with it
# memory) grows through the run; and 12 req/s, below saturation, where memory
# must not grow with the trace length (1M vs 100k).
#
# Usage: tools/bench/sim-speed.sh [path/to/servesim]   (default: build/servesim)
#   RATES="20 12" SIZES="1000000 100000" REPEAT=3 tools/bench/sim-speed.sh
# The best of REPEAT runs (default 1) is reported for the timings.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$here/build/servesim}"
scenario="$here/scenarios/bench-chat-1m.yaml"
rates="${RATES:-20 12}"
sizes="${SIZES:-1000000 100000}"
repeat="${REPEAT:-1}"
[ -x "$bin" ] || { echo "no servesim binary at $bin (build first, or pass its path)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)  # one core

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %-9s %9s %9s %13s %13s %9s  %s\n' "rate" "requests" "wall_s" "cpu_s" "req/s(wall)" "req/s(cpu)" "peak_MB" "note"
for rate in $rates; do
  for n in $sizes; do
    best_wall=""; best_cpu=""; rss=0
    for ((i = 0; i < repeat; i++)); do
      "${pin[@]}" /usr/bin/time -v "$bin" run "$scenario" --set "workload.requests=$n" \
        --set "workload.arrival.rate=$rate" --json >"$tmp/out.json" 2>"$tmp/time.txt"
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time.txt")
      cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$tmp/time.txt")
      r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
      if [ -z "$best_wall" ] || awk "BEGIN {exit !($wall < $best_wall)}"; then best_wall=$wall; fi
      if [ -z "$best_cpu" ] || awk "BEGIN {exit !($cpu < $best_cpu)}"; then best_cpu=$cpu; fi
      [ "$r" -gt "$rss" ] && rss=$r
    done
    completed=$(grep -o '"completed": *[0-9]*' "$tmp/out.json" | head -1 | grep -o '[0-9]*$')
    queue_max=$(grep -o '"queue_length_max": *[0-9]*' "$tmp/out.json" | head -1 | grep -o '[0-9]*$')
    note="completed=$completed queue_max=$queue_max"
    awk -v rate="$rate" -v n="$n" -v w="$best_wall" -v c="$best_cpu" -v rss="$rss" -v note="$note" 'BEGIN {
      printf "%-6s %-9s %9.2f %9.2f %13.0f %13.0f %9.1f  %s\n", rate, n, w, c, n / (w > 0 ? w : 1e-9), n / (c > 0 ? c : 1e-9), rss / 1024, note }'
  done
done
