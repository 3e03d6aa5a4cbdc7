#pragma once
// The calibratable knobs of the roofline: achievable fractions of peak and fixed
// overheads. Each knob is declared once, in efficiency_knobs() (efficiency.cpp): its
// kind (what range it takes), default with the public measurement it comes from,
// and the bounds `servesim calibrate` fits it within. GPU files (`efficiency:`),
// scenario overrides (`hardware.efficiency.*`), calibration and the key reference
// (`servesim describe`) all read that table.
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

struct Efficiency {
  Efficiency();  // every knob at its default from efficiency_knobs()

  // Large dense GEMMs: achieved fraction of dense tensor peak.
  double gemm_compute;
  // GEMM compute efficiency ramps with the token dimension M (tile fill):
  // eff(M) = gemm_compute * M / (M + gemm_tokens_half). Tokens at half efficiency.
  double gemm_tokens_half;
  // GEMMs with 8-bit compute (fp8, int8): their achieved fraction of the 8-bit dense
  // peak, as a ratio to gemm_compute (the 16-bit fraction); 1: the same fraction.
  double gemm_8bit_compute_ratio;
  // ... and GEMMs with 4-bit compute (fp4: NVFP4 / MXFP4 weights and activations): their
  // achieved fraction of the 4-bit dense peak, as a ratio to gemm_compute.
  double gemm_4bit_compute_ratio;
  // Weight streaming in skinny (decode) GEMMs: fraction of HBM peak.
  double gemm_memory;
  // Fraction of the shorter of a GEMM's compute and memory times hidden under the
  // longer: time = max(c, m) + (1 - gemm_overlap) * min(c, m).
  double gemm_overlap;
  double attention_compute;   // FlashAttention forward: fraction of tensor peak
  double attention_memory;    // paged decode attention: fraction of HBM bandwidth for KV reads
  double elementwise_memory;  // norms, rotary, activation, residual: fraction of HBM bandwidth
  // ... and at most this many bytes per SM clock cycle (GPUs with sm_count and
  // boost_clock): rate = min(elementwise_memory x HBM, this x SMs x clock); 0: no SM cap.
  double elementwise_bytes_per_sm_cycle;
  // Per elementwise op kind (act: SiLU-and-mul; norm: fused residual add + RMSNorm; rope:
  // rotary embedding), the SM-bound form, on where <kind>_bytes_per_sm_cycle > 0 and the
  // GPU file gives sm_count and boost_clock (elementwise_cost() below): a floor in SM
  // clock cycles, a rate in bytes per SM-cycle (capped at gemm_memory x HBM) and an
  // occupancy floor: fewer than <kind>_tokens_per_sm x SMs tokens cost as that many.
  double act_bytes_per_sm_cycle, act_floor_cycles, act_tokens_per_sm;
  double norm_bytes_per_sm_cycle, norm_floor_cycles, norm_tokens_per_sm;
  double rope_bytes_per_sm_cycle, rope_floor_cycles, rope_tokens_per_sm;
  // ... and, on a GPU whose file gives l2_cache, the rate of a kernel whose bytes fit in the
  // L2 (inputs and outputs stay resident; not capped by HBM); 0: <kind>_bytes_per_sm_cycle
  // at every size.
  double act_l2_bytes_per_sm_cycle, norm_l2_bytes_per_sm_cycle, rope_l2_bytes_per_sm_cycle;
  // ... and the FP32 instructions (FFMA, FADD, FMUL) the kind's kernel issues per byte it moves,
  // a count from its machine code, not a fit: on a GPU whose file gives the FP32 peak, each byte
  // costs 1 / <kind>_bytes_per_sm_cycle SM-cycles plus this / (FP32 lanes per SM) (the lanes:
  // FP32 peak / (2 x SMs x clock); Ampere GA100 64, Hopper 128). 0: no arithmetic term.
  double act_fp32_per_byte, norm_fp32_per_byte, rope_fp32_per_byte;
  // The per-kind form's HBM cap, as a fraction of peak: what a streaming kernel reaches
  // where its SMs are not the limit, a property of the GPU's memory system; 0: gemm_memory
  // (the weight-streaming share).
  double stream_memory;
  double comm_bandwidth;      // collective bus bandwidth / link peak
  double dequant_compute;     // weight-only quantized GEMMs: fraction of the 16-bit compute rate kept
  double kernel_overhead;     // fixed GPU time per GEMM or attention kernel, seconds
  double elementwise_overhead;  // fixed GPU time per elementwise kernel (norm, rotary, activation...), seconds
  double step_overhead;       // fixed time per forward step outside kernels, seconds
};

