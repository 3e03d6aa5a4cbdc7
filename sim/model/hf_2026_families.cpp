// Readers of OLMoE, EXAONE 4.0, Hunyuan (A13B MoE and dense V1), Ling / Ring 2.0
// (BailingMoeV2), Command R7B / Command A (Cohere2), dots.llm1 and Apertus: decoders of Llama's
// kind whose checkpoints differ in where their experts, norms and windows are. Shapes as vLLM
// builds them (ROCm/vllm@f8c9a385233a8e1f724411785a1c326006640df5:
// vllm/model_executor/models/olmoe.py, exaone4.py, hunyuan_v1.py, commandr.py, dots1.py;
// vllm-project/vllm@3a04cf8f14c971435137c3ec572a7803c663673d: bailing_moe.py, which reads
// BailingMoeV2) and as transformers' modeling code and configuration classes default them
// (huggingface/transformers: configuration_olmoe.py and configuration_exaone4.py at
// 008e574391258935f3ecc3035c882e73bbcac419, modeling_olmoe.py at
// 00dcc6dda6f6d8e69541a6b51f97986a80242367, modular_hunyuan_v1_moe.py at
// 05bf8f6478e956b714bd5258cfa9b8a8f104577e, modular_apertus.py at
// 008e574391258935f3ecc3035c882e73bbcac419).
//
// Common to all: the per-head (or, in OLMoE, full-width) q/k RMSNorms are NOT counted, as
// servesim counts none (Qwen3's neither); each reader gives their size.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "model/hf_families.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

// A field given either as one integer or as one integer per layer (Hunyuan's moe_topk,
// moe_intermediate_size, num_shared_expert): the one value. Per-layer lists whose entries
// differ are refused, as servesim has one expert shape for every MoE layer.
std::int64_t uniform_integer(const JsonFields& f, const char* key, int layers, std::int64_t fallback) {
  if (!f.has(key)) return fallback;
  const nlohmann::json& v = f.doc()[key];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_array() || v.empty())
    throw Error(fmt::format("{}: {} must be an integer or a list of one integer per layer, got {}", f.where(), key,
                            excerpt(v.dump())));
  if (static_cast<int>(v.size()) < layers)
    throw Error(fmt::format("{}: {} lists {} values, fewer than num_hidden_layers {}", f.where(), key, v.size(),
                            layers));
  std::int64_t first = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer())
      throw Error(fmt::format("{}: {}[{}] must be an integer, got {}", f.where(), key, i, excerpt(v[i].dump())));
    const std::int64_t x = v[i].get<std::int64_t>();
    if (i == 0) first = x;
    else if (x != first)
      throw Error(fmt::format("{}: {} differs across layers ({} at layer 0, {} at layer {}): servesim models one "
                              "expert shape for every MoE layer",
                              f.where(), key, first, x, i));
  }
  return first;
}

