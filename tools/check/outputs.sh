#!/usr/bin/env bash
# Writes the outputs of run/sweep/plan/inspect/whatif/validate on every shipped
# scenario into DIR, one file per command, so that two builds can be compared
# byte for byte (a refactoring must not change a result):
#   tools/check/outputs.sh OLD_BINARY /tmp/old && tools/check/outputs.sh build/servesim /tmp/new
#   diff -r /tmp/old /tmp/new
# Request counts are capped at 3,000 per run so the whole set takes about a minute.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$(realpath "${1:?usage: outputs.sh SERVESIM_BINARY OUT_DIR}")"
out="${2:?usage: outputs.sh SERVESIM_BINARY OUT_DIR}"
mkdir -p "$out"
cd "$root"
export SERVESIM_HOME="$root"
cap=(--set workload.requests=3000)
record() {  # record NAME COMMAND...: stdout, stderr and exit status of one command
  local name="$1"; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "$?" >"$out/$name.rc"
}
for s in scenarios/*.yaml; do
  n="$(basename "$s" .yaml)"
  case "$n" in
    validate-*) record "$n.validate" "$bin" validate "$s" --json; continue ;;
  esac
  record "$n.run" "$bin" run "$s" "${cap[@]}" --json
  record "$n.run-text" "$bin" run "$s" "${cap[@]}"
  record "$n.inspect" "$bin" inspect "$s"
  record "$n.sweep" "$bin" sweep "$s" --set workload.requests=500 --vary engine.max_num_seqs=32,128 \
    --vary workload.arrival.rate=1,4 -j 2 --json
done
for s in scenarios/capacity-plan.yaml scenarios/quickstart.yaml scenarios/llama70b-tp4.yaml; do
  n="$(basename "$s" .yaml)"
  record "$n.plan" "$bin" plan "$s" --trial-requests 300 -j 2 --json
done
record whatif "$bin" whatif scenarios/whatif-quantization.yaml --set workload.requests=500 \
  --vary model.weights=bf16,fp8,int4
record offline-batch.sweep-seqs "$bin" sweep scenarios/offline-batch.yaml --vary engine.max_num_seqs=32,128 --json
record validate-experiments "$bin" validate-experiments --json
record calibrate-static "$bin" calibrate static --data data/static_batch/lmdeploy_a100.csv --max-iterations 20 --json
record calibrate-serving "$bin" calibrate serving --gpu a100-sxm4-80gb --split none --params gemm_memory,step_overhead --max-evals 8 --time-scale 0.1
record inspect-flags "$bin" inspect --gpu h100-sxm --model llama-3.1-8b --tp 2
record validate-static "$bin" validate-static --json
record list "$bin" list
exit 0
