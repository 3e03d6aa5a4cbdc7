"""Shared fixtures: the repository root (scenarios/ lives there) and the CLI binary
the Python results are compared with (SERVESIM_BIN, set by ctest)."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("SERVESIM_BIN", str(ROOT / "build" / "servesim"))
    if not os.path.exists(binary):
        pytest.fail(f"SERVESIM_BIN={binary} does not exist: build the servesim binary first")

    def call(*args, check=True):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, cwd=ROOT)
        if check and p.returncode != 0:
            raise AssertionError(f"servesim {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stderr}")
        return p
    return call
