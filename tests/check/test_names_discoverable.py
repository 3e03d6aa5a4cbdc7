#!/usr/bin/env python3
"""Every Catch2 test case must reach ctest as itself.

catch_discover_tests turns the binary's test names into a CMake list, so a ';' in a name
splits it into two ctest entries whose filters match no test case: both "pass" while the
test case never runs (this happened to nine test cases). Fails listing such names.
Usage: test_names_discoverable.py SERVESIM_TESTS_BINARY
"""
import subprocess
import sys

# Catch2 v2 exits with the number of test cases listed, so the status is not checked.
names = subprocess.run([sys.argv[1], "--list-test-names-only"],
                       capture_output=True, text=True).stdout.splitlines()
names = [n for n in names if n.strip()]
bad = [n for n in names if ";" in n]
for n in bad:
    print(f"test name with ';' (ctest would split it and run nothing): {n}")
if not names:
    print("no test names listed")
    sys.exit(1)
print(f"{len(names)} test names, {len(bad)} with ';'")
sys.exit(1 if bad else 0)
