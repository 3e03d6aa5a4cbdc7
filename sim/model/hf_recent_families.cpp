// Readers of OLMo 2 / OLMo 3, GLM-4-0414 (dense), ERNIE 4.5 MoE, Gemma 1, SmolLM3 and Seed-OSS:
// decoders of Llama's kind whose checkpoints differ in where their norms sit, which projections
// carry biases and where the experts are. Shapes as vLLM builds them
// (ROCm/vllm@f8c9a385233a8e1f724411785a1c326006640df5: vllm/model_executor/models/olmo2.py,
// glm4.py, ernie45_moe.py, gemma.py) and as transformers' modeling code and configuration classes
// (modeling_smollm3.py, modeling_seed_oss.py) default them.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

// OLMo 2 (Olmo2ForCausalLM, vLLM's olmo2.py, transformers' modeling_olmo2.py) and OLMo 3
// (Olmo3ForCausalLM): Llama's q/k/v/o and SwiGLU MLP without biases (Olmo2Attention builds
// qkv_proj and o_proj with bias=False whatever attention_bias says; transformers would follow
// it: a config asking for biases is refused), with
//   - the norms after the sublayers, not before: post_attention_layernorm and
//     post_feedforward_layernorm (two hidden-wide RMSNorms a layer and the final one: the count
//     servesim makes for pre-norm layers, the same weights);
//   - q_norm and k_norm over the whole query and key widths (heads x head_dim and kv_heads x
//     head_dim; vLLM's q_norm is hidden_size wide, so a head_dim other than hidden / heads is
//     refused). These are NOT counted: servesim counts no q/k norm weights (Qwen3's per-head
//     ones neither); OLMo-2 7B's are 32 x (4096 + 4096) = 262,144 weights, 0.004%.
// OLMo 3 adds sliding-window attention on the layers layer_types marks "sliding_attention"
// (transformers' Olmo3Config: without layer_types, every layer but each fourth); the window has
// no weights. OLMo 2 has no window: a sliding_window in an Olmo2ForCausalLM config is refused.
void read_olmo2(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  const bool olmo3 = m.architecture == "Olmo3ForCausalLM" || f.string("model_type", "") == "olmo3";
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: OLMo 2's q/k/v and o projections have no biases in vLLM's "
                            "Olmo2Attention (bias=False) while transformers' would add them; servesim will not "
                            "guess which checkpoint this is",
                            w));
  if (static_cast<std::int64_t>(m.heads) * m.head_dim != m.hidden)
    throw Error(fmt::format("{}: head_dim {} x num_attention_heads {} differs from hidden_size {}: OLMo's q_norm is "
                            "hidden_size wide (vLLM's Olmo2Attention), so such a checkpoint is not one servesim "
                            "can describe",
                            w, m.head_dim, m.heads, m.hidden));
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;  // gate_up_proj and down_proj (SiluAndMul)
  if (!olmo3) {
    if (f.has("sliding_window") || count_layer_types(f, "sliding_attention") > 0)
      throw Error(fmt::format("{}: a sliding window in an OLMo 2 config: Olmo2Attention has no window "
                              "(OLMo 3's sliding layers are Olmo3ForCausalLM); servesim will not price one it "
                              "does not run",
                              w));
    return;
  }
  if (f.has("layer_types")) {
    const std::vector<std::string> types = f.strings("layer_types");
    if (static_cast<int>(types.size()) != m.layers)
      throw Error(fmt::format("{}: layer_types lists {} layers, num_hidden_layers is {}", w, types.size(), m.layers));
    for (const std::string& t : types)
      if (t != "sliding_attention" && t != "full_attention")
        throw Error(fmt::format("{}: layer_types entry '{}': OLMo 3's layers are sliding_attention or "
                                "full_attention",
                                w, t));
  } else if (m.local.enabled()) {
    // read_local_attention put the window on every layer; Olmo3Config's default layer_types
    // make layer i full attention when (i + 1) % 4 == 0.
    m.local.layers = m.layers - m.layers / 4;
  }
}

// GLM-4-0414 (Glm4ForCausalLM; vLLM's glm4.py, transformers' modeling_glm4.py): GQA with biases
// on q, k and v (attention_bias, which Glm4Config defaults to true) and none on o_proj; a fused
// gate_up_proj (hidden -> 2 intermediate_size, chunked into gate and up: SwiGLU whatever the
// activation's name) and down_proj; partial rotary embedding (partial_rotary_factor: no
// weights). Four RMSNorms a layer: input_layernorm and post_attention_layernorm before the
// sublayers (counted) and post_self_attn_layernorm and post_mlp_layernorm after them, which
// servesim does NOT count (2 x hidden a layer: 327,680 weights in GLM-4-9B, 0.003%).
void read_glm4(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = f.boolean("attention_bias", true);
  m.attention_o_bias = false;
  m.gated_mlp = true;
}

