#!/usr/bin/env python3
"""End to end without a GPU: tools/profile-gpu with --fake-timer (SYNTHETIC closed-form
times, tools/profile-gpu/profgpu/fake_timer.py) writes a table; the real
`servesim calibrate operators` must accept it, fit it, and give back the efficiencies
the synthetic times were built from.

usage: check_fake_calibration.py SERVESIM REPO_ROOT   (ctest: profile_gpu_fake_calibration;
exit 0 when every check passes)

Why the tolerances (FakeGpu: gemm_compute 0.72, gemm_memory 0.85, gemm_tokens_half 40,
kernel_overhead 4 us, elementwise_memory 0.70; A100 SXM4 80GB peaks 312 TFLOP/s and
2.039 TB/s, the same as --gpu a100-sxm4-80gb, so the fractions are comparable):

* The fake's GEMM formula is the cost model's (finish_op with gemm_overlap 1), so the
  GEMM rows alone would be fitted exactly. E.g. mlp_up at TP 1, M = 8192, K = 4096,
  N = 2 x 14336 = 28672: flops = 2 x 8192 x 4096 x 28672 = 1.924e12;
  rate = 312e12 x 0.72 x 8192 / (8192 + 40) = 223.55e12 FLOP/s; t = 8.607 ms + 4 us = 8.611 ms.
  A gemm_compute 2% off would leave that row 2% off, and the fit minimises exactly those
  relative errors, so gemm_compute must come back within 2% (seen: 0.7203, +0.04%).
* One kernel_overhead serves GEMM and elementwise rows, and the norm rows cannot be
  matched: the profiler times Vidur's unfused ops (two RMSNorms, 2 T h x 2 bytes and one
  kernel each, and the residual add counted twice, 3 T h x 2 bytes), i.e. 10 T h x 2 bytes
  and 4 kernels per layer, where the cost model's two fused add+RMSNorm kernels move
  8 T h x 2 bytes. At small T the norm rows ask for 4 x 4 us / 2 = 8 us per kernel, at
  large T for 0.70 x 8/10 = 0.56 of bandwidth; the least-squares compromise moves
  kernel_overhead up and elementwise_memory down (seen: 4.35 us, +9%; 0.641, -8%), and
  through the overhead the skinny-GEMM knobs a little (gemm_memory 0.869, +2%;
  gemm_tokens_half 36.5, -9%). Tolerances: 2.5x those shifts, rounded up. (That was the
  shared elementwise form, still fitted on GPU files without sm_count; on the A100 file
  the per-kind form below is fitted.)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TRUTH_AND_TOLERANCE = {  # knob: (value in FakeGpu, allowed relative deviation)
    "gemm_compute": (0.72, 0.02),
    "gemm_memory": (0.85, 0.06),
    "gemm_tokens_half": (40.0, 0.25),
    "kernel_overhead": (4e-6, 0.25),
}
# The fake's elementwise rows move bytes at 0.70 of HBM (FakeGpu.elementwise_memory). On a GPU
# file with sm_count and boost_clock (the A100's: 108 SMs, 1.41 GHz) calibrate fits the
# per-kind SM-bound form instead: rate = min(gemm_memory x HBM, b x SMs x clock), so the
# check is on that rate as a share of HBM, per kind, against the same 0.70 (norm: see above,
# the unfused rows ask for 0.56 at large T and a higher floor at small T).
# Each kind has its own floor now, so act and rope are matched exactly (seen: 0.700); the GEMM
# knobs, no longer pulled by the norm rows through a shared floor, come back exactly too. The
# comparison now times norm on the work the profiler times (OperatorKindInfo::bytes_scale 20/16,
# kernels_scale 2: Vidur's unfused 10 T h x 2 bytes in 4 kernels), so norm is matched exactly as
# well (seen: 0.700; it was 0.70 x 8/10 = 0.56 on the fused bytes). The A100 file gives l2_cache,
# so each kind also has an L2-resident rate (not capped by HBM); the fake moves every size at 0.70
# of HBM, so that rate must come back as 0.70 of HBM too (seen: 9.37 B/SM-cycle = 0.700).
# The per-kind form holds each kind's FP32 instructions per byte w (counted, not fitted; JSON
# "efficiency_counted"): an SM moves a byte in 1 / b + w / lanes cycles, i.e. the rate over the
# GPU is 1 / (1 / (b x SMs x clock) + 2 w / FP32 peak), which is what must come back as 0.70
# (seen: 0.700 for every kind, within and beyond the L2; b is then 13.3 for act, 10.2 norm, 10.5 rope).
ELEMENTWISE_SHARE = {"act": (0.70, 0.02), "rope": (0.70, 0.02), "norm": (0.70, 0.02)}
A100_SM_CYCLES, A100_HBM, A100_FP32 = 108 * 1.41e9, 2.039e12, 19.5e12


def sm_rate(b, w):
    """Bytes per second over the A100's SMs at b bytes per SM-cycle and w FP32 instructions per byte."""
    return 1.0 / (1.0 / (b * A100_SM_CYCLES) + 2.0 * w / A100_FP32)
