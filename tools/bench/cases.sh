#!/usr/bin/env bash
# Simulator speed on the workloads that leave the plain path (not a test: the
# numbers depend on the machine). Every case is the chat workload of
# scenarios/bench-chat-1m.yaml (Llama-3.1-8B bf16 / H100, Poisson arrivals,
# lognormal ~1k-token prompts, 64-512 output tokens) with --set overrides:
#   plain           1 replica, 12 req/s (below its ~18 req/s capacity)
#   prefix          + prefix caching, 16 shared 1,024-token system prompts
#   prefix-Nr-ROUTER N replicas at N x 12 req/s with that router (each of the four)
#   plain-Nr-ROUTER  the same without prefix caching (32 replicas by default)
#   overload-5x     1 replica at 90 req/s (5x capacity), no guard trip: the
#                   waiting queue grows through the run; bytes/waiting is
#                   (peak RSS - RSS of the 1k-request run) / peak waiting requests
#   multi-turn      prefix caching, 6 turns 30 s apart, 1 conversation/s (6 turns/s)
# Prints simulated requests per CPU second (user + sys: other processes on the
# machine do not count against it), per wall second, and peak RSS, one core pinned;
# then, for each N-replica case, its CPU time per request against the prefix
# case's (one replica at the same per-replica load).
#
# Usage: tools/bench/cases.sh [path/to/servesim]   (default: build/servesim)
#   N=100000 CASES="prefix prefix-8r-prefix_affinity" tools/bench/cases.sh
# N: requests per case (default 1,000,000; overload-5x runs 10 x N).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$here/build/servesim}"
scenario="$here/scenarios/bench-chat-1m.yaml"
n="${N:-1000000}"
[ -x "$bin" ] || { echo "no servesim binary at $bin (build first, or pass its path)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

prefix=(--set engine.prefix_caching=true --set workload.shared_prefix.groups=16 --set workload.shared_prefix.tokens=1024)
routers="round_robin least_outstanding least_kv prefix_affinity"
all="plain prefix"
for r in 8 32; do for k in $routers; do all="$all prefix-${r}r-$k"; done; done
for k in $routers; do all="$all plain-32r-$k"; done
all="$all overload-5x multi-turn"
cases="${CASES:-$all}"

args_of() {  # the --set arguments and request count of case $1
  local c="$1"
  case "$c" in
    plain) echo "$n --set workload.arrival.rate=12" ;;
    prefix) echo "$n --set workload.arrival.rate=12 ${prefix[*]}" ;;
    prefix-*r-*|plain-*r-*)
      local base="${c%%-*}"; local reps="${c#*-}"; reps="${reps%%r-*}"; local router="${c#*-*r-}"
      local extra=""; [ "$base" = prefix ] && extra="${prefix[*]}"
      echo "$n --set workload.arrival.rate=$((12 * reps)) --set parallelism.replicas=$reps" \
        "--set parallelism.router=$router $extra" ;;
    overload-5x) echo "$((10 * n)) --set workload.arrival.rate=90" ;;
    multi-turn) echo "$n --set workload.arrival.rate=1 ${prefix[*]} --set workload.multi_turn.turns=6" \
      "--set workload.multi_turn.think_time=30s --set workload.input_tokens.mean=300" \
      "--set workload.input_tokens.stddev=150 --set workload.input_tokens.max=2000" ;;
    *) echo "unknown case '$c' (cases: $all)" >&2; exit 2 ;;
  esac
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run_case() {  # run_case REQUESTS ARGS...: sets cpu, wall, rss, waiting
  local reqs="$1"; shift
  "${pin[@]}" /usr/bin/time -v "$bin" run "$scenario" --set "workload.requests=$reqs" "$@" --json \
    >"$tmp/out.json" 2>"$tmp/time.txt" || { cat "$tmp/time.txt" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/time.txt")
  cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$tmp/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
  waiting=$(grep -o '"waiting_peak": *[0-9]*' "$tmp/out.json" | head -1 | grep -o '[0-9]*$')
}

printf '%-30s %9s %8s %8s %12s %12s %8s %9s %s\n' case requests cpu_s wall_s 'req/s(cpu)' 'req/s(wall)' peak_MB waiting B/waiting
base_rss=""
declare -A cpu_of  # CPU seconds per case, for the replica ratios printed last
for c in $cases; do
  read -r reqs rest <<<"$(args_of "$c")"
  # shellcheck disable=SC2086
  set -- $rest
  if [ "$c" = overload-5x ] && [ -z "$base_rss" ]; then
    run_case 1000 "$@"
    base_rss=$rss
  fi
  run_case "$reqs" "$@"
  per=""
  if [ "$c" = overload-5x ] && [ "${waiting:-0}" -gt 0 ]; then
    per=$(awk -v r="$rss" -v b="$base_rss" -v w="$waiting" 'BEGIN {printf "%.1f", (r - b) * 1024 / w}')
  fi
  awk -v c="$c" -v n="$reqs" -v cpu="$cpu" -v w="$wall" -v rss="$rss" -v q="${waiting:-0}" -v per="$per" 'BEGIN {
    printf "%-30s %9d %8.2f %8.2f %12.0f %12.0f %8.1f %9d %s\n", c, n, cpu, w, n / (cpu > 0 ? cpu : 1e-9),
      n / (w > 0 ? w : 1e-9), rss / 1024, q, per }'
  cpu_of[$c]=$cpu
done
# Issue 15's replica target: CPU time per request with N replicas against one
# replica's at the same per-replica load (prefix-Nr-* against prefix, plain-Nr-*
# against plain), when both ran.
for c in $cases; do
  base="${c%%-*}"
  case "$c" in
    prefix-*r-*|plain-*r-*)
      [ -n "${cpu_of[$base]:-}" ] || continue
      awk -v c="$c" -v a="${cpu_of[$c]}" -v b="${cpu_of[$base]}" -v base="$base" \
        'BEGIN { if (b > 0) printf "%-30s %.2fx one replica (%s) per request (target for 32 replicas: 1.3x)\n", c, a / b, base }' ;;
  esac
done
