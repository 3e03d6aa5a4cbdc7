// Readers of Command R / Aya (Cohere), Phi-3.5-MoE (PhiMoE), MiniCPM 1/2/4 and MiniCPM3, InternLM2 /
// InternLM3, Granite 3.x MoE (GraniteMoe, GraniteMoeShared), AFM (Arcee), StarCoder2 and EXAONE 3.0 /
// 3.5: decoders of Llama's kind that differ in their norms, biases, experts or attention. Shapes as
// vLLM builds them (vllm-project/vllm: vllm/model_executor/models/commandr.py, minicpm.py,
// minicpm3.py at 009ccee09595bc1ed5de28164ea2490a5ba1ce84, phimoe.py at
// 01524004c3c9e11dc14e59ef0069183dd4fcb0ec, internlm2.py, granitemoe.py, granitemoeshared.py,
// arcee.py, starcoder2.py, exaone.py) and as transformers' modeling code and configuration classes
// default them (huggingface/transformers: models/cohere, phimoe, internlm3 (modular_internlm3.py),
// granitemoe, granitemoeshared, arcee, starcoder2; openbmb's configuration_minicpm.py, InternLM's
// configuration_internlm2.py / modeling_internlm2.py and LG's configuration_exaone.py, the remote
// code their checkpoints ship).
//
// Common to all: norms are counted as servesim counts them (one weight vector of hidden per
// sublayer and a final one, and its bias for PhiMoE's and StarCoder2's LayerNorms); the q/k norms
// of Command R+ and PhiMoE's LM head bias are not counted, and each reader gives their size.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

// Command R, Command R+, Aya Expanse, Aya 23 (CohereForCausalLM; vLLM's commandr.py, transformers'
// modeling_cohere.py): Cohere2's parallel block (read_cohere_block: one LayerNorm without a bias
// before attention and the SwiGLU MLP side by side, no biases, the LM head tied to the embedding
// and scaled by logit_scale, which has no weights; servesim counts and prices a second norm a
// layer, hidden x layers weights: 327,680 in Command R's 40 layers, 0.001%). Unlike Cohere2 no
// layer has a window: CohereConfig has none, and vLLM's commandr.py gives a layer one only with
// Cohere2's sliding_window_pattern. use_qk_norm (Command R+): CohereLayerNorm over each query
// head and each key head ((heads + kv_heads) x head_dim weights a layer: 13,312 in R+, 851,968 over
// its 64 layers, 0.0008%) is not counted, as no family's q/k norms are.
void read_cohere(const JsonFields& f, ModelSpec& m) {
  read_cohere_block(f, m, "Command R");
  m.local = LocalAttention{};
}

// Phi-3.5-MoE and the SlimMoE Phi-tiny-MoE / Phi-mini-MoE (PhimoeForCausalLM, published as
// PhiMoEForCausalLM; vLLM's phimoe.py, transformers' modeling_phimoe.py): Mixtral's experts
// (num_local_experts SwiGLU experts w1/w3/w2 of intermediate_size, top num_experts_per_tok, a
// router hidden -> num_local_experts without bias: read_mixtral) under a GQA attention with
// biases on q, k, v and o when attention_bias (true in the published configs; transformers'
// PhimoeAttention gives all four bias=attention_bias). The norms are LayerNorms with a bias
// beside each weight (nn.LayerNorm, elementwise_affine: counted, norm_bias). The LM head's bias
// (lm_head_bias; vLLM builds it always: vocab weights, 32,064 in Phi-3.5-MoE, 0.00008%) is not
// counted. Microsoft's "6.6B active" counts both tables (6.64B with them, 6.38B without).
void read_phimoe(const JsonFields& f, ModelSpec& m) {
  read_mixtral(f, m);
  m.attention_o_bias = m.qkv_bias;
  m.gated_mlp = true;  // w1 (gate), w3 (up), w2 (down), SiLU
  m.norm_bias = true;
}

