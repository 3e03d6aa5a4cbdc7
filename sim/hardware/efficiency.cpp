#include "hardware/efficiency.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

// The one table of efficiency knobs. Defaults are conservative figures from public
// measurements (the citation of each); GPU files, scenarios and `servesim calibrate`
// override them. Fit bounds: fractions of peak stay inside (0, 1) with the margins
// measured kernels never cross; overheads >= 0 up to a few times the largest seen.
const std::vector<EfficiencyKnob>& efficiency_knobs() {
  static const std::vector<EfficiencyKnob> t = {
      {"gemm_compute", &Efficiency::gemm_compute, KnobKind::fraction, 0.70,
       "large dense GEMMs: achieved fraction of the dense tensor peak",
       "70-80% of dense peak for large GEMMs (cuBLAS on A100/H100, NVIDIA \"Matrix Multiplication Background\" "
       "guide; Vidur A100 profiles ~0.7)",
       0.3, 0.95, ""},
      {"gemm_tokens_half", &Efficiency::gemm_tokens_half, KnobKind::tokens, 48.0,
       "tokens (GEMM M dimension) at which compute efficiency is half of gemm_compute: eff(M) = gemm_compute * M / "
       "(M + gemm_tokens_half), the tile-fill ramp",
       "assumption, fitted by `servesim calibrate operators` to per-GEMM timings",
       1.0, 1024.0, ""},
      {"gemm_8bit_compute_ratio", &Efficiency::gemm_8bit_compute_ratio, KnobKind::fraction, 1.0,
       "GEMMs with 8-bit compute (fp8, int8 activations and weights): their achieved fraction of the 8-bit dense "
       "tensor peak as a ratio to gemm_compute (the 16-bit fraction); 1: the same fraction of peak",
       "1, the 16-bit fraction: NVIDIA's cuBLAS 12.9 blog (2025) has H100 block-scaled FP8 matmuls at 1.75x BF16 "
       "for large shapes (0.875 of bf16's fraction of a 2x peak), but 0.875 moved the held-out TensorRT-LLM v0.11 "
       "fp8 throughput rows from 9.3% to 11.4% median error (docs/validation.md)",
       0.3, 1.0, ""},
      {"gemm_4bit_compute_ratio", &Efficiency::gemm_4bit_compute_ratio, KnobKind::fraction, 1.0,
       "GEMMs with 4-bit compute (fp4: NVFP4 / MXFP4 activations and weights): their achieved fraction of the 4-bit "
       "dense tensor peak as a ratio to gemm_compute; 1: the same fraction",
       "1 where nothing is measured; Blackwell GPU files set their own, fitted on TensorRT-LLM 1.0 NVFP4 throughput "
       "rows (hardware/b200.yaml, docs/validation-report.md)",
       0.2, 1.0, ""},
      {"gemm_memory", &Efficiency::gemm_memory, KnobKind::fraction, 0.80,
       "weight streaming in skinny (decode) GEMMs: achieved fraction of HBM peak bandwidth",
       "fallback for GPUs without a measured value: ~80% of peak, what Vidur's A100 and A40 decode GEMMs reach "
       "(0.796, 0.788); catalog GPUs with kernel tables set their own (H100 SXM5 0.906; "
       "tools/fit/memory_fraction.py)",
       0.4, 0.98, ""},
      {"gemm_overlap", &Efficiency::gemm_overlap, KnobKind::share, 1.0,
       "share of the shorter of a GEMM's compute and memory times hidden under the longer: time = max(c, m) + (1 - "
       "gemm_overlap) * min(c, m); 1 is the pure roofline",
       "1 (pure roofline) unless fitted: small prefills near the ridge point are slower than either bound (LMDeploy "
       "A100: a 128-token prefill ~2x a decode step, docs/validation.md)",
       0.0, 1.0, ""},
      {"attention_compute", &Efficiency::attention_compute, KnobKind::fraction, 0.50,
       "FlashAttention forward (prefill): achieved fraction of the tensor peak",
       "FlashAttention-2 forward: ~50-70% of peak on A100, ~35-50% on H100 (Dao 2023)",
       0.2, 0.9, ""},
      {"attention_memory", &Efficiency::attention_memory, KnobKind::fraction, 0.70,
       "paged decode attention: achieved fraction of HBM bandwidth reading the KV cache",
       "paged decode attention reads KV at ~60-75% of HBM bandwidth (vLLM paged-attention kernels)",
       0.3, 0.98, ""},
      {"elementwise_memory", &Efficiency::elementwise_memory, KnobKind::fraction, 0.60,
       "norms, rotary, activation, residual: achieved fraction of HBM bandwidth",
       "assumption: bandwidth-bound kernels on small tensors stay well below peak; fitted by `calibrate operators`",
       0.2, 0.95, ""},
      {"elementwise_bytes_per_sm_cycle", &Efficiency::elementwise_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "elementwise kernels' throughput cap in bytes moved per SM clock cycle, on GPUs whose file gives sm_count and "
       "boost_clock: rate = min(elementwise_memory x HBM peak, this x SMs x boost clock); 0: no cap (bandwidth "
       "alone)",
       "0: off (the bandwidth-only form). Fitted on Vidur's tables (calibrate operators): A100 6.42, H100 6.95 "
       "bytes per SM-cycle; as a default it did not lower held-out error (docs/validation.md)",
       0.0, 20.0, ""},
      {"act_bytes_per_sm_cycle", &Efficiency::act_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "SiLU-and-mul (mlp_act, moe_act): bytes moved per SM clock cycle, rate = min(stream_memory x HBM peak, "
       "this x SMs x boost clock); > 0 turns on this kind's SM-bound form (act_floor_cycles, act_tokens_per_sm) "
       "on GPUs whose file gives sm_count and boost_clock; 0: the shared elementwise knobs",
       "0: off (the shared form). Fitted on Vidur's tables (calibrate operators, beyond the L2, with "
       "act_fp32_per_byte 2): A100 8.13, H100 8.26 (6.48, 7.32 without the FP32 term); as a default (with the A100 "
       "fit's other elementwise knobs) it moved the held-out serving runs from 2.4% to 3.2% TPOT (docs/validation.md)",
       0.0, 20.0, ""},
      {"act_floor_cycles", &Efficiency::act_floor_cycles, KnobKind::cycles, 0.0,
       "SiLU-and-mul (mlp_act, moe_act): fixed time per kernel in SM clock cycles (floor / boost clock), with "
       "act_bytes_per_sm_cycle > 0",
       "0 (used only with act_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 1868, H100 2118 cycles (1.1-1.3 "
       "us)",
       0.0, 20000.0, ""},
      {"act_tokens_per_sm", &Efficiency::act_tokens_per_sm, KnobKind::tokens_per_sm, 0.0,
       "SiLU-and-mul (mlp_act, moe_act): occupancy threshold, with act_bytes_per_sm_cycle > 0: a kernel over "
       "fewer than this x SMs tokens "
       "(one thread block per token) takes as long as one over that many",
       "0 (used only with act_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 1.02, H100 1.02 "
       "(SiLU-and-mul is flat up to ~64-128 tokens on both)",
       0.0, 4.0, ""},
      {"act_l2_bytes_per_sm_cycle", &Efficiency::act_l2_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "SiLU-and-mul (mlp_act, moe_act): bytes moved per SM clock cycle by a kernel whose bytes "
       "per launch fit in the GPU's L2 cache (l2_cache in the GPU file), with act_bytes_per_sm_cycle > 0; not "
       "capped by HBM; 0: act_bytes_per_sm_cycle at every size",
       "0: one rate at every size. Fitted on Vidur's tables (calibrate operators, with act_fp32_per_byte 2): A100 "
       "8.29, H100 7.84 "
       "(docs/validation.md, \"L2-resident kernels\")",
       0.0, 20.0, ""},
      {"norm_bytes_per_sm_cycle", &Efficiency::norm_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "fused residual add + RMSNorm (attn_norm_residual, final_norm): bytes moved per SM clock cycle, rate = "
       "min(stream_memory x HBM peak, this x SMs x boost "
       "clock); > 0 turns on this kind's SM-bound form (norm_floor_cycles, norm_tokens_per_sm) on GPUs whose file "
       "gives sm_count and boost_clock; 0: the shared elementwise knobs",
       "0: off (the shared form). Fitted on Vidur's tables (calibrate operators, beyond the L2, on Vidur's "
       "unfused work, with norm_fp32_per_byte 0.5375): A100 7.74, H100 7.66 (docs/validation.md)",
       0.0, 20.0, ""},
      {"norm_floor_cycles", &Efficiency::norm_floor_cycles, KnobKind::cycles, 0.0,
       "fused residual add + RMSNorm (attn_norm_residual, final_norm): fixed time per kernel in SM clock cycles "
       "(floor / boost clock), with norm_bytes_per_sm_cycle > 0",
       "0 (used only with norm_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 2388, H100 3154 cycles "
       "(per unfused kernel; traded against norm_tokens_per_sm)",
       0.0, 20000.0, ""},
      {"norm_tokens_per_sm", &Efficiency::norm_tokens_per_sm, KnobKind::tokens_per_sm, 0.0,
       "fused residual add + RMSNorm (attn_norm_residual, final_norm): occupancy threshold, with "
       "norm_bytes_per_sm_cycle > 0: a kernel over fewer than this x SMs tokens "
       "(one thread block per token) takes as long as one over that many",
       "0 (used only with norm_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 1.01, H100 1.07",
       0.0, 4.0, ""},
      {"norm_l2_bytes_per_sm_cycle", &Efficiency::norm_l2_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "fused residual add + RMSNorm (attn_norm_residual, final_norm): bytes moved per SM clock cycle by a kernel whose bytes "
       "per launch fit in the GPU's L2 cache (l2_cache in the GPU file), with norm_bytes_per_sm_cycle > 0; not "
       "capped by HBM; 0: norm_bytes_per_sm_cycle at every size",
       "0: one rate at every size. Fitted on Vidur's tables (calibrate operators, with norm_fp32_per_byte 0.5375): "
       "A100 9.88, H100 9.67 "
       "(docs/validation.md, \"L2-resident kernels\")",
       0.0, 20.0, ""},
      {"rope_bytes_per_sm_cycle", &Efficiency::rope_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "rotary embedding (rope): bytes moved per SM clock cycle, rate = min(stream_memory x HBM peak, this x SMs x "
       "boost "
       "clock); > 0 turns on this kind's SM-bound form (rope_floor_cycles, rope_tokens_per_sm) on GPUs whose file "
       "gives sm_count and boost_clock; 0: the shared elementwise knobs",
       "0: off (the shared form). Fitted on Vidur's tables (calibrate operators, beyond the L2, with "
       "rope_fp32_per_byte 0.75): A100 6.05, H100 6.41 (docs/validation.md)",
       0.0, 20.0, ""},
      {"rope_floor_cycles", &Efficiency::rope_floor_cycles, KnobKind::cycles, 0.0,
       "rotary embedding (rope): fixed time per kernel in SM clock cycles (floor / boost clock), with "
       "rope_bytes_per_sm_cycle > 0",
       "0 (used only with rope_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 3065, H100 3358 cycles",
       0.0, 20000.0, ""},
      {"rope_tokens_per_sm", &Efficiency::rope_tokens_per_sm, KnobKind::tokens_per_sm, 0.0,
       "rotary embedding (rope): occupancy threshold, with rope_bytes_per_sm_cycle > 0: a kernel over fewer than "
       "this x SMs tokens "
       "(one thread block per token) takes as long as one over that many",
       "0 (used only with rope_bytes_per_sm_cycle > 0). Fitted on Vidur's tables: A100 1.04, H100 1.12",
       0.0, 4.0, ""},
      {"rope_l2_bytes_per_sm_cycle", &Efficiency::rope_l2_bytes_per_sm_cycle, KnobKind::sm_rate, 0.0,
       "rotary embedding (rope): bytes moved per SM clock cycle by a kernel whose bytes "
       "per launch fit in the GPU's L2 cache (l2_cache in the GPU file), with rope_bytes_per_sm_cycle > 0; not "
       "capped by HBM; 0: rope_bytes_per_sm_cycle at every size",
       "0: one rate at every size. Fitted on Vidur's tables (calibrate operators, with rope_fp32_per_byte 0.75): "
       "A100 6.79, H100 6.99 "
       "(docs/validation.md, \"L2-resident kernels\")",
       0.0, 20.0, ""},
      // FP32 instructions per byte: counted, not fitted (tools/operator-prototype/kernels/count_fp32.py
      // decodes the kernels' machine code for sm_80 and sm_90; the counts agree on both).
      {"act_fp32_per_byte", &Efficiency::act_fp32_per_byte, KnobKind::fp32_per_byte, 2.0,
       "SiLU-and-mul (mlp_act, moe_act): FP32 instructions (FFMA, FADD, FMUL) its kernel issues per byte moved, "
       "with act_bytes_per_sm_cycle > 0 on a GPU whose file gives the FP32 peak: each byte costs "
       "1 / act_bytes_per_sm_cycle SM-cycles plus this / (FP32 lanes per SM = FP32 peak / (2 x SMs x clock)); "
       "0: no arithmetic term",
       "2: 12 per element (expf and an IEEE division in FP32, the product) over its 6 bytes, counted in the "
       "machine code of sarathi-serve's silu_and_mul_kernel, the kernel Vidur's tables time, for sm_80 and sm_90 "
       "alike (docs/validation.md, \"FP32 issue\")",
       0.0, 10.0, ""},
      {"norm_fp32_per_byte", &Efficiency::norm_fp32_per_byte, KnobKind::fp32_per_byte, 0.5375,
       "residual add + RMSNorm (attn_norm_residual, final_norm): FP32 instructions its kernels issue per byte "
       "moved, with norm_bytes_per_sm_cycle > 0 (as act_fp32_per_byte)",
       "0.5375: Vidur's two RMSNorms (3 per element, plus 11 per thread for the block reduction: 1.375 per "
       "element at hidden 8192) and two adds (1 per element) over 20 bytes per element, counted in the machine "
       "code of sarathi-serve's rms_norm_kernel and a half-precision add for sm_80 and sm_90",
       0.0, 10.0, ""},
      {"rope_fp32_per_byte", &Efficiency::rope_fp32_per_byte, KnobKind::fp32_per_byte, 0.75,
       "rotary embedding (rope): FP32 instructions its kernel issues per byte moved, with rope_bytes_per_sm_cycle "
       "> 0 (as act_fp32_per_byte)",
       "0.75: 6 per rotated pair (4 products, 2 sums, each a half-precision operator through FP32) over its 8 "
       "bytes, counted in the machine code of sarathi-serve's rotary_embedding_kernel for sm_80 and sm_90",
       0.0, 10.0, ""},
      {"stream_memory", &Efficiency::stream_memory, KnobKind::share, 0.0,
       "the per-kind elementwise form's HBM cap (act_*, norm_*, rope_*): the fraction of HBM peak a streaming "
       "kernel reaches where its SMs are not the limit; 0: gemm_memory (the weight-streaming share)",
       "0: gemm_memory, the GPU's own weight-streaming share (hardware/*.yaml; Vidur's A40 activation and rotary "
       "kernels run at 0.79 of its peak, its decode GEMMs at 0.788: docs/validation.md). `calibrate operators "
       "--predict-gpu` keeps the predicted GPU's own cap, never the fitted GPU's",
       0.0, 1.0, ""},
      {"comm_bandwidth", &Efficiency::comm_bandwidth, KnobKind::fraction, 0.75,
       "collectives: bus bandwidth as a fraction of the link's peak",
       "NCCL ring all-reduce bus bandwidth / link peak ~0.75-0.85 at MB sizes (nccl-tests)",
       0.3, 0.95, ""},
      {"dequant_compute", &Efficiency::dequant_compute, KnobKind::fraction, 0.80,
       "weight-only quantized GEMMs (int4/fp8 weights, 16-bit compute): fraction of the 16-bit compute rate kept "
       "after dequantization",
       "Marlin/AWQ weight-only kernels keep ~80% of the fp16 GEMM rate",
       0.3, 1.0, ""},
      {"kernel_overhead", &Efficiency::kernel_overhead, KnobKind::duration, 3e-6,
       "fixed GPU time per GEMM or attention kernel (launch and tail)",
       "~2-5 us per kernel launch and tail; CUDA graphs shrink the launch part",
       0.0, 10.0, "us"},
      {"elementwise_overhead", &Efficiency::elementwise_overhead, KnobKind::duration, 2.424e-6,
       "fixed GPU time per elementwise kernel (norms, rotary, activation, residual, KV write, sampling): its "
       "floor at small token counts",
       "2.424 us, the elementwise floor `calibrate operators` fits on Vidur's A100 tables (H100 tables: 1.94 us; "
       "cuBLAS GEMMs ~5.6 us); held out on the serving runs (TPOT median 3.2% -> 2.4%, docs/validation.md)",
       0.0, 10.0, "us"},
      {"step_overhead", &Efficiency::step_overhead, KnobKind::duration, 0.5e-3,
       "fixed GPU-side time per forward step outside kernels (input preparation, synchronisation)",
       "assumption: ~0.5 ms of input preparation and sync per step in CUDA-graph engines",
       0.0, 5.0, "ms"},
  };
  return t;
}