// ERNIE 4.5 MoE text models (Ernie4_5_MoeForCausalLM; vLLM's ernie45_moe.py, transformers'
// modeling_ernie4_5_moe.py). Attention as ERNIE 4.5 dense (GQA, biases only with use_bias, which
// also puts biases on every MLP: refused, servesim has no MLP bias). Layer i is MoE when
// moe_layer_start_index <= i <= moe_layer_end_index (-1 or absent: the last layer) and
// (i + 1) % moe_layer_interval == 0 (Ernie4_5_MoeDecoderLayer); the others have a dense SwiGLU
// MLP of intermediate_size. A MoE layer: a router hidden -> moe_num_experts (no bias; its
// e_score_correction_bias, moe_num_experts floats a layer, is not counted), moe_num_experts
// routed SwiGLU experts of moe_intermediate_size, top moe_k, and one shared SwiGLU MLP of
// moe_num_shared_experts x moe_intermediate_size (counted as that many shared experts of
// moe_intermediate_size: the same weights). The multimodal ERNIE-4.5-VL configs give
// moe_num_experts and moe_intermediate_size as lists (text and vision experts): read by their own
// architecture (hf_ernie_vl_family.cpp), refused under this one. The
// MTP layers some configs name (num_nextn_predict_layers) are not counted: their shapes are not
// in the published modeling code.
// Baidu's activated-parameter figures ("A3B", "A47B") are met leaving both tables out (as GLM's and
// MiniMax's are): a fit to rounded figures, not a published split.
// ERNIE 4.5's MoE decoders' attention and MLP (text and VL alike): no biases (use_bias, which would
// put them on every MLP too, refused), SwiGLU, the table tied unless the config says otherwise.
void read_ernie4_5_moe_common(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("use_bias", false))
    throw Error(fmt::format("{}: use_bias true puts biases on ERNIE 4.5's MLP and expert projections too, which "
                            "servesim does not describe (it counts attention biases only)",
                            f.where()));
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);  // Ernie4_5_MoeConfig's default
}

void read_ernie4_5_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  read_ernie4_5_moe_common(f, m);
  for (const char* k : {"moe_num_experts", "moe_intermediate_size", "moe_k", "moe_num_shared_experts"})
    if (f.has(k) && !f.doc()[k].is_number_integer())
      throw Error(fmt::format("{}: {} is {}: a list gives the multimodal ERNIE-4.5-VL's text and vision experts, "
                              "which servesim does not describe (the text model Ernie4_5_MoeForCausalLM gives one "
                              "integer)",
                              w, k, f.doc()[k].dump()));
  m.moe.num_experts = static_cast<int>(f.at_least("moe_num_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("moe_k", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: moe_k {} exceeds moe_num_experts {}", w, m.moe.experts_per_token, m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("moe_num_shared_experts", 0));
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: moe_num_shared_experts must be >= 0, got {}", w, m.moe.shared_experts));
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  // transformers defaults the start to 1, vLLM to 0: a config must say.
  if (!f.has("moe_layer_start_index"))
    throw Error(fmt::format("{}: moe_layer_start_index is missing: transformers defaults it to 1 and vLLM to 0, so "
                            "servesim will not guess where the experts begin",
                            w));
  const std::int64_t start = f.integer("moe_layer_start_index");
  std::int64_t end = f.integer("moe_layer_end_index", -1);
  if (end == -1) end = m.layers - 1;
  const std::int64_t interval = f.integer("moe_layer_interval", 1);
  if (interval < 1) throw Error(fmt::format("{}: moe_layer_interval must be >= 1, got {}", w, interval));
  if (start < 0 || start >= m.layers || end < start || end >= m.layers)
    throw Error(fmt::format("{}: moe_layer_start_index {} and moe_layer_end_index {} must lie within the {} layers, "
                            "start first",
                            w, start, end, m.layers));
  int moe = 0;
  bool suffix = true;  // every layer from start on is MoE
  for (int i = 0; i < m.layers; ++i) {
    const bool is_moe = i >= start && i <= end && (i + 1) % interval == 0;
    if (is_moe) ++moe;
    if (i >= start && !is_moe) suffix = false;
  }
  if (moe == 0)
    throw Error(fmt::format("{}: moe_layer_start_index, moe_layer_end_index and moe_layer_interval mark no MoE "
                            "layer; servesim will not read {} as a dense model",
                            w, m.architecture));
  if (suffix) m.moe.dense_layers = static_cast<int>(start);
  else m.moe.listed_layers = moe;
  if (m.layers - moe > 0) m.ffn = f.at_least("intermediate_size", 1);
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// Gemma 1 (GemmaForCausalLM; vLLM's gemma.py, transformers' modeling_gemma.py): multi-query
// (2B) or multi-head (7B) attention of head_dim 256 without biases (vLLM builds qkv_proj and
// o_proj with bias=False; a config asking for attention_bias is refused), a gated MLP
// (gate_up_proj, down_proj) with the tanh-approximated GeGLU whatever the published configs'
// hidden_act "gelu" says (vLLM's _get_gemma_act_fn: "gelu" is read as gelu_pytorch_tanh, with a
// warning), RMSNorms before each sublayer and a final one, and the embedding tied to the LM
// head (GemmaConfig's default).
void read_gemma(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: Gemma's q/k/v and o projections have no biases in vLLM's "
                            "GemmaAttention (bias=False); servesim will not guess which checkpoint this is",
                            f.where()));
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
}