// The routed experts (count under `experts_key`, num_experts_per_tok, moe_intermediate_size)
// and the shared experts' count (under `shared_key`), as DeepSeek-style configs name them.
void read_routed_experts(const JsonFields& f, ModelSpec& m, const char* experts_key, const char* shared_key) {
  const std::string w = f.where();
  m.moe.num_experts = static_cast<int>(f.at_least(experts_key, 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds {} {}", w, m.moe.experts_per_token, experts_key,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer(shared_key, 0));
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: {} must be >= 0, got {}", w, shared_key, m.moe.shared_experts));
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
}

}  // namespace

void refuse_mlp_bias(const JsonFields& f, const char* family) {
  if (f.boolean("mlp_bias", false))
    throw Error(fmt::format("{}: mlp_bias true puts biases on {}'s MLP projections, which servesim does not describe "
                            "(it counts attention biases only)",
                            f.where(), family));
}

namespace {

// The sliding layers of a model whose layer_types, when given, read_local_attention counted;
// without them every pattern-th layer (1-based) is global, the others sliding (Exaone4Config's
// and Cohere2Config's default layer_types, vLLM's exaone4.py and commandr.py).
void sliding_every_but_pattern(ModelSpec& m, std::int64_t pattern) {
  if (!m.local.enabled()) return;
  if (pattern <= 0) {  // no pattern: no sliding layer
    m.local = LocalAttention{};
    return;
  }
  int sliding = 0;
  for (int i = 0; i < m.layers; ++i)
    if ((i + 1) % pattern != 0) ++sliding;
  if (sliding == 0) m.local = LocalAttention{};
  else m.local.layers = sliding;
}

}  // namespace

// OLMoE (OlmoeForCausalLM; vLLM's olmoe.py, transformers' modeling_olmoe.py): multi-head
// attention of hidden / heads wide heads without biases (vLLM's OlmoeAttention builds qkv_proj and
// o_proj with bias=False whatever attention_bias says, while transformers would add them: a config
// asking for biases is refused), q_norm over the whole query width and k_norm over the keys'
// (not counted: OLMoE-1B-7B's are 16 x (2048 + 2048) = 65,536 weights, 0.001%), and on every layer
// a router hidden -> num_experts (no bias) and num_experts SwiGLU experts of intermediate_size,
// top num_experts_per_tok, no shared expert. clip_qkv clamps activations (no weights). vLLM runs
// no window: a sliding_window in the config is not applied.
void read_olmoe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: OLMoE's q/k/v and o projections have no biases in vLLM's "
                            "OlmoeAttention (bias=False) while transformers' would add them; servesim will not guess "
                            "which checkpoint this is",
                            w));
  if (static_cast<std::int64_t>(m.heads) * m.head_dim != m.hidden)
    throw Error(fmt::format("{}: head_dim {} x num_attention_heads {} differs from hidden_size {}: OLMoE's heads are "
                            "hidden_size / num_attention_heads wide (OlmoeAttention)",
                            w, m.head_dim, m.heads, m.hidden));
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;  // gate_proj, up_proj, down_proj (SiluAndMul)
  m.local = LocalAttention{};
  m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
}

// EXAONE 4.0 (Exaone4ForCausalLM; vLLM's exaone4.py, transformers' Exaone4Config): GQA of
// head_dim, per-head q_norm and k_norm (2 x head_dim a layer, not counted: 16,384 weights in the
// 32B), a SwiGLU MLP, and the norms after the sublayers (post_attention_layernorm,
// post_feedforward_layernorm) and a final one: the count servesim makes for pre-norms. The
// 32B's sliding layers: layer_types as written; without them sliding_window_pattern, an integer
// p (every p-th layer global) or a string of L (local) and G (global) letters, read as
// Exaone4Config documents it: the letters repeated from layer 0, the last layer always global.
// (vLLM's exaone4.py at the commit above reads a string by its length only, making every
// len-th layer global: the same layers for the published "LLLG" over 64 layers; for a layer
// count that is no multiple of the length, or another string, the last layers may differ.) A
// null sliding_window (EXAONE 4.0 1.2B: global attention only, as LG's EXAONE 4 documentation
// says of it) is global attention on every layer whatever the pattern says. The global layers
// skip the rotary embedding (no weights). Biases (attention_bias, mlp_bias) are refused: no
// published EXAONE 4.0 checkpoint has them and servesim counts no MLP bias.
void read_exaone4(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("attention_bias", false) || f.boolean("bias", false))
    throw Error(fmt::format("{}: attention_bias true: no EXAONE 4.0 checkpoint has attention biases, and servesim will "
                            "not guess where they sit",
                            w));
  refuse_mlp_bias(f, "EXAONE 4.0");
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  if (f.has("layer_types")) return;  // read_local_attention counted the sliding layers
  if (!m.local.enabled()) return;    // no window (null), or one that never binds
  if (!f.has("sliding_window_pattern")) {
    sliding_every_but_pattern(m, 4);  // Exaone4Config's default
    return;
  }
  const nlohmann::json& p = f.doc()["sliding_window_pattern"];
  if (p.is_number_integer()) {
    sliding_every_but_pattern(m, p.get<std::int64_t>());
    return;
  }
  if (!p.is_string())
    throw Error(fmt::format("{}: sliding_window_pattern must be an integer or a string of L and G, got {}", w,
                            excerpt(p.dump())));
  const std::string s = p.get<std::string>();
  if (s.empty() || s.find_first_not_of("LG") != std::string::npos)
    throw Error(fmt::format("{}: sliding_window_pattern '{}' must be a string of L (local) and G (global) letters",
                            w, s));
  int sliding = 0;
  for (int i = 0; i + 1 < m.layers; ++i)  // the last layer is global
    if (s[static_cast<std::size_t>(i) % s.size()] == 'L') ++sliding;
  if (sliding == 0) m.local = LocalAttention{};
  else m.local.layers = sliding;
}

