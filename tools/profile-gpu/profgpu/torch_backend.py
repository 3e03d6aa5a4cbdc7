"""The measuring backend: PyTorch kernels on one CUDA or ROCm GPU, timed with device events.

Method (each point):
  * tensors are allocated once per shape and reused; inputs random normal (scaled),
  * `warmup` untimed runs (cuBLAS/hipBLASLt heuristics, Triton compilation, allocator),
  * `repeats` timed runs, each: flush the L2 (write a buffer larger than any L2 or
    Infinity Cache), record a start event, run the op, record an end event. The flush
    keeps the GPU busy while the host queues start/op/end, so the events bracket GPU
    time, not launch latency; and the op reads its weights / KV cache from HBM, as
    in serving, where every layer's weights differ,
  * the median of the repeats (robust to a stray clock or scheduling hiccup).
On a CPU device (smoke tests only) the same code times with time.perf_counter.

Kernel choices, recorded in the provenance as `implementation`:
  * GEMM bf16: torch.nn.functional.linear (cuBLAS / hipBLASLt), weights (N, K) as in nn.Linear.
  * GEMM fp8: torch._scaled_mm with per-tensor scales, e4m3 inputs (e4m3fnuz on MI300),
    bf16 output; only where the GPU has fp8 tensor cores (CUDA capability >= 8.9, gfx94x/95x).
    The activation quantization kernel that precedes it in an engine is not included.
  * RMSNorm, SiLU-and-mul, rotary: compiled with torch.compile into one fused kernel
    each (engines use fused kernels; eager PyTorch would launch 3-6), eager where
    compilation is unavailable or --elementwise eager is given.
  * residual add: torch.add (one kernel).
  * attention: torch.nn.functional.scaled_dot_product_attention (FlashAttention /
    memory-efficient / math backend, whichever PyTorch picks). Decode (one query
    token per sequence) is run as hkv heads x G query rows, G = hq / hkv, over the
    sequence's whole KV: the GQA layout decode kernels use (each KV head read once).
    It is contiguous, not paged: paged kernels (vLLM, FlashInfer) are not in PyTorch; when
    flash-attn is installed, its paged decode (flash_attn_with_kvcache with a block table) is
    timed as well (kind `decode_paged`).
"""
import statistics
import time

import torch
import torch.nn.functional as F


# Paged KV block size for flash-attn's paged decode (FlashAttention-2 needs a multiple of 256).
PAGE = 256


