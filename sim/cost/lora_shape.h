#pragma once
// The shape of one LoRA adapter on a model: which linears it targets, what its
// matrices hold per GPU, and what that comes to in bytes.
//
// Targets: every linear of every transformer layer that vLLM wraps for LoRA on a
// dense decoder (Llama, Qwen, Mistral: packed_modules_mapping qkv_proj = [q, k, v],
// gate_up_proj = [gate, up], plus o_proj and down_proj), i.e. q, k, v, o, gate, up,
// down. Why all seven: vLLM preallocates its GPU slots for every module it supports,
// whatever an adapter targets (vllm/lora/model_manager.py _create_lora_modules ->
// create_lora_weights per module), so the slots' memory and the kernels' work are
// those of all seven whichever subset a given adapter was trained on; and
// "all-linear" is the common target set of current fine-tunes.
//
// For a targeted linear of input width d_in and output width d_out, A is d_in x r
// and B is r x d_out, so one adapter of rank r holds, per layer,
//     r * sum over the seven linears of (d_in + d_out)
//   = r * (7 h + 2 H d + 2 K d + 3 f)   (gated MLP; h hidden, H query heads, K KV
//                                        heads, d head_dim, f the MLP's width)
// elements, times the layers and the element size. The element size is the model's
// 16-bit dtype: vLLM's lora_dtype "auto" is the model dtype (vllm/config/lora.py),
// also when the base weights are quantized. Llama-3.1-8B at r = 16:
// 16 x 81,920 x 32 layers x 2 B = 83,886,080 B = 80 MiB.
//
// Per GPU with tensor parallelism (vLLM's default, fully_sharded_loras = false:
// vllm/lora/layers/base_linear.py create_lora_weights): a column-parallel linear
// (q, k, v, gate, up) keeps its whole A (r x h) and 1/tp of B's columns; a
// row-parallel one (o, down) 1/tp of A's rows and its whole B. Each A and B of a
// packed module is its own slice (qkv_proj has three A's, each r x h).
#include <cstdint>
#include <string>

#include "cost/parallelism.h"
#include "model/model_spec.h"

namespace servesim {

// Bytes per LoRA weight element: the model's 16-bit dtype (lora_dtype auto).
inline constexpr double kLoraElementBytes = 2.0;

// Widths of one layer's adapter matrices, per GPU and for the whole adapter.
struct LoraGeometry {
  double layers = 0;       // layers on one GPU whose linears carry the adapter (its pipeline stage's)
  double layers_full = 0;  // ... in the whole model
  double modules = 0;      // wrapped modules per layer: qkv_proj, o_proj, gate_up_proj, down_proj
  double slices = 0;       // A (or B) matrices per layer: q, k, v, o, gate, up, down
  // Per GPU: the sum over a layer's A matrices of their input widths, and over its
  // B matrices of their output widths (with tp = 1: the whole adapter's).
  double a_in = 0, b_out = 0;
  double a_in_full = 0, b_out_full = 0;
  bool supported() const { return layers > 0; }
};

// Why `m` cannot carry adapters in servesim (empty when it can): the seven-linear
// geometry above is a dense decoder's; MoE experts, MLA, state layers and mixed
// attention shapes are not modelled.
std::string lora_unsupported_reason(const ModelSpec& m);

// The geometry of `m` sharded as `s` (all zero when unsupported).
LoraGeometry lora_geometry(const ModelSpec& m, const ShardShape& s);

// Bytes of one adapter of rank r: on one GPU, and in all (what a host holds, what is read from disk).
inline double lora_adapter_bytes_per_gpu(const LoraGeometry& g, double rank) {
  return rank * (g.a_in + g.b_out) * g.layers * kLoraElementBytes;
}
inline double lora_adapter_bytes(const LoraGeometry& g, double rank) {
  return rank * (g.a_in_full + g.b_out_full) * g.layers_full * kLoraElementBytes;
}

}  // namespace servesim