// Hunyuan V1 (HunYuanMoEV1ForCausalLM: Hunyuan-A13B; HunYuanDenseV1ForCausalLM; vLLM's
// hunyuan_v1.py, transformers' modular_hunyuan_v1_moe.py): GQA of head_dim (or
// attention_head_dim) with per-head query_layernorm and key_layernorm (use_qk_norm; 256 weights a
// layer, not counted), biases on q, k, v and o with attention_bias (or bias), and:
//   MoE     num_experts (> 1) routed SwiGLU experts, top moe_topk, a router hidden ->
//           num_experts (no bias), and a shared MLP beside them. vLLM sizes the experts by
//           moe_intermediate_size and the shared MLP as intermediate_size x num_shared_expert, only
//           with use_mixed_mlp_moe; transformers sizes both by intermediate_size and always builds
//           one shared MLP. The published A13B config makes them agree (3072, 1 shared, mixed);
//           a config where they do not is refused. Per-layer lists (moe_topk,
//           moe_intermediate_size, num_shared_expert, num_experts) must hold one value;
//   dense   a SwiGLU MLP of intermediate_size (num_experts absent or 1).
// Cross-layer attention (use_cla: layers reading an earlier layer's KV) is refused: servesim
// would count that KV twice. vLLM runs no window: a sliding_window is not applied.
void read_hunyuan(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  const bool moe_arch = m.architecture == "HunYuanMoEV1ForCausalLM" || f.string("model_type", "") == "hunyuan_v1_moe";
  if (f.boolean("use_cla", false))
    throw Error(fmt::format("{}: use_cla true (cla_share_factor {}): layers reading another layer's KV cache "
                            "(cross-layer attention) are not modelled; servesim would count their KV twice",
                            w, f.integer("cla_share_factor", 1)));
  refuse_mlp_bias(f, "Hunyuan");
  m.qkv_bias = f.boolean("attention_bias", false) || f.boolean("bias", false);
  m.attention_o_bias = m.qkv_bias;
  m.gated_mlp = true;  // gate_and_up_proj / gate_up_proj, down_proj (SiluAndMul)
  m.local = LocalAttention{};
  const std::int64_t experts = uniform_integer(f, "num_experts", m.layers, 1);
  if (!moe_arch) {
    if (experts > 1)
      throw Error(fmt::format("{}: num_experts {} in a {} config: the dense architecture has no experts; a "
                              "HunYuanMoEV1ForCausalLM config describes them",
                              w, experts, m.architecture));
    if (m.ffn <= 0) throw Error(fmt::format("{}: intermediate_size must be positive", w));
    return;
  }
  if (experts <= 1) return;  // refused by the caller as an MoE architecture without experts
  const std::int64_t ffn = f.at_least("intermediate_size", 1);
  const std::int64_t expert_ffn = uniform_integer(f, "moe_intermediate_size", m.layers, ffn);
  const std::int64_t shared = uniform_integer(f, "num_shared_expert", m.layers, 1);
  const bool mixed = f.boolean("use_mixed_mlp_moe", false);
  if (expert_ffn != ffn || !mixed || shared != 1)
    throw Error(fmt::format("{}: moe_intermediate_size {}, intermediate_size {}, use_mixed_mlp_moe {} and "
                            "num_shared_expert {}: vLLM builds experts of moe_intermediate_size and a shared MLP of "
                            "intermediate_size x num_shared_expert only when mixed, transformers experts and one "
                            "shared MLP of intermediate_size always; they agree only for equal sizes, one shared MLP "
                            "and use_mixed_mlp_moe true, and servesim will not guess which checkpoint this is",
                            w, expert_ffn, ffn, mixed ? "true" : "false", shared));
  m.moe.num_experts = static_cast<int>(experts);
  m.moe.experts_per_token = static_cast<int>(uniform_integer(f, "moe_topk", m.layers, 1));
  if (m.moe.experts_per_token < 1 || m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: moe_topk {} must be within [1, num_experts = {}]", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = expert_ffn;
  m.moe.shared_experts = 1;
  m.moe.shared_expert_ffn = ffn;
}

// Ling / Ring 2.0 (BailingMoeV2ForCausalLM; vLLM's bailing_moe.py): GQA of head_dim through a
// fused query_key_value (biases with use_qkv_bias or use_bias) and dense (o_proj, bias with
// use_bias), per-head q/k norms (use_qk_norm; 256 weights a layer, not counted), partial rotary
// embedding (no weights). The first first_k_dense_replace layers have a SwiGLU MLP of
// intermediate_size; the others a router hidden -> num_experts (no bias; the routing bias of
// moe_router_enable_expert_bias, num_experts floats a layer, is not counted: 4,864 weights in
// Ling-mini-2.0), num_experts SwiGLU experts of moe_intermediate_size, top num_experts_per_tok in
// topk_group of n_group groups, and num_shared_experts shared experts of
// moe_shared_expert_intermediate_size (or moe_intermediate_size; vLLM builds one MLP of their
// product: the same weights). use_bias also biases every MLP: refused. The MTP layers
// (num_nextn_predict_layers) are not counted, as inclusionAI's 16.26B total for Ling-mini-2.0
// leaves them out. vLLM runs no window: a sliding_window is not applied.
void read_bailing_moe_v2(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("use_bias", false))
    throw Error(fmt::format("{}: use_bias true puts biases on Bailing's MLP and expert projections too, which servesim "
                            "does not describe (it counts attention biases only)",
                            w));
  m.qkv_bias = f.boolean("use_qkv_bias", false);
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  read_routed_experts(f, m, "num_experts", "num_shared_experts");
  m.moe.shared_expert_ffn = f.integer("moe_shared_expert_intermediate_size", m.moe.expert_ffn);
  m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers >= m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {})", w,
                            m.moe.dense_layers, m.layers));
  if (m.moe.dense_layers > 0) m.ffn = f.at_least("intermediate_size", 1);
}