// MiniCPM 1 / 2 / 4 (MiniCPMForCausalLM; vLLM's minicpm.py, openbmb's configuration_minicpm.py)
// and MiniCPM3 (MiniCPM3ForCausalLM; vLLM's minicpm3.py). A Llama decoder: GQA without biases,
// a SwiGLU MLP of intermediate_size, RMSNorms; the muP scalars (scale_emb, dim_model_base,
// scale_depth) scale activations and have no weights. tie_word_embeddings defaults to true
// (MiniCPMConfig; MiniCPM-2B ties, MiniCPM4-8B says false). With num_experts > 0 (MiniCPM-MoE-8x2B)
// every layer's MLP is num_experts SwiGLU experts of intermediate_size, top num_experts_per_tok,
// behind a router hidden -> num_experts without bias (vLLM's MiniCPMMoE). MiniCPM4's sparse_config
// (InfLLM v2: each query reads its top-k blocks of the cache past dense_len tokens) has no weights
// and is not priced: servesim prices dense attention there, an over-estimate of long-context work.
// MiniCPM3 replaces attention by DeepSeek-V2's MLA (q_a_proj, q_a_layernorm, q_b_proj,
// kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj, no biases: read_mla; values of
// v_head_dim, or hidden_size / num_attention_heads without it). Its KV cache is
// priced as MLA's latent (kv_lora_rank + qk_rope_head_dim a token and layer), as SGLang's
// minicpm3.py caches it; vLLM's minicpm3.py at the commit above expands K and V per head
// (heads x (qk_nope + qk_rope) x 2 a token and layer) and holds far more.
void read_minicpm(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: vLLM's MiniCPMAttention builds qkv_proj and o_proj without "
                            "biases; servesim will not guess which checkpoint this is",
                            w));
  refuse_mlp_bias(f, "MiniCPM");
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  m.local = LocalAttention{};  // vLLM's MiniCPMAttention has no window
  if (m.architecture == "MiniCPM3ForCausalLM" || f.string("model_type", "") == "minicpm3") {
    if (!f.has("kv_lora_rank"))
      throw Error(fmt::format("{}: missing field 'kv_lora_rank': MiniCPM3's attention is MLA (kv_lora_rank, "
                              "q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim)",
                              w));
    // openbmb's modeling_minicpm.py for MiniCPM3 (and mlx-lm's minicpm3.py) take the value head
    // as hidden_size / num_attention_heads; vLLM reads v_head_dim from the config.
    read_mla(f, m, m.heads > 0 ? m.hidden / m.heads : 0);
  }
  const std::int64_t experts = f.integer("num_experts", 0);
  if (experts < 0) throw Error(fmt::format("{}: num_experts must be >= 0, got {}", w, experts));
  if (experts > 0) {
    m.moe.num_experts = static_cast<int>(experts);
    m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
    if (m.moe.experts_per_token > m.moe.num_experts)
      throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_experts {}", w, m.moe.experts_per_token,
                              m.moe.num_experts));
    m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  } else if (m.ffn <= 0) {
    throw Error(fmt::format("{}: intermediate_size must be positive", w));
  }
}

// InternLM2 / InternLM2.5 (InternLM2ForCausalLM; InternLM's modeling_internlm2.py, vLLM's
// internlm2.py) and InternLM3 (InternLM3ForCausalLM; transformers' modular_internlm3.py). Both a
// Llama decoder with a SwiGLU MLP (InternLM2's w1 gate, w3 up, w2 down) and RMSNorms, the LM head
// (InternLM2's `output`) untied unless tie_word_embeddings says so.
//   InternLM2  q, k and v packed into one wqkv of (heads + 2 kv_heads) x head_dim rows (the same
//              weights as three projections), wo; both with a bias when `bias` (InternLM2Config's
//              default true; the published configs say false), the MLP never;
//   InternLM3  q_proj, k_proj, v_proj with qkv_bias, o_proj with `bias`, which also puts biases
//              on gate_proj, up_proj and down_proj (InternLM3MLP: mlp_bias).
// vLLM applies no window to either.
void read_internlm(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  const bool v3 = m.architecture == "InternLM3ForCausalLM" || f.string("model_type", "") == "internlm3";
  if (v3) {
    m.qkv_bias = f.boolean("qkv_bias", false);
    m.attention_o_bias = f.boolean("bias", false);
    m.mlp_bias = m.attention_o_bias;
  } else {
    m.qkv_bias = f.boolean("bias", true);
    m.attention_o_bias = m.qkv_bias;
  }
  m.gated_mlp = true;
  m.local = LocalAttention{};
  if (m.ffn <= 0) throw Error(fmt::format("{}: intermediate_size must be positive", w));
}