GEMM_KINDS = ("qkv_proj", "o_proj", "mlp_up", "mlp_down")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def profile(repo, model, out, extra=()):
    tool = os.path.join(repo, "tools", "profile-gpu", "profile_gpu.py")
    return run([sys.executable, tool, "--model", model, "--out", out, "--quick", "--fake-timer", *extra])


def main():
    servesim, repo = sys.argv[1], os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="profile-gpu-e2e-")
    failures = []
    try:
        # 1. A catalog model at TP 1/2/4/8 (the catalog resolves the table's name).
        out = os.path.join(tmp, "llama")
        rc, _, err = profile(repo, os.path.join(repo, "models", "llama-3.1-8b.yaml"), out, ["--tp", "1,2,4,8"])
        if rc != 0:
            raise SystemExit(f"FAIL profiler exited {rc}: {err}")
        rc, stdout, err = run([servesim, "calibrate", "operators", "--gpu", "a100-sxm4-80gb", "--data", out,
                               "--json", "--out", os.path.join(tmp, "llama-calibrated.yaml")])
        if rc != 0:
            raise SystemExit(f"FAIL servesim calibrate operators exited {rc}: {err}")
        doc = json.loads(stdout)
        fitted = doc["efficiency_fitted"]
        for knob, (truth, tol) in TRUTH_AND_TOLERANCE.items():
            dev = fitted[knob] / truth - 1.0
            line = f"{knob}: fitted {fitted[knob]:.6g}, synthetic truth {truth:.6g} ({100 * dev:+.1f}%, allowed +-{100 * tol:.0f}%)"
            print(("ok   " if abs(dev) <= tol else "FAIL ") + line)
            if abs(dev) > tol:
                failures.append(line)
        for kind, (truth, tol) in ELEMENTWISE_SHARE.items():
            b = fitted[f"{kind}_bytes_per_sm_cycle"]
            w = doc["efficiency_counted"][f"{kind}_fp32_per_byte"]
            share = min(fitted["gemm_memory"], sm_rate(b, w) / A100_HBM)
            dev = share / truth - 1.0
            line = (f"{kind} rate: min(gemm_memory, SM rate at {b:.3g} B/SM-cycle, {w:.3g} FP32/B / HBM) = {share:.3f} of HBM, "
                    f"synthetic truth {truth:.3g} ({100 * dev:+.1f}%, allowed +-{100 * tol:.0f}%)")
            print(("ok   " if abs(dev) <= tol else "FAIL ") + line)
            if abs(dev) > tol:
                failures.append(line)
            b2 = fitted[f"{kind}_l2_bytes_per_sm_cycle"]
            share2 = sm_rate(b2, w) / A100_HBM
            dev2 = share2 / truth - 1.0
            line = (f"{kind} L2-resident rate: SM rate at {b2:.3g} B/SM-cycle, {w:.3g} FP32/B / HBM = {share2:.3f} of HBM, "
                    f"synthetic truth {truth:.3g} ({100 * dev2:+.1f}%, allowed +-{100 * tol:.0f}%)")
            print(("ok   " if abs(dev2) <= tol else "FAIL ") + line)
            if abs(dev2) > tol:
                failures.append(line)
        for kind in GEMM_KINDS:  # held-out token counts: the GEMMs' closed form is the cost model's
            med = doc["test"][kind]["after"]["median_pct"]
            line = f"held-out {kind}: median |error| {med:.2f}% (allowed 3%)"
            print(("ok   " if med <= 3.0 else "FAIL ") + line)
            if med > 3.0:
                failures.append(line)
        if not os.path.exists(os.path.join(tmp, "llama-calibrated.yaml")):
            failures.append("no calibrated profile written")

        # 2. A config.json: the profiler writes the model file calibrate needs (--models-dir).
        out = os.path.join(tmp, "cfg")
        rc, _, err = profile(repo, os.path.join(repo, "tests", "profile_gpu", "fixtures", "config.json"), out,
                             ["--tp", "1,2,4", "--no-attention"])
        if rc != 0:
            raise SystemExit(f"FAIL profiler (config.json) exited {rc}: {err}")
        rc, stdout, err = run([servesim, "calibrate", "operators", "--gpu", "a100-sxm4-80gb", "--data", out,
                               "--models-dir", os.path.join(out, "models"), "--json"])
        ok = rc == 0 and json.loads(stdout)["models"] == ["tiny-gqa-1b"]
        print(("ok   " if ok else "FAIL ") + f"config.json table calibrates (exit {rc})")
        if not ok:
            failures.append(f"config.json table: exit {rc}: {err.strip()}")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
