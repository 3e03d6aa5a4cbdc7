// Readers of dense families whose layers are Llama's with a twist in the checkpoint's
// tensors (fused projections, biases set by the architecture rather than the config, a
// vision tower beside the text fields): Phi-3 / Phi-4, Qwen2-VL / Qwen2.5-VL and ERNIE 4.5.
#include <fmt/format.h>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

// Phi-3, Phi-3.5-mini, Phi-4, Phi-4-mini (transformers' Phi3ForCausalLM, modeling_phi3.py):
// a Llama decoder whose q/k/v are one fused qkv_proj (hidden -> (heads + 2 kv_heads) x
// head_dim) and whose gate and up are one gate_up_proj (hidden -> 2 intermediate_size): the
// same weights as separate projections, counted as such. Phi3Attention builds qkv_proj and
// o_proj without biases whatever the config says (bias=False), while vLLM's Phi3 (a
// LlamaForCausalLM) would follow attention_bias: a config asking for biases is refused rather
// than priced one way or the other. partial_rotary_factor (Phi-4-mini: 0.75) changes no shape.
// sliding_window applies to every layer (Phi3Attention's sliding_window); Phi-4's 16384 and
// Phi-3.5-mini's 262144 reach max_position_embeddings, so they do not bind.
void read_phi3(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: Phi3ForCausalLM's qkv_proj and o_proj have no biases "
                            "(transformers' Phi3Attention, bias=False) while vLLM's would add them; servesim will "
                            "not guess which checkpoint this is",
                            f.where()));
  m.qkv_bias = false;
}

// Qwen2-VL and Qwen2.5-VL (Qwen2VLForConditionalGeneration, Qwen2_5_VLForConditionalGeneration):
// the language model is a Qwen2 decoder (q/k/v with biases, o_proj without: bias=True is
// hard-wired in Qwen2_5_VLAttention, as in Qwen2Attention; the config carries no
// attention_bias), its fields at the top level of the published configs (newer transformers
// write them into text_config; both are read). M-RoPE (rope_scaling mrope_section) splits the
// rotary dimensions among time, height and width: no weights. The vision tower (vision_config)
// is estimated and left out, as for Qwen3-VL.
void read_qwen2_vl(const JsonFields& f, ModelSpec& m) {
  if (f.has("attention_bias") && !f.boolean("attention_bias", true))
    throw Error(fmt::format("{}: attention_bias false: Qwen2-VL's text attention always has q/k/v biases "
                            "(Qwen2_5_VLAttention, bias=True); servesim will not read this config as another model",
                            f.where()));
  m.qkv_bias = true;
}

// ERNIE 4.5 dense (Ernie4_5_ForCausalLM, transformers' modeling_ernie4_5.py): a Llama decoder
// (GQA with head_dim, SwiGLU, RMSNorm) whose every projection, attention and MLP alike, takes
// a bias when use_bias is true. servesim counts q/k/v and o biases but has no MLP bias: a config
// with use_bias true is refused (the published ERNIE 4.5 checkpoints all set it false).
void read_ernie4_5(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("use_bias", false))
    throw Error(fmt::format("{}: use_bias true puts biases on ERNIE 4.5's MLP projections too, which servesim does "
                            "not describe (it counts attention biases only); the published ERNIE 4.5 configs set "
                            "use_bias false",
                            f.where()));
  m.qkv_bias = false;
  m.attention_o_bias = false;
}

}  // namespace servesim
