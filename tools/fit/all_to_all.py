#!/usr/bin/env python3
"""Expert all-to-all kernels: fixed time per call and achieved link share, from their
published kernel benchmarks (data/moe_at_scale/all_to_all_kernels.csv).

One MoE layer's dispatch (or combine) on one GPU takes
    t = t0_phase + max(net_bytes / (e_net * B_net), nvlink_bytes / (e_nv * B_nv))
with B_net, B_nv the GPU's scale-out and NVLink bandwidths per direction and the bytes
those of the copies the kernel sends (sim/cost/all_to_all.h): DeepEP low-latency sends
one copy per routed expert (k = 8), k (ep - g)/ep of them to other nodes and
k (g - 1)/ep inside the node (g GPUs per node); TensorRT-LLM's NVLinkOneSided benchmark
routes with a perfect router, min(ep, k) destinations per token, (ep - 1)/ep of them
remote. DeepEP's normal kernels report bottleneck bandwidth at 4,096 tokens, where the
fixed time is negligible: e = measured / link bandwidth.

Each kernel is fitted on the rows marked `fit` (alternate EP sizes) and judged on the
`heldout` rows (median |error| printed); the values are then refitted on all rows,
which is what sim/cost/all_to_all.cpp carries.

Usage: python3 tools/fit/all_to_all.py [CSV]
       python3 tools/fit/all_to_all.py --check ROOT   (exit 1 unless sim/cost/all_to_all.cpp
       carries these values to the printed precision, or a held-out median exceeds 15%: a ctest)
"""
import csv
import os
import re
import statistics
import sys

# Link bandwidths per direction, bytes/s: H800 NVLink 400 GB/s bidirectional (NVIDIA H800
# datasheet) and one 400 Gb/s ConnectX-7 NIC per GPU; GB200 NVL72 NVLink 900 GB/s
# per direction (hardware/gb200.yaml). Scale-out of the GB200 rows is unused (one domain).
LINKS = {"h800-sxm": (50e9, 200e9), "gb200": (100e9, 900e9)}
HIDDEN, TOP_K = 7168, 8
PAYLOAD = {"bf16": 2.0 * HIDDEN, "fp8": HIDDEN * (1 + 4 / 128), "fp4": HIDDEN * (0.5 + 1 / 16)}


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def copies(kernel, ep, g):
    """(network, nvlink) copies of one token in the benchmark's routing."""
    g = min(ep, g)
    if kernel == "deepep_low_latency":
        return TOP_K * (ep - g) / ep, TOP_K * (g - 1) / ep
    if kernel == "nvlink_one_sided":
        return 0.0, min(ep, TOP_K) * (ep - 1) / ep
    raise ValueError(kernel)


def predict(r, p):
    ep, g, b = int(r["ep"]), int(r["gpus_per_node"]), int(r["tokens_per_rank"])
    net_bw, nv_bw = LINKS[r["gpu"]]
    net, nv = copies(r["kernel"], ep, g)
    pay = PAYLOAD[r["payload"]] * b
    t0 = p["t0_" + r["phase"]]
    wire = max(net * pay / (p["e_net"] * net_bw) if net else 0.0, nv * pay / (p["e_nv"] * nv_bw) if nv else 0.0)
    return (t0 + wire) * 1e6


def err(r, p):
    return predict(r, p) / float(r["value"]) - 1.0


def fit_latency(rows, with_net):
    """Grid over the efficiencies; t0 per phase by least squares of the relative error."""
    best = None
    grid = [x / 200 for x in range(40, 201)]
    for e_nv in grid:
        for e_net in (grid if with_net else [1.0]):
            p = {"e_nv": e_nv, "e_net": e_net, "t0_dispatch": 0.0, "t0_combine": 0.0}
            for phase in ("dispatch", "combine"):
                rs = [r for r in rows if r["phase"] == phase]
                # t0 minimising sum ((w + t0)/m - 1)^2 over the rows: sum (m - w)/m^2 / sum 1/m^2.
                num = sum((float(r["value"]) - predict(r, p)) / float(r["value"]) ** 2 for r in rs)
                den = sum(1 / float(r["value"]) ** 2 for r in rs)
                p["t0_" + phase] = max(0.0, num / den) * 1e-6
            sse = sum(err(r, p) ** 2 for r in rows)
            if best is None or sse < best[0]:
                best = (sse, dict(p))
    return best[1]


