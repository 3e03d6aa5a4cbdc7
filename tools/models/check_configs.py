#!/usr/bin/env python3
"""Runs `servesim inspect --model FOLDER --json` over every model folder of a fixture
directory (default tests/fixtures/hf_configs_2026) and reports which load, and for those
listed in data/models/published_params.csv the error of their total and active parameter
counts against the publisher's figures (the CSV cites each).

    python3 tools/models/check_configs.py [--servesim build/servesim] [--gpu b200] [DIR]
"""
import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "tests/fixtures/hf_configs_2026"))
    ap.add_argument("--servesim", default=os.path.join(ROOT, "build/servesim"))
    ap.add_argument("--gpu", default="b200", help="any GPU: the parameter counts do not depend on it")
    args = ap.parse_args()
    published = {}
    with open(os.path.join(ROOT, "data/models/published_params.csv")) as f:
        for row in csv.DictReader(f):
            published[row["fixture"]] = (float(row["total_b"]), float(row["active_b"]), row["source"])
    loaded, failed, rows = 0, [], []
    for name in sorted(os.listdir(args.dir)):
        folder = os.path.join(args.dir, name)
        if not os.path.isfile(os.path.join(folder, "config.json")):
            continue
        r = subprocess.run([args.servesim, "inspect", "--model", folder, "--gpu", args.gpu, "--json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failed.append((name, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"))
            continue
        loaded += 1
        setup = json.loads(r.stdout)["setup"]
        detail = setup["model_detail"]
        total, active = setup["params_total"] / 1e9, setup["params_active"] / 1e9
        prec = setup["precision"]
        ckpt = detail.get("checkpoint_precision", {})
        pub = published.get(name)
        err_t = err_a = None
        if pub:
            err_t, err_a = 100 * (total - pub[0]) / pub[0], 100 * (active - pub[1]) / pub[1]
        rows.append((name, total, active, pub, err_t, err_a, prec, ckpt))
    print(f"{loaded} of {loaded + len(failed)} config folders load")
    for name, why in failed:
        print(f"  refused {name}: {why[:200]}")
    print(f"\n{'fixture':38} {'total B':>8} {'pub':>7} {'err%':>6} {'active B':>8} {'pub':>6} {'err%':>6}  W/A/KV on {args.gpu}")
    within = checked = 0
    for name, total, active, pub, et, ea, prec, ckpt in rows:
        w = f"{prec['weights']}/{prec['compute']}/{prec['kv_cache']}"
        if pub:
            checked += 1
            within += abs(et) <= 2 and abs(ea) <= 2
            print(f"{name:38} {total:8.2f} {pub[0]:7.2f} {et:+6.2f} {active:8.2f} {pub[1]:6.2f} {ea:+6.2f}  {w}")
        else:
            print(f"{name:38} {total:8.2f} {'-':>7} {'-':>6} {active:8.2f} {'-':>6} {'-':>6}  {w}")
    print(f"\n{within} of {checked} with a published figure are within 2% on both total and active")
    return 0


if __name__ == "__main__":
    sys.exit(main())
