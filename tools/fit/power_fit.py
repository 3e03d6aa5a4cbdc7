#!/usr/bin/env python3
"""Fits the per-architecture load-following power weights (sim/hardware/power_model.cpp) to board-level
power: the ML.ENERGY Benchmark v3 runs (data/serving/mlenergy_v3_lm_arena.csv, NVML board power via Zeus,
summed over a run's GPUs, over the steady state with the queue kept full).

Input: the CSV written by tools/fit/mlenergy_replay.py --csv (per run: the measured power per GPU and
servesim's mean compute and memory-bandwidth utilisations of the replay; the utilisations do not depend
on the power weights, so any build's replay serves). Per architecture (GPU -> TDP below), with the
active floor fixed at --active-share of the TDP (not fitted: an H100 with clocks up at 0% utilisation
reads 140-145 W, wilicc/gpu-burn issue #114, 142 / 700 = 0.203), a least-squares fit of

    P = P_active + (P_tdp - P_active) * (w_c * U_c + w_m * U_m)

on the fit models (--fit-models, default Llama-3.1-8B and Llama-3.1-70B); the other models are held
out. Errors here use the run means and the cap on the mean (an approximation: steps above the cap
lose their excess); the replay with the fitted weights in the build is the test that counts
(docs/validation-report.md).

  python3 tools/fit/mlenergy_replay.py --servesim build/servesim --requests-per-slot 4 \
      --set engine.framework=vllm-v1-sync --csv /tmp/replay.csv
  python3 tools/fit/power_fit.py /tmp/replay.csv
"""
import argparse
import csv
import statistics

TDP_W = {"h100-sxm": 700.0, "b200": 1000.0}  # hardware/h100-sxm.yaml, hardware/b200.yaml power.tdp
ARCH = {"h100-sxm": "hopper", "b200": "blackwell"}


def lstsq2(rows):
    # Normal equations of y = a x1 + b x2 (no intercept).
    s11 = sum(x1 * x1 for x1, _, _ in rows)
    s12 = sum(x1 * x2 for x1, x2, _ in rows)
    s22 = sum(x2 * x2 for _, x2, _ in rows)
    t1 = sum(x1 * y for x1, _, y in rows)
    t2 = sum(x2 * y for _, x2, y in rows)
    det = s11 * s22 - s12 * s12
    return (t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det


def summary(errors):
    return (f"n={len(errors):3d} median |error| {statistics.median(abs(e) for e in errors):6.1%} "
            f"bias {statistics.median(errors):+6.1%} max {max(abs(e) for e in errors):6.1%}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("replay_csv")
    ap.add_argument("--active-share", type=float, default=0.203)
    ap.add_argument("--fit-models", default="meta-llama/Llama-3.1-8B-Instruct,meta-llama/Llama-3.1-70B-Instruct")
    a = ap.parse_args()
    fit_models = set(a.fit_models.split(","))
    rows = [r for r in csv.DictReader(open(a.replay_csv)) if r.get("mfu")]
    for gpu, tdp in TDP_W.items():
        act = a.active_share * tdp
        span = tdp - act
        R = [r for r in rows if r["gpu"] == gpu]
        F = [r for r in R if r["model_id"] in fit_models]
        H = [r for r in R if r["model_id"] not in fit_models]
        wc, wm = lstsq2([(float(r["mfu"]) * span, float(r["mem_util"]) * span, float(r["power_meas"]) - act)
                         for r in F])
        print(f"{ARCH[gpu]} ({gpu}, TDP {tdp:.0f} W, active {act:.0f} W): w_c {wc:.3f}  w_m {wm:.3f}")
        for name, rs in (("fit", F), ("held out", H)):
            err = [min(tdp, act + span * (wc * float(r["mfu"]) + wm * float(r["mem_util"]))) / float(r["power_meas"]) - 1
                   for r in rs]
            print(f"  {name:8s} {summary(err)}  (run means)")
            if all(r.get("power_pred") for r in rs):  # the replay's own per-step power (the build's weights)
                err = [float(r["power_pred"]) / float(r["power_meas"]) - 1 for r in rs]
                print(f"  {name:8s} {summary(err)}  (replay, per-step power of the build that wrote the CSV)")


if __name__ == "__main__":
    main()