// What values a knob takes; decides its range, its unit in files and its error text.
enum class KnobKind {
  fraction,  // (0, 1]: a divisor of peak, so 0 would make kernels take forever
  share,     // [0, 1]: a share, not a divisor (gemm_overlap: 0 = no overlap)
  tokens,    // >= 0 tokens
  duration,  // >= 0 seconds, written with a time unit ("3 us")
  sm_rate,   // >= 0 bytes per SM clock cycle; 0 turns the cap off
  cycles,    // >= 0 SM clock cycles (a duration that scales with the GPU's clock)
  tokens_per_sm,  // >= 0 tokens per SM (an occupancy threshold, carried as a count)
  fp32_per_byte,  // >= 0 FP32 instructions per byte moved (a kernel's arithmetic, counted)
};

struct EfficiencyKnob {
  std::string_view name;  // key under `efficiency:` / `hardware.efficiency.`
  double Efficiency::*member;
  KnobKind kind;
  double default_value;       // canonical unit (seconds for durations)
  std::string_view doc;       // one line: what it means
  std::string_view citation;  // where the default comes from
  // `servesim calibrate` fits the knob within [fit_lo, fit_hi], in fit_unit ("us",
  // "ms" for durations, "" for plain numbers); tighter than the valid range where
  // physics says so (no GEMM reaches 100% of peak).
  double fit_lo, fit_hi;
  std::string_view fit_unit;
};

// Every knob, in declaration order (the order of `inspect`, calibration and docs).
const std::vector<EfficiencyKnob>& efficiency_knobs();
// The knob of that name, or nullptr.
const EfficiencyKnob* find_efficiency_knob(std::string_view name);
// Whether v is in the knob's valid range, and that range in words ("a fraction in (0, 1]").
bool knob_value_valid(const EfficiencyKnob& k, double v);
std::string_view knob_range_text(const EfficiencyKnob& k);
// Seconds per fit_unit (1 for plain numbers).
double knob_fit_scale(const EfficiencyKnob& k);

// Bytes per second an elementwise kernel moves: elementwise_memory x memory_bandwidth,
// capped at elementwise_bytes_per_sm_cycle x sm_cycles_per_second where both are > 0
// (GpuSpec::sm_cycles_per_second(); 0 for a GPU file without sm_count).
double elementwise_rate(const Efficiency& e, double memory_bandwidth, double sm_cycles_per_second);

// Which elementwise op a kernel is, for the per-kind knobs (Efficiency::act_* and friends);
// `other` (embedding, KV write, sampling) always takes the shared elementwise knobs.
enum class ElementwiseKind { other, act, norm, rope };

// An elementwise op's memory and fixed time: `bytes` moved by `kernels` launches over
// `tokens` rows. With the kind's bytes-per-SM-cycle b > 0 on a GPU with sm_count and
// boost_clock: memory = bytes x max(1, tokens_per_sm x SMs / tokens) / rate and fixed =
// kernels x floor_cycles / clock, where rate = l2_bytes_per_sm_cycle x SMs x clock when
// that knob and l2_cache are > 0 and bytes / kernels <= l2_cache (the kernel's data stay
// in the L2), else min(stream_memory (0: gemm_memory) x HBM, b x SMs x clock); with the kind's
// fp32_per_byte w > 0 and fp32_flops (the GPU's FP32 peak, FLOP/s) > 0, the SM side's seconds per
// byte gain 2 w / fp32_flops (w instructions per byte at one per FP32 lane per cycle).
// Otherwise the shared form: bytes / elementwise_rate() and kernels x elementwise_overhead.
struct ElementwiseCost {
  double memory_time = 0;
  double overhead_time = 0;
};
ElementwiseCost elementwise_cost(const Efficiency& e, ElementwiseKind kind, double bytes, double kernels,
                                 double tokens, double memory_bandwidth, int sm_count, double boost_clock,
                                 double l2_cache, double fp32_flops);
// The per-kind form's HBM cap as a fraction of peak: stream_memory, or gemm_memory where it is 0.
double stream_memory_fraction(const Efficiency& e);

// Names of the knobs, in declaration order, for `inspect` and calibration.
std::vector<std::string> efficiency_field_names();
// A knob's value by name; unknown names throw with the valid ones.
double& efficiency_field(Efficiency& e, const std::string& name);
double efficiency_field(const Efficiency& e, const std::string& name);
// Which knobs are durations (read with a time unit in YAML).
bool efficiency_field_is_time(const std::string& name);

}  // namespace servesim