Efficiency::Efficiency() {
  for (const auto& k : efficiency_knobs()) this->*k.member = k.default_value;
}

const EfficiencyKnob* find_efficiency_knob(std::string_view name) {
  for (const auto& k : efficiency_knobs())
    if (k.name == name) return &k;
  return nullptr;
}

bool knob_value_valid(const EfficiencyKnob& k, double v) {
  switch (k.kind) {
    case KnobKind::fraction: return v > 0 && v <= 1.0;
    case KnobKind::share: return v >= 0 && v <= 1.0;
    case KnobKind::tokens:
    case KnobKind::sm_rate:
    case KnobKind::cycles:
    case KnobKind::tokens_per_sm:
    case KnobKind::fp32_per_byte:
    case KnobKind::duration: return v >= 0;
  }
  return false;
}

std::string_view knob_range_text(const EfficiencyKnob& k) {
  switch (k.kind) {
    case KnobKind::fraction: return "a fraction in (0, 1]";
    case KnobKind::share: return "a fraction in [0, 1]";
    case KnobKind::tokens: return "a token count >= 0";
    case KnobKind::duration: return "a duration >= 0";
    case KnobKind::sm_rate: return "bytes per SM-cycle >= 0 (0: no SM cap)";
    case KnobKind::cycles: return "SM clock cycles >= 0";
    case KnobKind::tokens_per_sm: return "tokens per SM >= 0";
    case KnobKind::fp32_per_byte: return "FP32 instructions per byte >= 0";
  }
  return "";
}