class TorchBackend:
    synthetic = False

    def __init__(self, device="cuda", warmup=3, repeats=10, flush_l2=True, elementwise="auto", log=print):
        self.device = torch.device(device)
        if self.device.type == "cuda":
            if not torch.cuda.is_available():
                raise RuntimeError("no CUDA/ROCm device visible to PyTorch (torch.cuda.is_available() is False)")
            torch.cuda.set_device(self.device)
        self.warmup = warmup
        self.repeats = repeats
        self.log = log
        self.skipped = []
        self.dtype = torch.bfloat16 if self.device.type == "cuda" else torch.float32
        self._weights = {}
        self._flush = None
        if flush_l2 and self.device.type == "cuda":
            # MI300X has a 256 MiB Infinity Cache, H100/H200 50-60 MiB L2, B200 126 MiB: 512 MiB covers all.
            self._flush = torch.empty(512 << 20, dtype=torch.uint8, device=self.device)
        self._fp8 = self._probe_fp8()
        self._elementwise = self._make_elementwise(elementwise)

    # --- environment ---
    def device_count(self):
        return torch.cuda.device_count() if self.device.type == "cuda" else 1

    def environment(self):
        env = {"synthetic": False, "backend": "torch", "torch": torch.__version__,
               "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
               "device_count": self.device_count(), "dtype": str(self.dtype).replace("torch.", "")}
        if self.device.type == "cuda":
            p = torch.cuda.get_device_properties(self.device)
            env.update({"gpu_name": p.name, "compute_capability": f"{p.major}.{p.minor}",
                        "gpu_memory_bytes": p.total_memory, "multiprocessors": p.multi_processor_count,
                        "gcn_arch": getattr(p, "gcnArchName", None)})
            try:
                env["cudnn"] = torch.backends.cudnn.version()
            except Exception:  # noqa: BLE001 - optional library
                env["cudnn"] = None
            try:
                env["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
            except Exception:  # noqa: BLE001
                env["nccl"] = None
        else:
            env["gpu_name"] = "cpu (smoke test, not a GPU measurement)"
        return env

    def implementation(self):
        return {"gemm_bf16": "torch.nn.functional.linear",
                "gemm_fp8": self._fp8[1],
                "elementwise": self._elementwise[0],
                "attention": "torch.nn.functional.scaled_dot_product_attention (contiguous KV, not paged)",
                "sdpa_backends_enabled": self._sdpa_backends(),
                "paged_decode_attention": (f"flash_attn.flash_attn_with_kvcache, {PAGE}-token pages"
                                           if self._flash_kvcache() else "not timed (flash-attn not installed)"),
                "timer": "device events" if self.device.type == "cuda" else "time.perf_counter (cpu)",
                "l2_flush_bytes": self._flush.numel() if self._flush is not None else 0}

    def _sdpa_backends(self):
        """Which SDPA kernels PyTorch may pick (it picks per call; the fastest eligible usually)."""
        out = {}
        for name in ("flash", "mem_efficient", "math", "cudnn"):
            fn = getattr(torch.backends.cuda, f"{name}_sdp_enabled", None)
            if fn is not None:
                out[name] = bool(fn())
        return out

    # --- timing ---
    def _time(self, fn):
        """Median seconds of fn() over the repeats, or None when it fails (recorded)."""
        for _ in range(self.warmup):
            fn()
        if self.device.type != "cuda":
            times = []
            for _ in range(self.repeats):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return statistics.median(times)
        events = []
        for _ in range(self.repeats):
            if self._flush is not None:
                self._flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize(self.device)
        return statistics.median(s.elapsed_time(e) for s, e in events) * 1e-3

    def _guard(self, what, build):
        """Builds the op and times it; out-of-memory and unsupported shapes become a skip."""
        try:
            return self._time(build())
        except Exception as e:  # noqa: BLE001 - OOM, unsupported shape or dtype, compiler errors: skip the point
            msg = str(e).splitlines()[0][:200]
            self.skipped.append(f"{what}: {type(e).__name__}: {msg}")
            self.log(f"  skipped {what}: {msg}")
            if self.device.type == "cuda":
                torch.cuda.empty_cache()
            return None

    def release(self):
        """Drops cached weights (called between TP degrees)."""
        self._weights.clear()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _randn(self, *shape, dtype=None):
        return torch.randn(*shape, device=self.device, dtype=dtype or self.dtype) * 0.05

    # --- GEMMs ---
    def _probe_fp8(self):
        if self.device.type != "cuda":
            return None, "unavailable: not a GPU"
        if not hasattr(torch, "_scaled_mm"):
            return None, f"unavailable: torch {torch.__version__} has no torch._scaled_mm"
        hip = getattr(torch.version, "hip", None)
        p = torch.cuda.get_device_properties(self.device)
        if hip:
            arch = getattr(p, "gcnArchName", "") or ""
            if "gfx94" in arch and hasattr(torch, "float8_e4m3fnuz"):
                fp8 = torch.float8_e4m3fnuz  # MI300 uses the "fnuz" encoding
            elif "gfx95" in arch or "gfx12" in arch:
                fp8 = torch.float8_e4m3fn
            else:
                return None, f"unavailable: {arch or 'this AMD GPU'} has no fp8 matrix cores"
        else:
            if (p.major, p.minor) < (8, 9):
                return None, f"unavailable: compute capability {p.major}.{p.minor} < 8.9 (no fp8 tensor cores)"
            fp8 = torch.float8_e4m3fn
        try:  # one small product: the API differs between torch releases
            a = torch.zeros(16, 32, device=self.device).to(fp8)
            b = torch.zeros(32, 16, device=self.device).to(fp8).t().contiguous().t()
            self._scaled_mm(a, b)
        except Exception as e:  # noqa: BLE001 - any failure means: do not time fp8
            return None, f"unavailable: torch._scaled_mm failed: {str(e).splitlines()[0][:160]}"
        self._fp8_dtype = fp8
        return fp8, f"torch._scaled_mm, {str(fp8).replace('torch.', '')} inputs, per-tensor scales, bf16 out"

    def _scaled_mm(self, a, b):
        one = torch.ones((), device=self.device, dtype=torch.float32)
        out = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        return out[0] if isinstance(out, tuple) else out  # torch < 2.4 returned (out, amax)

    def fp8_support(self):
        return self._fp8[0] is not None, self._fp8[1]

    def _weight(self, k, n, dtype, bias):
        key = (k, n, dtype, bias)
        if key not in self._weights:
            w = self._randn(n, k)
            if dtype == "fp8":
                w = w.to(self._fp8_dtype)  # (N, K) row-major: .t() is the column-major B _scaled_mm wants
            self._weights[key] = (w, self._randn(n) if bias else None)
        return self._weights[key]

    def gemm(self, m, k, n, dtype="bf16", bias=False):
        def build():
            w, b = self._weight(k, n, dtype, bias)
            if dtype == "fp8":
                x = self._randn(m, k).to(self._fp8_dtype)
                return lambda: self._scaled_mm(x, w.t())
            x = self._randn(m, k)
            return lambda: F.linear(x, w, b)
        return self._guard(f"gemm {dtype} M={m} K={k} N={n}", build)

    # --- elementwise ---
    def _make_elementwise(self, mode):
        def rms_norm(x, w):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)

        def silu_mul(x):
            d = x.shape[-1] // 2
            return F.silu(x[..., :d]) * x[..., d:]

        def gelu(x):
            return F.gelu(x, approximate="tanh")

        def rope(q, k, cos, sin):
            # NeoX-style rotation of q and k (heads flattened in the last dim, as in vLLM's kernel input).
            def rot(x):
                t, hd = x.shape[0], cos.shape[-1] * 2
                x = x.view(t, -1, hd)
                x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
                c, s = cos[:, None, :], sin[:, None, :]
                return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).view(t, -1)
            return rot(q), rot(k)

        fns = {"rms_norm": rms_norm, "silu_mul": silu_mul, "gelu": gelu, "rope": rope}
        if mode == "eager":
            return "eager PyTorch ops (--elementwise eager)", fns
        if self.device.type != "cuda" or not hasattr(torch, "compile"):
            why = "not a GPU" if self.device.type != "cuda" else f"torch {torch.__version__} has no torch.compile"
            if mode == "compiled":
                raise RuntimeError(f"--elementwise compiled: {why}")
            return f"eager PyTorch ops ({why})", fns
        try:
            compiled = {name: torch.compile(fn, dynamic=True) for name, fn in fns.items()}
            # Compile each now on small inputs: a failure (no Triton, an unsupported GPU) must
            # show here, not drop every row mid-run.
            x, q, kk = self._randn(8, 64), self._randn(8, 4 * 64), self._randn(8, 2 * 64)
            ang = self._randn(8, 32)
            compiled["rms_norm"](x, self._randn(64))
            compiled["silu_mul"](x)
            compiled["gelu"](x)
            compiled["rope"](q, kk, ang.cos(), ang.sin())
            return "torch.compile (one fused Triton kernel per op)", compiled
        except Exception as e:  # noqa: BLE001
            if mode == "compiled":
                raise
            msg = str(e).splitlines()[0][:160]
            self.log(f"torch.compile failed ({msg}); timing eager elementwise ops")
            return f"eager PyTorch ops (torch.compile failed: {msg})", fns

    def rms_norm(self, tokens, hidden):
        def build():
            x, w = self._randn(tokens, hidden), self._randn(hidden)
            return lambda: self._elementwise[1]["rms_norm"](x, w)
        return self._guard(f"rms_norm T={tokens} h={hidden}", build)

    def add(self, tokens, hidden):
        def build():
            x, r, out = self._randn(tokens, hidden), self._randn(tokens, hidden), self._randn(tokens, hidden)
            return lambda: torch.add(x, r, out=out)
        return self._guard(f"add T={tokens} h={hidden}", build)

    def act(self, tokens, ffn, gated):
        def build():
            x = self._randn(tokens, (2 if gated else 1) * ffn)
            fn = self._elementwise[1]["silu_mul" if gated else "gelu"]
            return lambda: fn(x)
        return self._guard(f"act T={tokens} ffn={ffn}", build)

    def rope(self, tokens, q_heads, kv_heads, head_dim):
        def build():
            q, k = self._randn(tokens, q_heads * head_dim), self._randn(tokens, kv_heads * head_dim)
            pos = torch.arange(tokens, device=self.device, dtype=torch.float32)
            inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, device=self.device, dtype=torch.float32) / head_dim))
            ang = pos[:, None] * inv[None, :]
            cos, sin = ang.cos().to(self.dtype), ang.sin().to(self.dtype)
            fn = self._elementwise[1]["rope"]
            return lambda: fn(q, k, cos, sin)
        return self._guard(f"rope T={tokens} hq={q_heads} hkv={kv_heads}", build)

    # --- attention ---
    def _has_sdpa(self):
        """SDPA arrived in torch 2.0; without it attention is skipped with one note, not one per point."""
        if hasattr(F, "scaled_dot_product_attention"):
            return True
        note = f"attention not timed: torch {torch.__version__} has no scaled_dot_product_attention (needs >= 2.0)"
        if note not in self.skipped:
            self.skipped.append(note)
            self.log(note)
        return False

    def decode_attention(self, batch, context, q_heads, kv_heads, head_dim):
        if not self._has_sdpa():
            return None

        def build():
            g = q_heads // kv_heads
            q = self._randn(batch, kv_heads, g, head_dim)
            k = self._randn(batch, kv_heads, context, head_dim)
            v = self._randn(batch, kv_heads, context, head_dim)
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=False)
        return self._guard(f"decode attention B={batch} C={context}", build)

    def paged_decode_attention(self, batch, context, q_heads, kv_heads, head_dim):
        """Decode over a paged KV cache with flash-attn's flash_attn_with_kvcache (block_table),
        the kind of kernel engines run; None when flash-attn is not installed (one note)."""
        fn = self._flash_kvcache()
        if fn is None:
            return None

        def build():
            blocks_per_seq = -(-context // PAGE)
            k = self._randn(batch * blocks_per_seq, PAGE, kv_heads, head_dim)
            v = self._randn(batch * blocks_per_seq, PAGE, kv_heads, head_dim)
            # Sequences' pages interleaved in the pool, as after many allocations and frees.
            table = torch.arange(batch * blocks_per_seq, device=self.device, dtype=torch.int32)
            table = table.view(blocks_per_seq, batch).t().contiguous()
            lens = torch.full((batch,), context, device=self.device, dtype=torch.int32)
            q = self._randn(batch, 1, q_heads, head_dim)
            return lambda: fn(q, k, v, cache_seqlens=lens, block_table=table, causal=True)
        return self._guard(f"paged decode attention B={batch} C={context}", build)

    def _flash_kvcache(self):
        if not hasattr(self, "_flash_fn"):
            self._flash_fn = None
            if self.device.type == "cuda":
                try:
                    from flash_attn import flash_attn_with_kvcache
                    self._flash_fn = flash_attn_with_kvcache
                except ImportError as e:
                    self.skipped.append(f"paged decode attention not timed: flash-attn not importable ({e})")
        return self._flash_fn

    def prefill_attention(self, seq, q_heads, kv_heads, head_dim):
        if not self._has_sdpa():
            return None

        def build():
            q = self._randn(1, q_heads, seq, head_dim)
            k, v = self._randn(1, kv_heads, seq, head_dim), self._randn(1, kv_heads, seq, head_dim)
            if kv_heads != q_heads:
                try:  # torch >= 2.5 reads the shared KV heads in place
                    F.scaled_dot_product_attention(q[:, :, :1], k[:, :, :1], v[:, :, :1], enable_gqa=True)
                    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                except TypeError:  # older: repeat KV heads outside the timed region (prefill is compute-bound)
                    rep = q_heads // kv_heads
                    k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self._guard(f"prefill attention S={seq}", build)

    # --- all-reduce ---
    def allreduce(self, world, sizes):
        """{"eager": {bytes: s}, "cuda_graph": {bytes: s}, "notes": [...]}."""
        self.release()  # the workers share GPU 0 with this process
        from . import allreduce as ar
        return ar.measure(world, sizes, self.warmup, self.repeats, self.log)
