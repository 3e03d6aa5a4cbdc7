#!/usr/bin/env bash
# Installs servesim's build and test dependencies from Debian 12 packages.
# Idempotent: packages already present are left as they are. Run as root (or via sudo).
set -euo pipefail

packages=(
  build-essential   # g++ (C++20) and make
  cmake             # build system
  ninja-build       # faster incremental builds than make
  libeigen3-dev     # least-squares fits in calibration
  libyaml-cpp-dev   # scenario, GPU and model YAML
  libcli11-dev      # command line
  catch2            # unit tests (Catch2 v2 single header in Debian 12)
  libfmt-dev        # formatting
  nlohmann-json3-dev # JSON in and out (config.json, summaries, vllm bench results)
  gnuplot-nox       # plots (PNG/SVG) from tools/ scripts
  python3           # tools/ helper scripts (standard library only)
  pybind11-dev      # the servesim Python module (python/; -DSERVESIM_PYTHON=OFF builds without it)
  python3-dev       # Python headers the module compiles against
  python3-numpy     # per-request results and timelines cross to Python as NumPy columns
  python3-pytest    # the Python module's tests (ctest runs them)
  python3-pandas    # Python tests and docs: results as DataFrames
  python3-distributed # servesim.dask: sweeps on a Dask cluster (its ctest skips without it)
  chromium          # headless browser: the ctest that renders `servesim report` pages (skips without it)
  fonts-dejavu-core # a font for the report's text in that browser (no recommends are installed)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