double knob_fit_scale(const EfficiencyKnob& k) {
  if (k.fit_unit == "ms") return 1e-3;
  if (k.fit_unit == "us") return 1e-6;
  return 1.0;
}

double elementwise_rate(const Efficiency& e, double memory_bandwidth, double sm_cycles_per_second) {
  const double hbm = memory_bandwidth * e.elementwise_memory;
  const double sm = e.elementwise_bytes_per_sm_cycle * sm_cycles_per_second;
  return sm > 0 && sm < hbm ? sm : hbm;
}

double stream_memory_fraction(const Efficiency& e) { return e.stream_memory > 0 ? e.stream_memory : e.gemm_memory; }

ElementwiseCost elementwise_cost(const Efficiency& e, ElementwiseKind kind, double bytes, double kernels,
                                 double tokens, double memory_bandwidth, int sm_count, double boost_clock,
                                 double l2_cache, double fp32_flops) {
  double rate = 0, floor_cycles = 0, tokens_per_sm = 0, l2_rate = 0, fp32_per_byte = 0;
  switch (kind) {
    case ElementwiseKind::act:
      rate = e.act_bytes_per_sm_cycle, floor_cycles = e.act_floor_cycles, tokens_per_sm = e.act_tokens_per_sm;
      l2_rate = e.act_l2_bytes_per_sm_cycle, fp32_per_byte = e.act_fp32_per_byte;
      break;
    case ElementwiseKind::norm:
      rate = e.norm_bytes_per_sm_cycle, floor_cycles = e.norm_floor_cycles, tokens_per_sm = e.norm_tokens_per_sm;
      l2_rate = e.norm_l2_bytes_per_sm_cycle, fp32_per_byte = e.norm_fp32_per_byte;
      break;
    case ElementwiseKind::rope:
      rate = e.rope_bytes_per_sm_cycle, floor_cycles = e.rope_floor_cycles, tokens_per_sm = e.rope_tokens_per_sm;
      l2_rate = e.rope_l2_bytes_per_sm_cycle, fp32_per_byte = e.rope_fp32_per_byte;
      break;
    case ElementwiseKind::other: break;
  }
  ElementwiseCost c;
  if (rate <= 0 || sm_count <= 0 || boost_clock <= 0) {
    // The shared form (bit for bit what it was before the per-kind knobs).
    c.memory_time = bytes / elementwise_rate(e, memory_bandwidth, static_cast<double>(sm_count) * boost_clock);
    c.overhead_time = kernels * e.elementwise_overhead;
    return c;
  }
  const double sms = static_cast<double>(sm_count);
  // Capped at the GPU's weight-streaming share of HBM (gemm_memory): what a streaming kernel
  // reaches where the SMs are not the limit (Vidur's A40 activation and rotary kernels run at
  // 0.79-0.85 of its peak, its decode GEMMs at 0.788; docs/validation.md).
  // (stream_memory, where a GPU file sets it, replaces gemm_memory here.)
  const double hbm = memory_bandwidth * stream_memory_fraction(e);
  const double sm = rate * sms * boost_clock;
  // One thread block per token: below tokens_per_sm x SMs tokens the SMs are not all busy
  // and the kernel takes as long as one over that many tokens.
  const double busy = tokens_per_sm * sms;
  const double charged = tokens > 0 && tokens < busy ? bytes * busy / tokens : bytes;
  // A kernel whose bytes fit in the L2 finds its inputs there (Vidur times each kernel over
  // and over on the same tensors; in a forward pass the producer just wrote them): its own
  // rate, not bound by HBM. Fitted on Vidur's tables, norm's is 25% above its rate beyond the
  // L2 on both A100 (40 MiB) and H100 (50 MiB), rope's 9-11% (docs/validation.md).
  const bool in_l2 = l2_rate > 0 && l2_cache > 0 && kernels > 0 && bytes / kernels <= l2_cache;
  // The kernel's FP32 arithmetic adds SM cycles per byte: one thread per element loads, computes
  // and stores in turn, so its issue slots on the FP32 lanes (FP32 peak / 2 instructions per
  // second over the GPU) do not hide under the loads. Hopper has twice Ampere's lanes per SM,
  // so an arithmetic-heavy kernel (SiLU-and-mul) moves more bytes per SM-cycle there.
  const double arith = fp32_per_byte > 0 && fp32_flops > 0 ? 2.0 * fp32_per_byte / fp32_flops : 0.0;
  const double sm_rate = in_l2 ? l2_rate * sms * boost_clock : sm;
  if (arith > 0) {
    const double sm_time = 1.0 / sm_rate + arith;  // seconds per byte on the SMs
    c.memory_time = charged * (in_l2 ? sm_time : std::max(1.0 / hbm, sm_time));
  } else {
    c.memory_time = charged / (in_l2 ? sm_rate : std::min(hbm, sm));
  }
  c.overhead_time = kernels * floor_cycles / boost_clock;
  return c;
}

namespace {
const EfficiencyKnob& knob(const std::string& name) {
  if (const EfficiencyKnob* k = find_efficiency_knob(name)) return *k;
  throw Error(fmt::format("unknown efficiency parameter '{}'{} (valid: {})", name,
                          did_you_mean(name, efficiency_field_names()), join(efficiency_field_names())));
}
}  // namespace

std::vector<std::string> efficiency_field_names() {
  std::vector<std::string> out;
  for (const auto& k : efficiency_knobs()) out.emplace_back(k.name);
  return out;
}

double& efficiency_field(Efficiency& e, const std::string& name) { return e.*(knob(name).member); }
double efficiency_field(const Efficiency& e, const std::string& name) { return e.*(knob(name).member); }
bool efficiency_field_is_time(const std::string& name) { return knob(name).kind == KnobKind::duration; }

}  // namespace servesim
