#!/usr/bin/env python3
"""Smoke test of the measuring backend (tools/profile-gpu/profgpu/torch_backend.py) on the
CPU: it builds every kernel and writes the tables, where PyTorch is installed. The times are
CPU times and meaningless; what is checked is that the code paths run and the core table has
its rows. Exits 77 (ctest: skipped) when `import torch` fails, as on the project's machines.

usage: smoke_torch_cpu.py REPO_ROOT   (ctest: profile_gpu_torch_cpu_smoke)
"""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    repo = os.path.abspath(sys.argv[1])
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP: PyTorch is not installed for", sys.executable)
        return SKIP
    tmp = tempfile.mkdtemp(prefix="profile-gpu-cpu-")
    try:
        out = os.path.join(tmp, "out")
        cmd = [sys.executable, os.path.join(repo, "tools", "profile-gpu", "profile_gpu.py"),
               "--model", os.path.join(repo, "tests", "profile_gpu", "fixtures", "config.json"),
               "--device", "cpu", "--tp", "4", "--quick", "--max-tokens", "4", "--repeats", "1", "--warmup", "1",
               "--out", out]
        p = subprocess.run(cmd, capture_output=True, text=True)
        print(p.stderr)
        if p.returncode != 0:
            print(f"FAIL: exit {p.returncode}")
            return 1
        with open(os.path.join(out, "tiny-gqa-1b.csv")) as f:
            rows = f.read().strip().splitlines()
        if len(rows) != 1 + 3:  # header + token counts 1, 2, 4
            print(f"FAIL: {len(rows) - 1} core rows, expected 3")
            return 1
        print("ok: CPU smoke run wrote", len(rows) - 1, "core rows")
        return 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
