#pragma once
// The calibratable knobs of the roofline: achievable fractions of peak and fixed
// overheads. Defaults are conservative figures from public measurements (cited in
// each comment); hardware YAML, scenarios and `servesim calibrate` override them.
#include <string>
#include <vector>

namespace servesim {

struct Efficiency {
  // Large dense GEMMs reach 70-80% of dense tensor peak (cuBLAS on A100/H100, e.g.
  // NVIDIA "Matrix Multiplication Background" guide; Vidur A100 profiles ~0.7).
  double gemm_compute = 0.70;
  // GEMM compute efficiency ramps with the token dimension M (tile fill):
  // eff(M) = gemm_compute * M / (M + gemm_tokens_half). Tokens at half efficiency.
  double gemm_tokens_half = 48.0;
  // Weight streaming in skinny (decode) GEMMs reaches ~80% of HBM peak.
  double gemm_memory = 0.80;
  // Fraction of the shorter of a GEMM's compute and memory times hidden under the
  // longer: time = max(c, m) + (1 - gemm_overlap) * min(c, m). 1 is the pure
  // roofline; below 1, GEMMs near the ridge point (prefill chunks of ~100-300 tokens)
  // are slower than either bound, as measured for small prefills (LMDeploy A100:
  // 128-token prefill ~2x a decode step, docs/validation.md). Fitted, not assumed.
  double gemm_overlap = 1.0;
  // FlashAttention-2 forward: ~50-70% of peak on A100, ~35-50% on H100 (Dao 2023).
  double attention_compute = 0.50;
  // Paged decode attention reads KV at ~60-75% of HBM bandwidth (vLLM kernels).
  double attention_memory = 0.70;
  // Norms, rotary, activation, residual: bandwidth-bound, small tensors.
  double elementwise_memory = 0.60;
  // NCCL ring all-reduce bus bandwidth / link peak (nccl-tests: ~0.75-0.85 at MB sizes).
  double comm_bandwidth = 0.75;
  // Weight-only quantized GEMMs (int4/fp8 weights, 16-bit compute): dequantization
  // keeps this fraction of the 16-bit compute rate (Marlin/AWQ kernels).
  double dequant_compute = 0.80;
  // Fixed GPU time per kernel (launch + tail); ~2-5 us (CUDA graphs shrink launch).
  double kernel_overhead = 3e-6;
  // Fixed time per forward step outside kernels (input prep, sync), seconds.
  double step_overhead = 0.5e-3;
};

// Names of the fields, in declaration order, for YAML keys, `inspect` and calibration.
std::vector<std::string> efficiency_field_names();
double& efficiency_field(Efficiency& e, const std::string& name);
double efficiency_field(const Efficiency& e, const std::string& name);
// Which fields are durations (read with a time unit in YAML).
bool efficiency_field_is_time(const std::string& name);

}  // namespace servesim