// Command R7B and Command A (Cohere2ForCausalLM; vLLM's commandr.py, which serves Cohere2 as
// CohereForCausalLM): GQA without biases (qkv_proj and o_proj bias=False: a config asking for
// attention_bias is refused), a SwiGLU MLP, and attention and MLP side by side in one block
// after one LayerNorm (a weight, no bias): out = x + attn(norm(x)) + mlp(norm(x)). servesim
// prices the two as it prices any layer's (the same weights and work; running them
// concurrently is not modelled) and counts two norms a layer where there is one: hidden x
// layers weights too many (131,072 in R7B, 786,432 in Command A; 0.002% and 0.0007%), and one
// elementwise norm pass a layer priced too many (attn_norm_residual: 2 x 64 calls for Command
// A's 64; 1.9% of its 1,024-token prefill step on a B200, memory-bound, half of it extra). The
// embedding is tied to the LM head (vLLM asserts it: an untied config is refused). Sliding
// layers: layer_types as written, else every sliding_window_pattern-th layer (Cohere2Config's
// default 4) global, the others a window of sliding_window; the global layers skip the rotary
// embedding (no weights).
void read_cohere2(const JsonFields& f, ModelSpec& m) {
  read_cohere_block(f, m, "Cohere2");
  if (f.has("layer_types")) return;
  sliding_every_but_pattern(m, f.integer("sliding_window_pattern", 4));
}

