#!/usr/bin/env bash
# ctest: `sweep --shard K/N` files merged by `servesim merge` equal the unsharded
# sweep byte for byte (CSV and JSON), in any shard order; a missing or repeated
# shard and a shard of another sweep are refused with exit 1.
# Usage: sweep_shards.sh SERVESIM SOURCE_DIR WORK_DIR
set -euo pipefail
bin=$1; src=$2; work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$src"
sweep=(sweep scenarios/quickstart.yaml --vary workload.arrival.rate=1:7:1 --vary model.kv_cache=bf16,fp8
       --set workload.requests=30 -j 2)
"$bin" "${sweep[@]}" --out "$work/full.csv" > /dev/null
"$bin" "${sweep[@]}" --out "$work/full.json" > /dev/null
for k in 0 1 2; do "$bin" "${sweep[@]}" --shard "$k/3" --out "$work/shard-$k.jsonl" > /dev/null; done
"$bin" merge "$work/merged.csv" "$work/shard-2.jsonl" "$work/shard-0.jsonl" "$work/shard-1.jsonl" > /dev/null
"$bin" merge "$work/merged.json" "$work/shard-1.jsonl" "$work/shard-2.jsonl" "$work/shard-0.jsonl" > /dev/null
cmp "$work/full.csv" "$work/merged.csv"
cmp "$work/full.json" "$work/merged.json"
# 14 points (7 rates x 2 precisions) round robin over 3 shards: 5, 5 and 4 points.
for k in 0 1 2; do echo "$k $(($(wc -l < "$work/shard-$k.jsonl") - 1))"; done > "$work/counts"
printf '0 5\n1 5\n2 4\n' | diff - "$work/counts"

expect_refusal() {  # WHAT EXPECTED_TEXT COMMAND...
  local what=$1 text=$2; shift 2
  if "$@" > /dev/null 2> "$work/err"; then echo "FAIL: $what was accepted"; exit 1; fi
  grep -q "$text" "$work/err" || { echo "FAIL: $what: expected '$text' in:"; cat "$work/err"; exit 1; }
}
expect_refusal "a missing shard" "shard 1 of 3 missing" "$bin" merge "$work/m.csv" "$work/shard-0.jsonl" "$work/shard-2.jsonl"
expect_refusal "a repeated shard" "given twice" "$bin" merge "$work/m.csv" "$work/shard-0.jsonl" "$work/shard-0.jsonl" "$work/shard-1.jsonl" "$work/shard-2.jsonl"
"$bin" sweep scenarios/quickstart.yaml --vary workload.arrival.rate=1:7:1 --vary model.kv_cache=bf16,fp8 \
  --set workload.requests=31 --shard 1/3 --out "$work/other.jsonl" > /dev/null
expect_refusal "a shard of another sweep" "different sweeps" "$bin" merge "$work/m.csv" "$work/shard-0.jsonl" "$work/other.jsonl" "$work/shard-2.jsonl"
expect_refusal "a bad --shard" "expected K/N" "$bin" "${sweep[@]}" --shard 3/3 --out "$work/x.jsonl"
expect_refusal "a shard file named .csv" "not the sweep's CSV" "$bin" "${sweep[@]}" --shard 0/3 --out "$work/x.csv"
head -c 100 "$work/shard-1.jsonl" > "$work/cut.jsonl"
expect_refusal "a cut shard file" "cut short" "$bin" merge "$work/m.csv" "$work/shard-0.jsonl" "$work/cut.jsonl" "$work/shard-2.jsonl"
[ ! -e "$work/m.csv" ] || { echo "FAIL: a refused merge left $work/m.csv"; exit 1; }
echo "sharded sweeps merge into the unsharded CSV and JSON; bad shard sets refused"
