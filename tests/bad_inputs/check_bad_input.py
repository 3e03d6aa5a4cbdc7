#!/usr/bin/env python3
"""Runs one case of the bad-input corpus (tests/fixtures/bad/<case>/) and checks
that servesim refuses it the way the case says.

A case folder holds:
  cmd     one line of servesim arguments, run from the repository root;
          {dir} is replaced by the case folder, {out} by a fresh empty folder;
  expect  lines "exit: N", and any number of "stderr: TEXT" / "stdout: TEXT"
          (TEXT must appear) and "not-stderr: TEXT" (TEXT must not appear);
  the input files the command reads.

Beyond what `expect` says, every case must: finish within the timeout (no hang),
end by exiting (no signal: no abort, no segfault), never print "terminate called"
(an exception escaping main) or a sanitizer report, and, when it fails, leave no
file under {out} (outputs are whole or absent).
"""
import os
import shlex
import subprocess
import sys
import tempfile

TIMEOUT_S = 30


def main() -> int:
    servesim, case, root = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(case, "cmd")) as f:
        lines = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
    if len(lines) != 1:
        print(f"{case}/cmd: expected exactly one command line, found {len(lines)}")
        return 1
    expected_exit = None
    must, must_not = [], []
    with open(os.path.join(case, "expect")) as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            key, sep, value = line.partition(":")
            value = value.strip()
            if not sep:
                print(f"{case}/expect:{n}: expected 'key: value'")
                return 1
            if key == "exit":
                expected_exit = int(value)
            elif key in ("stderr", "stdout"):
                must.append((key, value))
            elif key == "not-stderr":
                must_not.append(("stderr", value))
            else:
                print(f"{case}/expect:{n}: unknown key '{key}' (exit, stderr, stdout, not-stderr)")
                return 1
    if expected_exit is None or not must:
        print(f"{case}/expect: needs an 'exit:' line and at least one 'stderr:' or 'stdout:' line")
        return 1

    with tempfile.TemporaryDirectory(prefix="servesim-bad-") as out:
        argv = [servesim] + shlex.split(lines[0].replace("{dir}", case).replace("{out}", out))
        print("$", " ".join(shlex.quote(a) for a in argv))
        try:
            p = subprocess.run(argv, cwd=root, capture_output=True, text=True, errors="replace",
                               timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            print(f"FAIL: no answer within {TIMEOUT_S} s (a hang)")
            return 1
        streams = {"stdout": p.stdout, "stderr": p.stderr}
        print("exit", p.returncode)
        print("stderr:", p.stderr[-2000:])
        failures = []
        if p.returncode < 0:
            failures.append(f"killed by signal {-p.returncode}")
        if p.returncode != expected_exit:
            failures.append(f"exit {p.returncode}, expected {expected_exit}")
        if "terminate called" in p.stderr:
            failures.append("an exception escaped main ('terminate called')")
        # Under the sanitizer build a report exits 1, the same code as a refused input:
        # look for the report itself.
        for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            if marker in p.stderr:
                failures.append(f"sanitizer report ({marker})")
        for stream, text in must:
            if text not in streams[stream]:
                failures.append(f"{stream} lacks: {text!r}")
        for stream, text in must_not:
            if text in streams[stream]:
                failures.append(f"{stream} has: {text!r}")
        if p.returncode != 0:
            left = [os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs]
            if left:
                failures.append(f"failed but left files under --out: {left}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
