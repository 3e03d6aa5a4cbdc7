#!/usr/bin/env bash
# ctest docs_outputs_catch_a_price_change: the docs check is not a rubber stamp. In a copy of
# the tree (README.md, docs/, scenarios/, hardware/, the docs tool; models/ and data/ linked),
# the README's printed blocks match as committed; with the H100's price moved from 2.99 to
# 3.00 USD/h they do not, and the diff shows the cost line.
# usage: check_docs_catch_drift.sh SERVESIM REPO_ROOT WORK_DIR
set -euo pipefail
servesim=$1 root=$2 work=$3
rm -rf "$work"
mkdir -p "$work/copy/tools"
cp -r "$root/README.md" "$root/docs" "$root/scenarios" "$root/hardware" "$work/copy/"
cp -r "$root/tools/docs" "$work/copy/tools/"
ln -s "$root/models" "$work/copy/models"
ln -s "$root/data" "$work/copy/data"
check() { python3 "$work/copy/tools/docs/docs_outputs.py" --check --servesim "$servesim" --only README.md > "$work/$1.txt" 2>&1; }
if ! check as-committed; then
  echo "FAIL: the README's printed blocks do not match even before the change:"; cat "$work/as-committed.txt"; exit 1
fi
grep -q 'on_demand: "2.99 USD/h"' "$work/copy/hardware/h100-sxm.yaml" || { echo "FAIL: h100-sxm.yaml has no 2.99 USD/h price to move"; exit 1; }
sed -i 's|on_demand: "2.99 USD/h"|on_demand: "3.00 USD/h"|' "$work/copy/hardware/h100-sxm.yaml"
if check price-moved; then
  echo "FAIL: the docs check passed after the H100 price changed from 2.99 to 3.00 USD/h"; cat "$work/price-moved.txt"; exit 1
fi
if ! grep -q '^-cost .*\$2\.99/hour' "$work/price-moved.txt" || ! grep -q '^+cost .*\$3\.00/hour' "$work/price-moved.txt"; then
  echo "FAIL: the check failed, but not on the cost line:"; cat "$work/price-moved.txt"; exit 1
fi
echo "ok: README blocks match as committed; with the H100 at 3.00 USD/h the check fails on:"
grep '^[-+]cost' "$work/price-moved.txt"
rm -rf "$work"
