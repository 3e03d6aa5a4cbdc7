#!/usr/bin/env python3
"""Per-layer GPU kernel timings for servesim (see README.md beside this file).

usage: python3 tools/profile-gpu/profile_gpu.py --model models/llama-3.1-8b.yaml --tp 1,2,4,8 --out OUT
"""
import os
import sys

# The package sits beside this script; no install step on the GPU box.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from profgpu.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
