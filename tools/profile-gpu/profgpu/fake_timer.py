"""--fake-timer: a SYNTHETIC backend that computes kernel times from a closed-form
roofline instead of measuring. It exists to test the pipeline (shapes -> tables ->
`servesim calibrate operators`) on machines without a GPU. Its numbers are not
measurements and must never be committed as data: the provenance files say
"synthetic", and the CLI refuses to write them under data/.

The closed form, per kernel (seconds):
  GEMM  M x K x N (weights K x N):
      flops = 2 M K N,   bytes = (K N + M K + M N) * 2            (bf16; fp8: 1-byte inputs)
      t = max(flops / (peak * gemm_compute * M / (M + gemm_tokens_half)),
              bytes / (bandwidth * gemm_memory)) + kernel_overhead
  elementwise, one kernel moving `bytes` through HBM:
      t = bytes / (bandwidth * elementwise_memory) + kernel_overhead
      RMSNorm: read x, write y: 2 T h * 2     residual add: read 2, write 1: 3 T h * 2
      SiLU-and-mul: read 2 ffn, write ffn: 3 T ffn * 2 (GELU, not gated: 2 T ffn * 2)
      rotary: read and write q and k: 2 T (hq + hkv) d * 2
  decode attention (batch B, context C): K and V read once,
      bytes = 2 B C hkv d * 2,  flops = 4 B hq C d
      t = max(flops / (peak * attention_compute), bytes / (bandwidth * attention_memory)) + kernel_overhead
  prefill attention (causal, S tokens): flops = 2 S^2 hq d (half of the 4 S^2 hq d square)
      t = flops / (peak * attention_compute) + kernel_overhead
  all-reduce of `bytes` over w GPUs (ring): t = 2 (w-1)/w * bytes / (link * comm_bandwidth) + latency
      (cuda_graph launch mode: + latency / 2)

These are the same GEMM and elementwise formulas as servesim's CostModel
(sim/cost/step_cost.cpp, finish_op with gemm_overlap = 1), so a fit on synthetic tables
should return the constants below; tests/profile_gpu/check_fake_calibration.py checks it.
"""
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class FakeGpu:
    # Peaks of the A100 SXM4 80GB datasheet (hardware/a100-sxm4-80gb.yaml), so that a fit
    # against `--gpu a100-sxm4-80gb` compares efficiencies on the same peaks.
    name: str = "synthetic-roofline (A100 SXM4 80GB peaks)"
    peak_bf16: float = 312e12       # FLOP/s, dense bf16 tensor peak
    peak_fp8: float = 624e12        # FLOP/s; A100 has no fp8: a made-up Hopper-like 2x for the fp8 path
    bandwidth: float = 2.039e12     # B/s, HBM
    link_bandwidth: float = 300e9   # B/s per direction, NVLink3
    # The efficiencies the synthetic times are built from (what a fit should recover).
    gemm_compute: float = 0.72
    gemm_compute_fp8: float = 0.55  # lower fraction of a higher peak, as the issue observes on Hopper
    gemm_tokens_half: float = 40.0
    gemm_memory: float = 0.85
    elementwise_memory: float = 0.70
    kernel_overhead: float = 4e-6
    attention_compute: float = 0.45
    attention_memory: float = 0.75
    comm_bandwidth: float = 0.80
    comm_latency: float = 8e-6
    devices: int = 1                # GPUs the fake box pretends to have (all-reduce needs >= 2)


class FakeBackend:
    synthetic = True

    def __init__(self, gpu=None):
        self.gpu = gpu or FakeGpu()
        self.skipped = []

    # --- environment ---
    def environment(self):
        return {"synthetic": True, "backend": "fake-timer (closed-form roofline, NOT measured)",
                "gpu_name": self.gpu.name, "device_count": self.gpu.devices,
                "fake_gpu": asdict(self.gpu)}

    def device_count(self):
        return self.gpu.devices

    def fp8_support(self):
        return True, "synthetic fp8 (peak_fp8 x gemm_compute_fp8)"

    # --- kernels ---
    def gemm(self, m, k, n, dtype="bf16", bias=False):
        g = self.gpu
        in_bytes = 1 if dtype == "fp8" else 2
        flops = 2.0 * m * k * n
        nbytes = (k * n + m * k) * in_bytes + m * n * 2  # output in bf16
        peak, eff = (g.peak_fp8, g.gemm_compute_fp8) if dtype == "fp8" else (g.peak_bf16, g.gemm_compute)
        compute = flops / (peak * eff * m / (m + g.gemm_tokens_half))
        memory = nbytes / (g.bandwidth * g.gemm_memory)
        return max(compute, memory) + g.kernel_overhead

    def _stream(self, nbytes):
        return nbytes / (self.gpu.bandwidth * self.gpu.elementwise_memory) + self.gpu.kernel_overhead

    def rms_norm(self, tokens, hidden):
        return self._stream(2.0 * tokens * hidden * 2)

    def add(self, tokens, hidden):
        return self._stream(3.0 * tokens * hidden * 2)

    def act(self, tokens, ffn, gated):
        return self._stream((3.0 if gated else 2.0) * tokens * ffn * 2)

    def rope(self, tokens, q_heads, kv_heads, head_dim):
        return self._stream(2.0 * tokens * (q_heads + kv_heads) * head_dim * 2)

    def decode_attention(self, batch, context, q_heads, kv_heads, head_dim):
        g = self.gpu
        nbytes = 2.0 * batch * context * kv_heads * head_dim * 2
        flops = 4.0 * batch * q_heads * context * head_dim
        return max(flops / (g.peak_bf16 * g.attention_compute),
                   nbytes / (g.bandwidth * g.attention_memory)) + g.kernel_overhead

    def prefill_attention(self, seq, q_heads, kv_heads, head_dim):
        g = self.gpu
        return 2.0 * seq * seq * q_heads * head_dim / (g.peak_bf16 * g.attention_compute) + g.kernel_overhead

    def allreduce(self, world, sizes):
        g = self.gpu
        wire = {s: 2.0 * (world - 1) / world * s / (g.link_bandwidth * g.comm_bandwidth) for s in sizes}
        # In a graph the launch part of the latency is gone; the fake takes half of it as launch.
        return {"eager": {s: t + g.comm_latency for s, t in wire.items()},
                "cuda_graph": {s: t + 0.5 * g.comm_latency for s, t in wire.items()}, "notes": []}

    def implementation(self):
        return {"gemm": "closed form", "elementwise": "closed form", "attention": "closed form"}
