"""Writing the tables.

Core table `<out>/<model>.csv`: exactly the columns of data/operator_timings/a100/*.csv
(Vidur's mlp.csv, trimmed to medians; see data/operator_timings/PROVENANCE.md), which
`servesim calibrate operators --data <out>` reads (sim/calibration/operator_timings.cpp).
That reader takes every *.csv in the folder as one model's table named by its file
stem, parses every `time_stats.<op>.median` column, and ignores sub-folders; so the
measurements it has no use for (fp8 GEMMs, attention, all-reduce) go to CSVs in
`<out>/extra/`, never beside the core table. Times are milliseconds, rounded to 1 ns.
"""
import csv
import os

CORE_COLUMNS = [
    "num_tensor_parallel_workers", "num_tokens", "n_head", "n_kv_head", "n_embd", "n_expanded_embd",
    "vocab_size", "use_gated_mlp",
    "time_stats.attn_pre_proj.median", "time_stats.attn_post_proj.median", "time_stats.mlp_up_proj.median",
    "time_stats.mlp_act.median", "time_stats.mlp_down_proj.median", "time_stats.input_layernorm.median",
    "time_stats.post_attention_layernorm.median", "time_stats.attn_rope.median", "time_stats.add.median",
]
# The ops of one core row (Vidur's names), in column order.
CORE_OPS = [c[len("time_stats."):-len(".median")] for c in CORE_COLUMNS if c.startswith("time_stats.")]

GEMM_COLUMNS = ["model", "num_tensor_parallel_workers", "op", "dtype", "m", "k", "n",
                "time_stats.median", "achieved_tflops"]
ATTENTION_COLUMNS = ["model", "num_tensor_parallel_workers", "kind", "batch_size", "context_len", "query_len",
                     "n_q_head", "n_kv_head", "head_dim", "dtype", "time_stats.median"]
ALLREDUCE_COLUMNS = ["world_size", "launch", "num_tokens", "n_embd", "message_bytes", "dtype", "time_stats.median",
                     "bus_bandwidth_gbps"]

EXTRA_DIR = "extra"


def fmt_ms(seconds):
    """Seconds -> milliseconds text, 1 ns resolution, no trailing zeros ("0.1105")."""
    if seconds is None:
        return ""
    text = f"{seconds * 1e3:.6f}".rstrip("0").rstrip(".")
    return text if text not in ("", "0", "-0") else "0.000001"  # a kernel never takes 0 ns; 0 breaks relative errors


def fmt_num(v, digits=4):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}g}"


def _write(path, columns, rows):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c, "") for c in columns])
    os.replace(tmp, path)  # a crashed run leaves no half table for calibrate to read
    return path


def core_row(tp, tokens, model, times):
    """One core row: `times` maps each of CORE_OPS to seconds."""
    missing = [op for op in CORE_OPS if times.get(op) is None]
    if missing:
        raise ValueError(f"tp={tp} tokens={tokens}: no time for {', '.join(missing)}")
    row = {
        "num_tensor_parallel_workers": str(tp), "num_tokens": str(tokens), "n_head": str(model.heads),
        "n_kv_head": str(model.kv_heads), "n_embd": str(model.hidden), "n_expanded_embd": str(model.ffn),
        "vocab_size": str(model.vocab), "use_gated_mlp": "True" if model.gated_mlp else "False",
    }
    for op in CORE_OPS:
        row[f"time_stats.{op}.median"] = fmt_ms(times[op])
    return row


def write_core(out_dir, model_name, rows):
    rows = sorted(rows, key=lambda r: (int(r["num_tensor_parallel_workers"]), int(r["num_tokens"])))
    return _write(os.path.join(out_dir, f"{model_name}.csv"), CORE_COLUMNS, rows)


def write_extra(out_dir, name, columns, rows):
    return _write(os.path.join(out_dir, EXTRA_DIR, name), columns, rows)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
