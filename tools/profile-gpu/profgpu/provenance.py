"""provenance.json and PROVENANCE.md beside the tables: what was run, where, with which
libraries, and how each table is to be read. The core CSV itself has no room for a
header (servesim's reader takes the first line as the column names), so this is it.
"""
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys

from . import tables


def driver_version():
    """The GPU driver, from nvidia-smi or rocm-smi when one is on PATH; None otherwise."""
    for cmd in (["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                ["rocm-smi", "--showdriverversion"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
        for ln in lines:
            if "driver version" in ln.lower():
                return ln.split(":")[-1].strip()
        if lines:
            return lines[0]
    return None


def build(model, settings, env, implementation, result, files, argv, now=None):
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return {
        "synthetic": bool(env.get("synthetic")),
        "date_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join(shlex.quote(a) for a in argv),
        "environment": dict(env, python=platform.python_version(), platform=platform.platform()),
        "implementation": implementation,
        "model": {"name": model.name, "source": model.source, "layers": model.layers, "hidden_size": model.hidden,
                  "heads": model.heads, "kv_heads": model.kv_heads, "head_dim": model.head_dim,
                  "intermediate_size": model.ffn, "gated_mlp": model.gated_mlp, "qkv_bias": model.qkv_bias,
                  "vocab_size": model.vocab},
        "settings": {"tp": settings.tps, "num_tokens": settings.tokens, "decode_batch": settings.decode_batch,
                     "decode_context": settings.decode_context, "prefill_lengths": settings.prefill_lengths,
                     "warmup": settings.warmup, "repeats": settings.repeats, "statistic": "median",
                     "l2_flush": settings.flush_l2, "fp8": result.fp8, "kv_budget_bytes": settings.kv_budget_bytes},
        "rows": {"core": len(result.core), "gemm": len(result.gemm), "attention": len(result.attention),
                 "allreduce": len(result.allreduce)},
        "files": files,
        "notes": result.notes,
        "wall_seconds": round(result.seconds, 1),
    }


def markdown(p, gpu_hint="<gpu>"):
    env = p["environment"]
    m = p["model"]
    lines = ["# Operator timings: provenance", ""]
    if p["synthetic"]:
        lines += ["**SYNTHETIC: these times were computed by `--fake-timer` from a closed-form roofline "
                  "(tools/profile-gpu/profgpu/fake_timer.py), not measured on a GPU. Do not commit them as data.**",
                  ""]
    lines += [
        f"- date (UTC): {p['date_utc']}",
        f"- command: `{p['command']}`",
        f"- GPU: {env.get('gpu_name')} x {env.get('device_count')}"
        + (f", compute capability {env['compute_capability']}" if env.get("compute_capability") else "")
        + (f", {env['gcn_arch']}" if env.get("gcn_arch") else ""),
        f"- driver: {env.get('driver')}",
        f"- torch {env.get('torch')}, CUDA {env.get('cuda')}, ROCm/HIP {env.get('hip')}, "
        f"cuDNN {env.get('cudnn')}, NCCL/RCCL {env.get('nccl')}, Python {env.get('python')}",
        f"- model: `{m['name']}` from `{m['source']}` (hidden {m['hidden_size']}, heads {m['heads']}/{m['kv_heads']}, "
        f"head_dim {m['head_dim']}, ffn {m['intermediate_size']}, gated {m['gated_mlp']})",
        f"- TP degrees: {p['settings']['tp']}; token counts: {len(p['settings']['num_tokens'])} "
        f"({p['settings']['num_tokens'][0]}..{p['settings']['num_tokens'][-1]})",
        f"- timing: {p['settings']['warmup']} warm-up runs, median of {p['settings']['repeats']}, "
        f"L2 flush before each timed run: {p['settings']['l2_flush']}",
        f"- fp8 GEMMs: {p['settings']['fp8']}",
        f"- wall time: {p['wall_seconds']} s",
        "",
        "## Kernels", "",
    ]
    lines += [f"- {k}: {v}" for k, v in p["implementation"].items()]
    lines += [
        "", "## Files (times in milliseconds, one layer shard on one GPU)", "",
        f"- `{m['name']}.csv` ({p['rows']['core']} rows): the columns of `data/operator_timings/a100/*.csv` "
        "(Vidur's `mlp.csv`, medians; see data/operator_timings/PROVENANCE.md), bf16. "
        "Read by `servesim calibrate operators`.",
        f"- `{tables.EXTRA_DIR}/gemm.csv` ({p['rows']['gemm']} rows): every GEMM by (op, dtype, M, K, N), bf16 and fp8; "
        "`achieved_tflops` = 2MKN / time.",
        f"- `{tables.EXTRA_DIR}/attention.csv` ({p['rows']['attention']} rows): `decode` (batch_size sequences, one new "
        "token each, over context_len cached tokens; contiguous KV, SDPA), `decode_paged` (the same over a paged "
        "KV cache, flash-attn, when installed) and `prefill` (one causal sequence of context_len tokens); "
        "n_q_head / n_kv_head are per GPU.",
        f"- `{tables.EXTRA_DIR}/allreduce.csv` ({p['rows']['allreduce']} rows): one bf16 all-reduce of message_bytes "
        "(= num_tokens x n_embd x 2) over world_size GPUs, launched eagerly (`eager`) or replayed from a CUDA graph "
        "(`cuda_graph`, time per call); bus_bandwidth_gbps = 2(w-1)/w x bytes / time.",
        "- `provenance.json`: this file's facts, machine-readable.",
        "",
        "## Next step", "",
        "```",
        f"servesim calibrate operators --gpu {gpu_hint} --data <this folder>"
        + (" --models-dir <this folder>/models" if "models_yaml" in p["files"] else "")
        + f" --out hardware/{gpu_hint}-calibrated.yaml",
        "```",
    ]
    if p["notes"]:
        lines += ["", "## Skipped points", ""] + [f"- {n}" for n in p["notes"]]
    return "\n".join(lines) + "\n"


def write(out_dir, p, gpu_hint="<gpu>"):
    with open(os.path.join(out_dir, "provenance.json"), "w", encoding="utf-8") as f:
        json.dump(p, f, indent=2, sort_keys=False)
        f.write("\n")
    with open(os.path.join(out_dir, "PROVENANCE.md"), "w", encoding="utf-8") as f:
        f.write(markdown(p, gpu_hint))


def argv_of_this_run():
    return [os.path.basename(sys.executable)] + sys.argv
