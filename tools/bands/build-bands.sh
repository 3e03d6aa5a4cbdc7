#!/usr/bin/env bash
# Rebuilds the uncertainty band table data/uncertainty/bands.json and prints its
# leave-one-experiment-out and leave-one-source-out coverage (docs/validation.md,
# "Uncertainty bands"):
#   tools/bands/build-bands.sh [SERVESIM_BINARY] [OUT_JSON]
# It replays every measured vLLM serving run twice (catalog defaults, and the calibrated
# profiles of hardware/calibrated), then `servesim calibrate bands` turns the
# log(measured/predicted) residuals into per-group quantiles. A few minutes.
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
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- sim || echo '+uncommitted')"
"$bin" calibrate bands --defaults "$tmp/defaults.json" --calibrated "$tmp/calibrated.json" \
  --profiles hardware/calibrated --defaults-fitted-on data/uncertainty/defaults_fitted_on.txt \
  --out "$out" --commit "$commit" --date "$(date -u +%F)" \
  --command "tools/bands/build-bands.sh"
