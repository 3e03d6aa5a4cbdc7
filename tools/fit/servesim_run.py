"""Runs `servesim run` on a scenario given as YAML text, with --set edits, and returns the
parsed --json result (shared by the replay scripts in tools/fit)."""
import json
import os
import subprocess
import tempfile


def run_json(binary, scenario_text, sets=None):
    """The run's JSON document, or (None, the last line of stderr) when servesim refuses it."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as y:
        y.write(scenario_text)
    try:
        cmd = [binary, "run", y.name, "--json"]
        for k, v in (sets or {}).items():
            cmd += ["--set", f"{k}={v}"]
        out = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(y.name)
    if out.returncode != 0:
        err = out.stderr.strip()
        return None, err.splitlines()[-1] if err else "failed"
    return json.loads(out.stdout), ""