// What Command R (CohereForCausalLM, hf_more_2026_families.cpp) and Command R7B / A (Cohere2)
// share: qkv_proj and o_proj without biases, a SwiGLU MLP without biases, the LM head tied to
// the embedding (see read_cohere2).
void read_cohere_block(const JsonFields& f, ModelSpec& m, const char* family) {
  const std::string w = f.where();
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: vLLM's CohereAttention builds qkv_proj and o_proj without "
                            "biases; servesim will not guess which checkpoint this is",
                            w));
  refuse_mlp_bias(f, family);
  if (!f.boolean("tie_word_embeddings", true))
    throw Error(fmt::format("{}: tie_word_embeddings false: every Command R / Command A checkpoint ties the LM head "
                            "to the embedding (vLLM's CohereForCausalLM asserts it); servesim will not size a head it "
                            "would not load",
                            w));
  m.tied_embeddings = true;
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
}

// dots.llm1 (Dots1ForCausalLM; vLLM's dots1.py): GQA of head_dim with biases on q, k and v when
// attention_bias (none on o_proj) and per-head q/k norms (256 weights a layer, not counted);
// DeepSeek-V3's MoE over it: layer i is MoE when i >= first_k_dense_replace and
// i % moe_layer_freq == 0 (a SwiGLU MLP of intermediate_size otherwise), n_routed_experts
// SwiGLU experts of moe_intermediate_size, top num_experts_per_tok (in topk_group of n_group
// groups where given; null in the published config), a router hidden -> n_routed_experts (its
// e_score_correction_bias, n_routed_experts floats a layer, not counted) and n_shared_experts
// shared experts of moe_intermediate_size (vLLM builds one MLP of their product: the same
// weights). rednote's "14B activated" counts both tables (see the test). vLLM runs no window: a
// sliding_window is not applied.
void read_dots1(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.string("hidden_act", "silu") != "silu")
    throw Error(fmt::format("{}: hidden_act '{}': vLLM's Dots1MoE runs silu only", w, f.string("hidden_act", "")));
  m.qkv_bias = f.boolean("attention_bias", false);
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  read_routed_experts(f, m, "n_routed_experts", "n_shared_experts");
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers >= m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {})", w,
                            m.moe.dense_layers, m.layers));
  const std::int64_t freq = f.integer("moe_layer_freq", 1);
  if (freq < 1) throw Error(fmt::format("{}: moe_layer_freq must be >= 1, got {}", w, freq));
  if (freq > 1) {
    int moe = 0;
    for (int i = m.moe.dense_layers; i < m.layers; ++i)
      if (i % freq == 0) ++moe;
    m.moe.listed_layers = moe;
  }
  if (m.layers - m.moe_layers() > 0) m.ffn = f.at_least("intermediate_size", 1);
}

// Apertus (ApertusForCausalLM; transformers' modular_apertus.py): Llama's attention (biases on q,
// k, v and o with attention_bias) with per-head q_norm and k_norm (256 weights a layer, not
// counted), pre-norms (attention_layernorm, feedforward_layernorm), and an MLP without a gate:
// up_proj hidden -> intermediate_size, the xIELU activation, down_proj back (ApertusMLP, bias=False
// whatever mlp_bias says; a config asking for MLP biases is refused). xIELU's learned alpha_p and
// alpha_n (two scalars a layer: 64 weights in the 8B) are not counted. Read as not gated whatever
// hidden_act names: ApertusMLP has no gate projection. vLLM runs no window: a sliding_window is
// not applied.
void read_apertus(const JsonFields& f, ModelSpec& m) { read_ungated_llama(f, m, "Apertus"); }

// A Llama decoder whose MLP has no gate (up_proj, an activation, down_proj; Apertus's xIELU,
// AFM's ReLU^2 in hf_more_2026_families.cpp): attention biases on q, k, v and o with
// attention_bias, none on the MLP (mlp_bias refused), no window (vLLM applies none).
void read_ungated_llama(const JsonFields& f, ModelSpec& m, const char* family) {
  refuse_mlp_bias(f, family);
  m.attention_o_bias = m.qkv_bias;  // LlamaAttention: o_proj takes bias=attention_bias too
  m.gated_mlp = false;
  m.local = LocalAttention{};
  if (m.ffn <= 0) throw Error(fmt::format("{}: intermediate_size must be positive", f.where()));
}

}  // namespace servesim
