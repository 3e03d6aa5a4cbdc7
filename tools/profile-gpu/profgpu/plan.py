"""What to measure: token counts, attention grids, all-reduce sizes, repeats.

Kept apart from the timing so that the shape of a run (and its cost) can be checked
without a GPU. The full plan aims at ~5 minutes on one Hopper-class GPU for one model at
TP 1/2/4/8; --quick at ~1 minute (fewer points, fewer repeats, no fp8 prefill grid).
"""
from dataclasses import dataclass, field

# GEMM M values. Dense at small M, where the tile-fill ramp (servesim's gemm_tokens_half)
# and the memory-bound decode regime live; geometric above. `servesim calibrate operators
# --split tokens` holds out every 4th distinct value, so every regime keeps held-out points.
FULL_TOKENS = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768,
               1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192, 12288, 16384]
QUICK_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]

# Decode attention: batch x context (tokens already in the KV cache per sequence).
FULL_DECODE_BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
FULL_DECODE_CONTEXT = [128, 512, 1024, 2048, 4096, 8192, 16384, 32768]
QUICK_DECODE_BATCH = [1, 8, 64, 256]
QUICK_DECODE_CONTEXT = [512, 2048, 8192]

# Prefill attention: one causal sequence of this many tokens.
FULL_PREFILL = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
QUICK_PREFILL = [256, 1024, 4096]


@dataclass
class Settings:
    tps: list
    tokens: list
    decode_batch: list
    decode_context: list
    prefill_lengths: list
    warmup: int
    repeats: int
    fp8: bool = True
    attention: bool = True
    allreduce: bool = True
    flush_l2: bool = True
    kv_budget_bytes: int = 8 << 30  # largest KV cache one decode-attention point may allocate
    notes: list = field(default_factory=list)


def make_settings(tps, quick=False, max_tokens=None, max_context=None, repeats=None, warmup=None):
    tokens = list(QUICK_TOKENS if quick else FULL_TOKENS)
    context = list(QUICK_DECODE_CONTEXT if quick else FULL_DECODE_CONTEXT)
    prefill = list(QUICK_PREFILL if quick else FULL_PREFILL)
    if max_tokens is not None:
        tokens = [t for t in tokens if t <= max_tokens]
    if max_context is not None:
        # Longer than the model attends over is never served; no point timing it.
        context = [c for c in context if c <= max_context]
        prefill = [s for s in prefill if s <= max_context]
    return Settings(
        tps=sorted(set(tps)), tokens=tokens,
        decode_batch=list(QUICK_DECODE_BATCH if quick else FULL_DECODE_BATCH),
        decode_context=context, prefill_lengths=prefill,
        warmup=warmup if warmup is not None else (2 if quick else 3),
        repeats=repeats if repeats is not None else (5 if quick else 10))


def decode_points(settings, kv_heads, head_dim, bytes_per_elem=2):
    """(batch, context) pairs whose K and V fit the budget, smallest first."""
    out = []
    for b in settings.decode_batch:
        for c in settings.decode_context:
            kv = 2 * b * c * kv_heads * head_dim * bytes_per_elem
            if kv <= settings.kv_budget_bytes:
                out.append((b, c))
    return out


def allreduce_sizes(settings, hidden, bytes_per_elem=2):
    """Message bytes of the TP all-reduce after attention and after the MLP: one
    activation of num_tokens x hidden (sim/cost/step_cost.cpp, tp_allreduce)."""
    return sorted({t * hidden * bytes_per_elem for t in settings.tokens})


def world_sizes(device_count, tps):
    """All-reduce group sizes to time: every requested TP degree > 1 the box can hold."""
    return [w for w in sorted(set(tps)) if 1 < w <= device_count]


def describe(settings, model, shards):
    """Lines saying what a run will time (--dry-run), so its cost is known before renting."""
    per_row = 4 * (2 if settings.fp8 else 1) + 5  # GEMMs (bf16, fp8) + act, 2 norms, rope, add
    runs = settings.warmup + settings.repeats
    lines = [f"model {model.name}: hidden {model.hidden}, heads {model.heads}/{model.kv_heads}, ffn {model.ffn}",
             f"token counts ({len(settings.tokens)}): {settings.tokens}",
             f"each point: {settings.warmup} warm-up + {settings.repeats} timed runs"]
    total = 0
    for s in shards:
        dec = len(decode_points(settings, s.kv_heads, s.head_dim)) if settings.attention else 0
        pre = len(settings.prefill_lengths) if settings.attention else 0
        n = len(settings.tokens) * per_row + dec + pre
        total += n
        lines.append(f"TP {s.tp}: {len(settings.tokens)} rows x {per_row} kernels, {dec} decode-attention and "
                     f"{pre} prefill-attention points ({n} points)")
    lines.append(f"total: {total} kernel points, {total * runs} kernel runs"
                 + (f"; all-reduce: {len(allreduce_sizes(settings, model.hidden))} sizes per group of "
                    f"2..{max(settings.tps)} GPUs the machine has" if settings.allreduce and max(settings.tps) > 1
                    else ""))
    return lines
