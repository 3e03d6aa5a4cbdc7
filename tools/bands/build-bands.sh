#!/usr/bin/env bash
# Rebuilds the uncertainty band table data/uncertainty/bands.json and prints its
# leave-one-experiment-out and leave-one-source-out coverage (docs/validation.md,
# "Uncertainty bands"):
#   tools/bands/build-bands.sh [SERVESIM_BINARY] [OUT_JSON]
# It replays every measured vLLM serving run twice (catalog defaults, and the calibrated
# profiles of hardware/calibrated) and the ML.ENERGY Benchmark v3 runs (vLLM 0.11.1 on H100
# and B200, batch kept full: their median ITL, with the vllm-v1-sync preset, as vLLM 0.11 ran
# without async scheduling), then `servesim calibrate bands` turns the log(measured/predicted)
# residuals into per-group quantiles, widened by the spread between sources. About 30 s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$(realpath "${1:-$root/build/servesim}")"
out="${2:-$root/data/uncertainty/bands.json}"
cd "$root"
export SERVESIM_HOME="$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# --all: the overloaded runs too; they are the high-load residuals.
"$bin" validate-experiments --all --json >"$tmp/defaults.json"
"$bin" validate-experiments --all --profiles hardware/calibrated --json >"$tmp/calibrated.json"
python3 tools/fit/mlenergy_replay.py --servesim "$bin" --requests-per-slot 8 \
  --set engine.framework=vllm-v1-sync --residuals "$tmp/mlenergy.csv" >"$tmp/mlenergy.txt"
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- sim || echo '+uncommitted')"
"$bin" calibrate bands --defaults "$tmp/defaults.json" --calibrated "$tmp/calibrated.json" \
  --profiles hardware/calibrated --defaults-fitted-on data/uncertainty/defaults_fitted_on.txt \
  --extra "$tmp/mlenergy.csv" --out "$out" --commit "$commit" --date "$(date -u +%F)" \
  --command "tools/bands/build-bands.sh"
