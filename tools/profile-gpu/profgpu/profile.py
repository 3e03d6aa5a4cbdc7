"""The profiling run: for each TP degree and token count, time one layer shard's ops
through a backend (torch_backend.TorchBackend measures, fake_timer.FakeBackend computes)
and collect the rows of the core table and of the extra tables.

Backend-agnostic, so the whole run except the kernels themselves is tested without a GPU.
"""
import time

from . import plan, shapes, tables


class Result:
    def __init__(self):
        self.core = []        # core rows (tables.core_row)
        self.gemm = []        # extra/gemm.csv rows
        self.attention = []   # extra/attention.csv rows
        self.allreduce = []   # extra/allreduce.csv rows
        self.notes = []       # why points were skipped
        self.fp8 = ""         # fp8 support, in words
        self.attention_paged_ok = False  # a paged decode point has been timed
        self.seconds = 0.0    # wall time of the run


def _gemm_row(model, tp, op, dtype, m, k, n, seconds):
    return {"model": model.name, "num_tensor_parallel_workers": tp, "op": op, "dtype": dtype, "m": m, "k": k,
            "n": n, "time_stats.median": tables.fmt_ms(seconds),
            "achieved_tflops": tables.fmt_num(2.0 * m * k * n / seconds / 1e12)}


def _layer_times(backend, model, s, tokens, fp8, res):
    """Seconds of each Vidur op of one layer shard at `tokens` tokens (None: could not be timed)."""
    times = {}
    for op, k, n in s.gemms(model.gated_mlp):
        bias = op == "attn_pre_proj" and model.qkv_bias
        times[op] = backend.gemm(tokens, k, n, "bf16", bias)
        if times[op] is not None:
            res.gemm.append(_gemm_row(model, s.tp, op, "bf16", tokens, k, n, times[op]))
        if fp8:
            t8 = backend.gemm(tokens, k, n, "fp8", False)
            if t8 is not None:
                res.gemm.append(_gemm_row(model, s.tp, op, "fp8", tokens, k, n, t8))
    times["mlp_act"] = backend.act(tokens, s.ffn, model.gated_mlp)
    # Both norms are timed (the same kernel and shape): two independent medians, as Vidur has.
    times["input_layernorm"] = backend.rms_norm(tokens, s.hidden)
    times["post_attention_layernorm"] = backend.rms_norm(tokens, s.hidden)
    times["attn_rope"] = backend.rope(tokens, s.heads, s.kv_heads, s.head_dim)
    times["add"] = backend.add(tokens, s.hidden)
    return times


def _attention(backend, model, s, settings, res):
    for b, c in plan.decode_points(settings, s.kv_heads, s.head_dim):
        t = backend.decode_attention(b, c, s.heads, s.kv_heads, s.head_dim)
        if t is not None:
            res.attention.append({"model": model.name, "num_tensor_parallel_workers": s.tp, "kind": "decode",
                                  "batch_size": b, "context_len": c, "query_len": 1, "n_q_head": s.heads,
                                  "n_kv_head": s.kv_heads, "head_dim": s.head_dim, "dtype": "bf16",
                                  "time_stats.median": tables.fmt_ms(t)})
    paged = getattr(backend, "paged_decode_attention", None)
    for b, c in plan.decode_points(settings, s.kv_heads, s.head_dim) if paged else []:
        t = paged(b, c, s.heads, s.kv_heads, s.head_dim)
        if t is None and not res.attention_paged_ok:
            break  # the smallest point failed: not available here (the backend notes why once)
        if t is not None:
            res.attention_paged_ok = True
            res.attention.append({"model": model.name, "num_tensor_parallel_workers": s.tp, "kind": "decode_paged",
                                  "batch_size": b, "context_len": c, "query_len": 1, "n_q_head": s.heads,
                                  "n_kv_head": s.kv_heads, "head_dim": s.head_dim, "dtype": "bf16",
                                  "time_stats.median": tables.fmt_ms(t)})
    for seq in settings.prefill_lengths:
        t = backend.prefill_attention(seq, s.heads, s.kv_heads, s.head_dim)
        if t is not None:
            res.attention.append({"model": model.name, "num_tensor_parallel_workers": s.tp, "kind": "prefill",
                                  "batch_size": 1, "context_len": seq, "query_len": seq, "n_q_head": s.heads,
                                  "n_kv_head": s.kv_heads, "head_dim": s.head_dim, "dtype": "bf16",
                                  "time_stats.median": tables.fmt_ms(t)})


def run_allreduce(model, settings, backend, res, log=print):
    """Adds the all-reduce rows to `res` (run after the kernel tables are written: a hung
    collective must not cost them)."""
    start = time.monotonic()
    sizes = plan.allreduce_sizes(settings, model.hidden)
    worlds = plan.world_sizes(backend.device_count(), settings.tps)
    if not worlds:
        res.notes.append(f"all-reduce not timed: {backend.device_count()} GPU(s) visible, TP degrees {settings.tps}")
        return
    for w in worlds:
        log(f"all-reduce over {w} GPUs, {len(sizes)} message sizes, eager and CUDA graph")
        got = backend.allreduce(w, sizes)
        res.notes.extend(got["notes"])
        for launch in ("eager", "cuda_graph"):
            for size, t in sorted(got[launch].items()):
                busbw = 2.0 * (w - 1) / w * size / t / 1e9  # nccl-tests' bus bandwidth for all-reduce
                res.allreduce.append({"world_size": w, "launch": launch, "num_tokens": size // (model.hidden * 2),
                                      "n_embd": model.hidden, "message_bytes": size, "dtype": "bf16",
                                      "time_stats.median": tables.fmt_ms(t),
                                      "bus_bandwidth_gbps": tables.fmt_num(busbw)})
    res.seconds += time.monotonic() - start


def run(model, settings, backend, log=print):
    """Times the kernels of `model`'s shards at settings.tps (all-reduce: run_allreduce);
    returns a Result, writes no files."""
    res = Result()
    start = time.monotonic()
    shards = [shapes.shard(model, tp) for tp in settings.tps]  # shape errors before any timing
    fp8, res.fp8 = backend.fp8_support() if settings.fp8 else (False, "not requested (--no-fp8)")
    for s in shards:
        log(f"TP {s.tp}: {len(settings.tokens)} token counts "
            f"(hq {s.heads}, hkv {s.kv_heads}, ffn {s.ffn}){' + fp8' if fp8 else ''}  [{time.monotonic() - start:.0f} s]")
        for tokens in settings.tokens:
            times = _layer_times(backend, model, s, tokens, fp8, res)
            missing = [op for op, t in times.items() if t is None]
            if missing:
                res.notes.append(f"tp={s.tp} num_tokens={tokens}: row left out, no time for {', '.join(missing)}")
                continue
            res.core.append(tables.core_row(s.tp, tokens, model, times))
        if settings.attention:
            log(f"TP {s.tp}: attention  [{time.monotonic() - start:.0f} s]")
            _attention(backend, model, s, settings, res)
        if hasattr(backend, "release"):
            backend.release()
    res.notes.extend(getattr(backend, "skipped", []))
    res.seconds = time.monotonic() - start
    return res