// SmolLM3 (SmolLM3ForCausalLM; transformers' modeling_smollm3.py): Llama's layers (GQA, SwiGLU,
// RMSNorm before each sublayer) where every no_rope_layer_interval-th layer (no_rope_layers: 0)
// skips the rotary embedding (NoPE: no weights). attention_bias puts biases on q, k, v and o (as in
// Llama's attention); mlp_bias on the MLP, which servesim does not describe: refused. A window,
// where use_sliding_window and sliding_window are set, applies to the NoPE layers only
// (SmolLM3Config's default layer_types), or to the layers layer_types marks.
void read_smollm3(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("mlp_bias", false))
    throw Error(fmt::format("{}: mlp_bias true puts biases on SmolLM3's MLP projections, which servesim does not "
                            "describe (it counts attention biases only)",
                            w));
  m.attention_o_bias = m.qkv_bias;  // o_proj takes the same bias=attention_bias
  m.gated_mlp = true;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);  // SmolLM3Config's default
  if (f.has("layer_types")) return;  // read_local_attention counted its sliding layers
  if (!f.boolean("use_sliding_window", false)) {  // SmolLM3Config's default: no window
    m.local = LocalAttention{};
    return;
  }
  if (!m.local.enabled()) return;
  // read_local_attention put the window on every layer; SmolLM3Config's layer_types put it on the
  // NoPE layers: no_rope_layers[i] == 0, or by default (i + 1) % no_rope_layer_interval == 0.
  const std::vector<std::int64_t> rope = f.integers("no_rope_layers");
  int nope = 0;
  if (!rope.empty()) {
    if (static_cast<int>(rope.size()) < m.layers)
      throw Error(fmt::format("{}: no_rope_layers lists {} layers, fewer than num_hidden_layers {}", w, rope.size(),
                              m.layers));
    for (int i = 0; i < m.layers; ++i)
      if (rope[i] == 0) ++nope;
  } else {
    const std::int64_t every = f.integer("no_rope_layer_interval", 4);
    if (every < 1) throw Error(fmt::format("{}: no_rope_layer_interval must be >= 1, got {}", w, every));
    for (int i = 0; i < m.layers; ++i)
      if ((i + 1) % every == 0) ++nope;
  }
  if (nope == 0) m.local = LocalAttention{};
  else m.local.layers = nope;
}

// Seed-OSS (SeedOssForCausalLM; transformers' modeling_seed_oss.py): Llama's layers with biases
// on q, k and v when attention_bias (SeedOssConfig's default: true), on o_proj when
// attention_out_bias (default false), on the MLP when mlp_bias (default false: refused when true,
// servesim has no MLP bias), and head_dim given apart from the width (Seed-OSS-36B: 80 heads of
// 128 over a 5120-wide model).
void read_seed_oss(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("mlp_bias", false))
    throw Error(fmt::format("{}: mlp_bias true puts biases on Seed-OSS's MLP projections, which servesim does not "
                            "describe (it counts attention biases only)",
                            f.where()));
  m.qkv_bias = f.boolean("attention_bias", true);
  m.attention_o_bias = f.boolean("attention_out_bias", false);
  m.gated_mlp = true;
}

}  // namespace servesim
