#!/usr/bin/env python3
"""Rewrites the output blocks of docs/scenarios.md from the current build: each
"## NAME" section's first fenced block becomes `servesim run scenarios/NAME.yaml`
as printed now. Run from the repository root after a change that moves outputs:
    python3 tools/docs/update-scenarios.py [build/servesim]
"""
import re
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else "build/servesim"
path = "docs/scenarios.md"
text = open(path).read()


def rerun(match: re.Match) -> str:
    name = match.group(1)
    out = subprocess.run([binary, "run", f"scenarios/{name}.yaml"], capture_output=True, text=True, check=True).stdout
    return f"## {name}\n\n```\n{out.rstrip()}\n```"


new = re.sub(r"## ([\w.-]+)\n\n```\n.*?\n```", rerun, text, flags=re.S)
if new != text:
    open(path, "w").write(new)
    print(f"{path}: updated")
else:
    print(f"{path}: unchanged")
