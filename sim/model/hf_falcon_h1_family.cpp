// Falcon-H1 (TII; transformers' configuration_falcon_h1.py FalconH1Config and
// modeling_falcon_h1.py, read in huggingface/transformers@00511f5d:
// src/transformers/models/falcon_h1/modular_falcon_h1.py; vLLM's falcon_h1.py
// FalconH1ParallelHybrid): a parallel hybrid. Every decoder layer (FalconH1DecoderLayer) runs
//   input_layernorm -> [ FalconH1Mixer (Mamba-2)  +  FalconH1Attention (Llama attention) ]
//   -> residual -> pre_ff_layernorm -> FalconH1MLP (Llama's gated MLP) -> residual,
// the two mixers reading the same normed input and their outputs summed (after the muP
// multipliers ssm_out_multiplier and attention_out_multiplier, which change no cost).
//
// servesim's state layers (layer_kinds.h) normally replace attention on their layers; here the
// model is described as attention on every layer (attention_layer_count = layers, so
// attention_layers() does not subtract the state layers) AND Mamba-2 state layers on every
// layer (state.layers = layers). Then each figure counts both mixers in every layer:
//   weights   attention_params() over attention_layers() + state.params_per_layer() x state.layers;
//   KV        kv_bytes_per_token() over global_attention_layers() = every layer;
//   state     state_bytes_per_sequence() over state.layers = every layer;
//   step      attention ops over attention_layers() and the Mamba-2 scan and projections over
//             state.layers (cost/step_cost.cpp, cost/state_cost.cpp).
// Two small differences from the checkpoint, left as they are (no ModelSpec field describes
// them, and they are far below the parameter counts' precision):
//   - servesim counts one RMSNorm before each sublayer (sublayers() = attention + state + MLP:
//     3 per layer), Falcon-H1 has 2 (its two mixers share input_layernorm): layers x hidden
//     weights too many (Falcon-H1-0.5B, tests/unit/test_hf_falcon_h1_family.cpp: 36 x 1024 =
//     36,864 of 521M, 0.007%), and the norm's elementwise work likewise;
//   - StateLayers' Mamba-2 counts the gated RMSNorm over d_ssm inside the mixer, which
//     Falcon-H1 holds only with mamba_rms_norm true (Falcon-H1-0.5B's config says false: the gate
//     is a plain y x silu(z)): layers x d_ssm weights too many (0.5B: 36 x 1536 = 55,296, 0.011%).
//
// The Mamba-2 mixer's shapes (FalconH1Mixer.__init__):
//   d_ssm = mamba_d_ssm (the class default 1024 when the key is absent; null: mamba_expand x
//   hidden_size); heads = mamba_n_heads; head_dim = mamba_d_head ("auto": d_ssm / heads);
//   conv_dim = d_ssm + 2 x mamba_n_groups x mamba_d_state, a depthwise conv1d of mamba_d_conv
//   taps (bias: mamba_conv_bias); in_proj hidden -> d_ssm + conv_dim + heads
//   = 2 d_ssm + 2 groups d_state + heads (bias: mamba_proj_bias); dt_bias, A_log, D per head;
//   out_proj d_ssm -> hidden (bias: projectors_bias). FalconH1Config.validate_architecture
//   requires d_ssm % heads == 0 and heads x head_dim == d_ssm: servesim's Mamba-2 width is
//   heads x head_dim, so a config breaking either is refused here, naming the keys.
// Attention: LlamaAttention (q, k, v, o; biases with attention_bias on all four), head_dim
// from the config; the MLP: LlamaMLP (gate, up, down; biases with mlp_bias).
#include <fmt/format.h>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {

// The recurrent state's precision: mamba_ssm_cache_dtype when the config names one, else the
// model's (vLLM's mamba_ssm_cache_dtype "auto"), as read_nemotron_h reads it.
DType falcon_state_dtype(const JsonFields& f, DType model) {
  const std::string s = f.string("mamba_ssm_cache_dtype", "");
  if (!s.empty() && s != "auto") return parse_dtype(s, f.where() + ": mamba_ssm_cache_dtype");
  return model == DType::fp32 ? DType::bf16 : model;
}

