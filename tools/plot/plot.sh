#!/usr/bin/env bash
# Draws a servesim chart with gnuplot: tools/plot/plot.sh KIND INPUT OUTPUT_PREFIX
# writes OUTPUT_PREFIX.png and OUTPUT_PREFIX.svg. KIND: latency | attainment |
# pareto | cost | timeline (see tools/plot/plot.py for the inputs each takes).
set -euo pipefail
exec python3 "$(dirname "$0")/plot.py" "$@"
