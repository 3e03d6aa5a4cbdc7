#!/usr/bin/env python3
"""Groups the per-run errors that tools/fit/mlenergy_replay.py --csv wrote: median |error| and
bias of ITL (and power) by GPU, by model and by batch cap (under load: cap >= 64).

  python3 tools/fit/mlenergy_summary.py docs/validation-report/mlenergy_itl_vllm_v1_sync.csv
"""
import csv
import statistics
import sys


def line(name, rows, m):
    e = [float(r[f"{m}_err"]) for r in rows if r.get(f"{m}_err")]
    if not e:
        return
    print(f"  {name:44s} n={len(e):3d}  median |error| {statistics.median(abs(x) for x in e):6.1%}  "
          f"bias {statistics.median(e):+6.1%}")


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    for m in ("itl", "power"):
        print(f"{m}:")
        line("all", rows, m)
        line("under load (batch cap >= 64)", [r for r in rows if int(r["batch"]) >= 64], m)
        line("light (batch cap < 64)", [r for r in rows if int(r["batch"]) < 64], m)
        for g in sorted({r["gpu"] for r in rows}):
            line(f"gpu {g}", [r for r in rows if r["gpu"] == g], m)
        for mid in sorted({r["model_id"] for r in rows}):
            line(mid, [r for r in rows if r["model_id"] == mid], m)


if __name__ == "__main__":
    main()