def fit_bandwidth(rows):
    """DeepEP normal: the share of each link its bottleneck bandwidth is (median over rows)."""
    nv = [float(r["value"]) * 1e9 / LINKS[r["gpu"]][1] for r in rows if r["metric"].startswith("nvlink")]
    net = [float(r["value"]) * 1e9 / LINKS[r["gpu"]][0] for r in rows if r["metric"].startswith("rdma")]
    # A NIC cannot beat its line rate: DeepEP counts logical bytes, so a share above 1 is capped.
    return {"e_nv": min(1.0, statistics.median(nv)) if nv else None,
            "e_net": min(1.0, statistics.median(net)) if net else None}


def bandwidth_errors(rows, p):
    out = []
    for r in rows:
        link = 1 if r["metric"].startswith("nvlink") else 0
        e = p["e_nv"] if link else p["e_net"]
        out.append(e * LINKS[r["gpu"]][link] / 1e9 / float(r["value"]) - 1.0)
    return out


def fits(rows):
    result = {}
    for kernel in ("deepep_low_latency", "nvlink_one_sided", "deepep_normal"):
        ks = [r for r in rows if r["kernel"] == kernel]
        fit_rows = [r for r in ks if r["split"] == "fit"]
        held = [r for r in ks if r["split"] == "heldout"]
        if kernel == "deepep_normal":
            p = fit_bandwidth(fit_rows)
            held_err = statistics.median(abs(e) for e in bandwidth_errors(held, p)) if held else None
            p = fit_bandwidth(ks)
        else:
            p = fit_latency(fit_rows, kernel == "deepep_low_latency")
            held_err = statistics.median(abs(err(r, p)) for r in held)
            p = fit_latency(ks, kernel == "deepep_low_latency")
        result[kernel] = (p, held_err, len(fit_rows), len(held))
    return result


def carried(root):
    """The kernel constants sim/cost/all_to_all.cpp carries, by name."""
    text = open(os.path.join(root, "sim/cost/all_to_all.cpp")).read()
    out = {}
    for m in re.finditer(r'\{\.name = "(\w+)",.*?\.dispatch_latency = ([\d.e-]+),\s*\.combine_latency = ([\d.e-]+),'
                         r'\s*\.network_efficiency = ([\d.]+),\s*\.nvlink_efficiency = ([\d.]+)', text, re.S):
        out[m.group(1)] = tuple(float(x) for x in m.group(2, 3, 4, 5))
    return out


def main():
    check = len(sys.argv) > 2 and sys.argv[1] == "--check"
    root = sys.argv[2] if check else os.path.join(os.path.dirname(__file__), "..", "..")
    path = sys.argv[1] if len(sys.argv) > 1 and not check else os.path.join(root, "data/moe_at_scale/all_to_all_kernels.csv")
    result = fits(read(path))
    code = carried(root) if check else {}
    bad = False
    for kernel, (p, held, nf, nh) in result.items():
        t0d = round(p.get("t0_dispatch", 0.0) * 1e6, 1)
        t0c = round(p.get("t0_combine", 0.0) * 1e6, 1)
        e_net = round(p["e_net"], 2) if p["e_net"] is not None else None
        e_nv = round(p["e_nv"], 2) if p["e_nv"] is not None else None
        print(f"{kernel}: dispatch {t0d} us, combine {t0c} us, network share {e_net}, NVLink share {e_nv}; "
              f"fitted on {nf} rows, held-out median |error| {held * 100:.1f}% ({nh} rows)")
        if check:
            if held is not None and held > 0.15:
                print(f"  held-out error above 15%")
                bad = True
            c = code.get(kernel)
            want = (t0d * 1e-6 if "t0_dispatch" in p else None, t0c * 1e-6 if "t0_combine" in p else None, e_net, e_nv)
            if c is None:
                print(f"  sim/cost/all_to_all.cpp has no entry {kernel}")
                bad = True
                continue
            for name, have, w in zip(("dispatch_latency", "combine_latency", "network_efficiency",
                                      "nvlink_efficiency"), c, want):
                if w is not None and abs(have - w) > 1e-9 + 1e-6 * abs(w):
                    print(f"  {kernel}.{name}: the code carries {have}, the fit gives {w}")
                    bad = True
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
