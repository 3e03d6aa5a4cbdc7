#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan+libFuzzer) in build-fuzz/
# and runs each for RUNS executions (default 1,000,000) from a copy of its seed
# corpus. Findings (crash-*, timeout-*, oom-*) land in build-fuzz/findings/TARGET/;
# a summary table of executions and findings per target is printed at the end.
# JOBS targets run at once (default 1; the build uses every core either way).
#   tools/fuzz/run-fuzz.sh [TARGET...]      RUNS=200000 JOBS=2 tools/fuzz/run-fuzz.sh fuzz_set
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-1000000}
MAX_TIME=${MAX_TIME:-900}   # seconds per target, whichever of RUNS and MAX_TIME comes first
JOBS=${JOBS:-1}
command -v clang++ >/dev/null || { echo "run-fuzz: clang++ is needed (apt-get install clang)"; exit 1; }
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSERVESIM_FUZZ=ON >/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_scenario fuzz_set fuzz_trace_csv fuzz_trace_azure fuzz_trace_mooncake
                                    fuzz_trace_vllm_bench fuzz_trace_vllm_bench_summary fuzz_trace_guidellm
                                    fuzz_trace_aiperf fuzz_trace_aiperf_summary fuzz_hf_config fuzz_experiments fuzz_sweep_shard
                                    fuzz_report_input fuzz_hf_quant_config fuzz_scenario_keys)
cmake --build build-fuzz --target "${targets[@]}"
summary=build-fuzz/fuzz-summary.txt
: >"$summary"
fuzz_one() {
  local t=$1 corpus=${1#fuzz_}
  local work=build-fuzz/corpus/$corpus findings=build-fuzz/findings/$1 log=build-fuzz/$1.log rc execs found
  mkdir -p "$work" "$findings"
  cp -n fuzz/corpus/"$corpus"/* "$work"/ 2>/dev/null || true
  set +e
  ./build-fuzz/fuzz/"$t" -runs="$RUNS" -max_total_time="$MAX_TIME" -timeout=10 -rss_limit_mb=2048 \
      -max_len=8192 -artifact_prefix="$findings/" -print_final_stats=1 "$work" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  found=$(find "$findings" -type f | wc -l)
  printf '%-30s rc=%-3s executions=%-10s findings=%s\n' "$t" "$rc" "$execs" "$found" >>"$summary"
}
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
sort -o "$summary" "$summary"
cat "$summary"
awk '{split($3, e, "="); n += e[2]} END {printf "total executions: %d\n", n}' "$summary" | tee -a "$summary"
echo "run-fuzz: summary in $summary; logs in build-fuzz/*.log"