// Granite 3.x MoE (GraniteMoeForCausalLM; transformers' modeling_granitemoe.py, vLLM's
// granitemoe.py) and GraniteMoeShared (GraniteMoeSharedForCausalLM; modeling_granitemoeshared.py):
// GQA with biases on q, k, v and o when attention_bias, RMSNorms, and on every layer
// num_local_experts experts (GraniteMoeParallelExperts: input_linear hidden -> 2 x
// intermediate_size, gate and up; output_linear back) of which num_experts_per_tok run, a router
// hidden -> num_local_experts without bias (GraniteMoeTopKGating): read_mixtral. GraniteMoeShared
// adds a shared SwiGLU MLP of shared_intermediate_size beside the experts on every layer (none
// when 0). The muP multipliers (embedding_multiplier, attention_multiplier, residual_multiplier,
// logits_scaling) have no weights. IBM's active figures ("3B-A800M": 800M active) leave both
// tables out: granite-3.1-3b-a800m's 32 layers of attention, top-8 experts and router come to
// 0.81B, 0.88B with its tied 49155 x 1536 table.
void read_granite_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  refuse_mlp_bias(f, "Granite MoE");
  read_mixtral(f, m);
  if (m.moe.experts_per_token < 1 || m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} must be within [1, num_local_experts = {}]", w,
                            m.moe.experts_per_token, m.moe.num_experts));
  m.attention_o_bias = m.qkv_bias;
  m.gated_mlp = true;
  const std::int64_t shared = f.integer("shared_intermediate_size", 0);
  if (shared < 0) throw Error(fmt::format("{}: shared_intermediate_size must be >= 0, got {}", w, shared));
  if (shared > 0) {
    const std::string type = f.string("model_type", "");
    if (m.architecture != "GraniteMoeSharedForCausalLM" && m.architecture != "GraniteMoeSWAForCausalLM" &&
        type != "granitemoeshared" && type != "granitemoe_swa")
      throw Error(fmt::format("{}: shared_intermediate_size {} in a {} config: GraniteMoeForCausalLM has no shared "
                              "MLP (GraniteMoeSharedForCausalLM does); servesim will not guess which this is",
                              w, shared, m.architecture));
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// AFM-4.5B (ArceeForCausalLM; transformers' modeling_arcee.py, vLLM's arcee.py): Llama's
// attention and an MLP without a gate (ArceeMLP: up_proj, ReLU^2, down_proj, bias=mlp_bias):
// read_ungated_llama, whatever hidden_act names.
void read_arcee(const JsonFields& f, ModelSpec& m) { read_ungated_llama(f, m, "AFM (Arcee)"); }

// StarCoder2 3B / 7B / 15B (Starcoder2ForCausalLM; transformers' modeling_starcoder2.py, vLLM's
// starcoder2.py): GQA with biases on q, k, v and o (use_bias, Starcoder2Config's default true), an
// MLP without a gate (c_fc hidden -> intermediate_size, gelu_pytorch_tanh, c_proj back: read as not
// gated whatever hidden_act names) with biases on both projections (use_bias: intermediate_size +
// hidden a layer, mlp_bias), LayerNorms with a bias beside each weight (norm_bias), the table tied
// unless tie_word_embeddings says otherwise (Starcoder2Config's default true), and a window of
// sliding_window on every layer (as read for Mistral).
void read_starcoder2(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = f.boolean("use_bias", true);
  m.attention_o_bias = m.qkv_bias;
  m.mlp_bias = m.qkv_bias;
  m.norm_bias = true;
  m.gated_mlp = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  if (m.ffn <= 0) throw Error(fmt::format("{}: intermediate_size must be positive", f.where()));
}

// EXAONE 3.0 / 3.5 (ExaoneForCausalLM; vLLM's exaone.py and its ExaoneConfig,
// vllm/transformers_utils/configs/exaone.py, a copy of LG's remote configuration_exaone.py): a
// Llama decoder under GPT-2's names. The config gives num_layers (attribute_map: num_hidden_layers),
// activation_function (silu: vLLM's ExaoneGatedMLP runs no other), layer_norm_epsilon, and may leave
// out num_key_value_heads (the heads) and intermediate_size (4 x hidden_size); tie_word_embeddings
// defaults to true (EXAONE-3.5-2.4B ties; the 7.8B and 32B say false). Weights: q/k/v/out_proj with
// biases when attention_bias or bias (vLLM's ExaoneDecoderLayer), the SwiGLU c_fc_0 / c_fc_1 / c_proj
// (biases with mlp_bias: refused), RMSNorms ln_1 and ln_2 and a final ln_f. No window.
void alias_exaone_fields(nlohmann::json& text) {
  for (const auto& [own, common] : {std::pair<const char*, const char*>{"num_layers", "num_hidden_layers"},
                                    {"activation_function", "hidden_act"}})
    if (text.contains(own) && !text.contains(common)) text[common] = text[own];
  if (!text.contains("intermediate_size") || text["intermediate_size"].is_null()) {
    if (text.contains("hidden_size") && text["hidden_size"].is_number_integer())
      text["intermediate_size"] = 4 * text["hidden_size"].get<std::int64_t>();
  }
}

void read_exaone(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.string("hidden_act", "silu") != "silu")
    throw Error(fmt::format("{}: activation_function '{}': vLLM's ExaoneGatedMLP runs silu only", w,
                            f.string("hidden_act", "")));
  refuse_mlp_bias(f, "EXAONE");
  m.qkv_bias = f.boolean("attention_bias", false) || f.boolean("bias", false);
  m.attention_o_bias = m.qkv_bias;
  m.gated_mlp = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  m.local = LocalAttention{};
  if (m.ffn <= 0) throw Error(fmt::format("{}: intermediate_size must be positive", w));
}

}  // namespace servesim