// Biases servesim does not count (it counts attention biases only): refused, naming the key,
// rather than undercounting the checkpoint. Falcon-H1-0.5B's config (the test's) sets them false.
void refuse_bias(const JsonFields& f, const char* key, const char* what) {
  if (f.boolean(key, false))
    throw Error(fmt::format("{}: {} is true: Falcon-H1's {} then carry biases, which servesim does not count; it "
                            "would undercount this checkpoint",
                            f.where(), key, what));
}

}  // namespace

void read_falcon_h1(const JsonFields& f, ModelSpec& m) {
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")
    throw Error(fmt::format("{}: hidden_act '{}': Falcon-H1's MLP and Mamba-2 gate are read as silu (gated)",
                            f.where(), act));
  m.gated_mlp = true;
  refuse_bias(f, "mlp_bias", "MLP projections (gate_proj, up_proj, down_proj)");
  refuse_bias(f, "mamba_proj_bias", "Mamba-2 in_proj");
  refuse_bias(f, "projectors_bias", "Mamba-2 out_proj");
  // LlamaAttention puts attention_bias on o_proj as on q, k and v.
  m.attention_o_bias = m.qkv_bias;

  // The Mamba-2 width: mamba_d_ssm, null meaning mamba_expand x hidden_size; absent, the
  // class default 1024 (FalconH1Config: mamba_d_ssm: int | None = 1024).
  const bool d_ssm_null = f.doc().contains("mamba_d_ssm") && f.doc()["mamba_d_ssm"].is_null();
  const std::int64_t d_ssm =
      d_ssm_null ? f.integer("mamba_expand", 2) * m.hidden : f.integer("mamba_d_ssm", 1024);
  const std::int64_t heads = f.integer("mamba_n_heads", 128);
  if (d_ssm < 1 || heads < 1)
    throw Error(fmt::format("{}: mamba_d_ssm {} and mamba_n_heads {} must be positive", f.where(), d_ssm, heads));
  if (d_ssm % heads != 0)
    throw Error(fmt::format("{}: mamba_d_ssm {} is not a multiple of mamba_n_heads {} (FalconH1Config: "
                            "\"mamba_n_heads must divide mamba_expand * hidden_size\")",
                            f.where(), d_ssm, heads));
  // mamba_d_head: an integer, or "auto" (or absent: the class default "auto") for d_ssm / heads.
  std::int64_t head_dim = d_ssm / heads;
  if (f.has("mamba_d_head") && !f.doc()["mamba_d_head"].is_string()) head_dim = f.integer("mamba_d_head");
  else if (f.has("mamba_d_head") && f.string("mamba_d_head", "") != "auto")
    throw Error(fmt::format("{}: mamba_d_head must be an integer or \"auto\", got '{}'", f.where(),
                            f.string("mamba_d_head", "")));
  if (head_dim * heads != d_ssm)
    throw Error(fmt::format("{}: mamba_n_heads {} x mamba_d_head {} = {} is not mamba_d_ssm {}: the Mamba-2 heads "
                            "must tile its width (FalconH1Config.validate_architecture)",
                            f.where(), heads, head_dim, heads * head_dim, d_ssm));

  // Both mixers on every layer (see the top of this file).
  m.attention_layer_count = m.layers;
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba2;
  s.layers = m.layers;
  s.heads = static_cast<int>(heads);
  s.head_dim = static_cast<int>(head_dim);
  s.key_heads = static_cast<int>(f.has("mamba_n_groups") ? f.at_least("mamba_n_groups", 1) : 1);
  s.key_dim = static_cast<int>(f.has("mamba_d_state") ? f.at_least("mamba_d_state", 1) : 256);
  s.conv_kernel = static_cast<int>(f.has("mamba_d_conv") ? f.at_least("mamba_d_conv", 1) : 4);
  s.conv_bias = f.boolean("mamba_conv_bias", true);
  s.chunk = static_cast<int>(f.has("mamba_chunk_size") ? f.at_least("mamba_chunk_size", 1) : 256);
  s.state_dtype = falcon_state_dtype(f, m.native_dtype);
  if (s.heads % s.key_heads != 0)
    throw Error(fmt::format("{}: mamba_n_heads {} is not a multiple of mamba_n_groups {}", f.where(), s.heads,
                            s.key_heads));
}

}  // namespace servesim
