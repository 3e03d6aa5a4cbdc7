// Late-2026 architectures that are known ones under a new name, or a known one plus a part
// servesim already has (vLLM's registry of the time lists each; every reader below names the
// vLLM file it follows):
//   GraniteSWAForCausalLM     IBM granite-swash (model_type granite_swa): Granite's decoder with
//                             sliding-window layers (layer_types, sliding_window) and a learned
//                             sink logit per head (vllm-project/vllm@0949f0908d1ab0190030d2342b1c94fc4b3715f3:
//                             vllm/model_executor/models/granite_swa.py, GraniteSWAAttention.sinks);
//                             q/k/v and o biases with attention_bias, MLP biases with mlp_bias.
//   GraniteMoeSWAForCausalLM  its MoE sibling (granitemoe_swa): GraniteMoeShared's layers (the
//                             routed experts and an optional shared MLP of shared_intermediate_size)
//                             with the same windows and sinks (transformers' docs,
//                             model_doc/granitemoe_swa: "combines the MoE architecture of
//                             GraniteMoeShared with the sliding-window attention and learnable
//                             attention sinks of GraniteSWA").
// Those that need no reader of their own are table entries in hf_families.cpp (Mellum as
// Qwen3-MoE, MiMo-V2.5's omni checkpoint as MiMo-V2, DeepSeek-V4's vision checkpoint as
// DeepSeek-V4, Gemma 4 Unified and EXAONE 4.5 by their text_config).
#include "model/hf_families.h"

namespace servesim {

void read_granite_swa(const JsonFields& f, ModelSpec& m) {
  m.attention_o_bias = m.qkv_bias;  // GraniteSWAAttention: one `bias` for qkv_proj and o_proj
  m.mlp_bias = f.boolean("mlp_bias", false);
  m.attention_sinks = true;
}

void read_granite_moe_swa(const JsonFields& f, ModelSpec& m) {
  read_granite_moe(f, m);
  m.attention_sinks = true;
}

}  // namespace servesim
