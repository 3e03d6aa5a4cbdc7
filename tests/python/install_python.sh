#!/usr/bin/env bash
# ctest: `cmake --install` puts the servesim Python package in PREFIX/PKG_DIR
# (lib/python3.X/dist-packages); imported from there (not the build tree) it runs
# the quickstart with the catalogs installed beside it (PREFIX/share/servesim) and
# gives the build tree's TTFT p99.
# Usage: install_python.sh BUILD_DIR SOURCE_DIR PREFIX PKG_DIR
set -euo pipefail
build=$1; src=$2; prefix=$3; pkg_dir=$4
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
pkg="$prefix/$pkg_dir"
[ -f "$pkg/servesim/__init__.py" ] && [ -f "$pkg/servesim/dask.py" ] && [ -f "$pkg/servesim/py.typed" ] && ls "$pkg"/servesim/_servesim*.so > /dev/null
cd "$src"
probe='import os, servesim
print(servesim.__file__)
print(os.environ["SERVESIM_HOME"])
print(servesim.run("scenarios/quickstart.yaml").summary["ttft_ms"]["p99"])'
installed=$(env -u SERVESIM_HOME PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$pkg" python3 -c "$probe")
in_build=$(env -u SERVESIM_HOME PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$build/python" python3 -c "import servesim
print(servesim.run('scenarios/quickstart.yaml').summary['ttft_ms']['p99'])")
echo "$installed"
[ "$(sed -n 1p <<< "$installed")" = "$pkg/servesim/__init__.py" ] || { echo "FAIL: not imported from $pkg"; exit 1; }
[ "$(realpath "$(sed -n 2p <<< "$installed")")" = "$(realpath "$prefix/share/servesim")" ] ||
  { echo "FAIL: the installed package does not use $prefix/share/servesim"; exit 1; }
[ "$(sed -n 3p <<< "$installed")" = "$in_build" ] || { echo "FAIL: installed p99 differs from the build tree's $in_build"; exit 1; }
rm -rf "$prefix"
echo "installed package imports and reproduces the build tree's quickstart TTFT p99 ($in_build ms)"
