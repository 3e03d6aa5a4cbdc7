// Families of vLLM's text-generation registry people run in 2026 that servesim did not read
// (hf_families.h lists the enum values under this file's name):
//   Cohere2MoeForCausalLM     Cohere's MoE (North Mini Code, Command A+'s text model): read_cohere2_moe;
//   ArcticForCausalLM         Snowflake Arctic, a dense MLP beside the MoE in every MoE layer: read_arctic;
//   PanguProMoEForCausalLM    Huawei's Pangu Pro MoE (MoGE: grouped experts): read_pangu_pro_moe;
//   PanguUltraMoEForCausalLM  openPangu Ultra MoE (DeepSeek-V3's decoder under Huawei's field names):
//                             read_pangu_ultra_moe after alias_rest2026_fields;
//   SarvamMLAForCausalLM      Sarvam 105B (MLA, dense then routed + shared experts): read_sarvam_mla;
//   SarvamMoEForCausalLM      Sarvam 30B (vLLM's SarvamMoEForCausalLM subclasses BailingMoeForCausalLM):
//                             read_sarvam_moe, read_bailing_moe_v2 with Sarvam's active count.
//   Param2MoEForCausalLM      BharatGen's Param-2 (GQA with q/k norms, dense then routed + shared
//                             experts): read_param2_moe;
//   AXK1ForCausalLM           SK Telecom's A.X K1 (DeepSeek-V3's decoder with a norm after each MoE
//                             block): read_axk1.
// FlexOlmo is a table alias of OLMoE (hf_families.cpp says why beside it).
// rest2026_unsupported names those of the group servesim refuses and the piece it lacks.
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {

namespace {

// The routed experts' count and top-k, checked: 1 <= top-k <= experts.
void read_expert_counts(const JsonFields& f, ModelSpec& m, const char* experts_key, const char* topk_key) {
  m.moe.num_experts = static_cast<int>(f.at_least(experts_key, 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least(topk_key, 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: {} {} exceeds {} {}", f.where(), topk_key, m.moe.experts_per_token, experts_key,
                            m.moe.num_experts));
}

void require_moe_layer(const JsonFields& f, const ModelSpec& m) {
  if (m.moe_layers() == 0)
    throw Error(fmt::format("{}: no layer is MoE; servesim will not read {} as a dense model", f.where(),
                            m.architecture));
}

}  // namespace

// Cohere2Moe (Cohere2MoeForCausalLM; vLLM's cohere2_moe.py at 055e47c28003156421365af985d676fc921cb075,
// Cohere2MoeAttention / Cohere2Moe / Cohere2MoeDecoderLayer):
//   block      Cohere's parallel block: one input_layernorm (RMSNorm with rms_norm_eps, else Cohere's
//              LayerNorm, a weight without bias), attention and MLP side by side; servesim counts two
//              norms a layer, hidden x layers weights too many (100,352 in North Mini Code, 0.0003%),
//              as read_cohere2 does; the LM head is the embedding (compute_logits reads embed_tokens,
//              lm_head.* is dropped on load): read_cohere_block;
//   attention  GQA of head_dim, qkv_proj and o_proj without biases; no q/k norm (a config asking for
//              use_qk_norm is refused: vLLM's attention has none); sliding layers from layer_types
//              (sliding_window), else every sliding_window_pattern-th layer (default 4) global;
//   MLP        per layer from mlp_layer_types ("dense" / "sparse"), else the first
//              first_k_dense_replace dense, else every layer MoE (Cohere2MoeModel's normalisation);
//              a dense layer is a SwiGLU MLP of prefix_dense_intermediate_size (default
//              intermediate_size); a sparse one a router hidden -> num_experts without bias,
//              num_experts SwiGLU experts of intermediate_size (not moe_intermediate_size: FusedMoE
//              gets config.intermediate_size), top num_experts_per_tok, and with num_shared_experts > 0
//              one shared MLP of intermediate_size x num_shared_experts (the "average" combination
//              halves the sum: no weights).
// Active figure: both tables counted (the one tied table once), servesim's default; Cohere's
// Command A+ "218B total parameters, 25B active" fits it (see the test).
void read_cohere2_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "Cohere2MoeForCausalLM");
  if (f.boolean("use_qk_norm", false))
    throw Error(fmt::format("{}: use_qk_norm true: vLLM's Cohere2MoeAttention has no q/k norms; servesim will not "
                            "guess their shapes",
                            w));
  read_cohere_block(f, m, "Cohere2Moe");
  if (!f.has("layer_types") && m.local.enabled()) {
    const std::int64_t pattern = f.integer("sliding_window_pattern", 4);
    int sliding = 0;
    for (int i = 0; i < m.layers; ++i)
      if (pattern > 0 && (i + 1) % pattern != 0) ++sliding;
    if (sliding == 0) m.local = LocalAttention{};
    else m.local.layers = sliding;
  }
  read_expert_counts(f, m, "num_experts", "num_experts_per_tok");
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  const std::int64_t shared = f.integer("num_shared_experts", 0);
  if (shared < 0) throw Error(fmt::format("{}: num_shared_experts must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = m.moe.expert_ffn * shared;
  }
  read_mlp_layer_kinds(f, m, 0);  // mlp_layer_types, else first_k_dense_replace (default 0)
  require_moe_layer(f, m);
  m.ffn = f.integer("prefix_dense_intermediate_size", m.moe.expert_ffn);
  if (m.moe_layers() < m.layers && m.ffn <= 0)
    throw Error(fmt::format("{}: prefix_dense_intermediate_size must be positive for the dense layers, got {}", w,
                            m.ffn));
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

// Arctic's and Pangu Pro's attention take hidden_size / num_attention_heads as the head
// width whatever head_dim the config gives; `attention` names the class that does.
static void set_head_dim_from_hidden(const JsonFields& f, ModelSpec& m, const char* attention) {
  const std::string w = f.where();
  if (m.heads < 1) throw Error(fmt::format("{}: num_attention_heads must be at least 1, got {}", w, m.heads));
  if (m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {}: {} takes hidden_size / "
                            "num_attention_heads as the head width",
                            w, m.hidden, m.heads, attention));
  m.head_dim = static_cast<int>(m.hidden / m.heads);
}

// Snowflake Arctic (ArcticForCausalLM; vLLM's arctic.py, ArcticAttention / ArcticMoE /
// ArcticDecoderLayer; Snowflake's configuration_arctic.py, which vLLM copies):
//   attention  GQA of hidden_size / num_attention_heads (the config's head_dim is not read), qkv_proj
//              and o_proj without biases; no window is applied whatever sliding_window says;
//   MLP        layer i is MoE when (i + 1) % moe_layer_frequency == 0 (ArcticConfig's default 2):
//              a router hidden -> num_local_experts without bias and num_local_experts SwiGLU
//              experts (w1, w3, w2) of intermediate_size, top num_experts_per_tok; the other layers a
//              SwiGLU MLP of intermediate_size. With use_residual a MoE layer also runs residual_mlp,
//              a SwiGLU MLP of hidden_size (ArcticMLP with is_residual_mlp: ffn_dim = hidden_size)
//              on the same input, its output added to the experts'. That is arithmetically an
//              always-on shared expert of width hidden_size, and servesim reads it as one
//              (shared_experts 1, shared_expert_ffn hidden_size): the same weights, the same work
//              on every token. Its residual_layernorm (hidden weights a MoE layer: 250,880 in
//              Arctic, 0.00005%) is not counted.
// Active figure: both tables counted, servesim's default: Snowflake's own arithmetic, "a 10B dense
// transformer model with a residual 128x3.66B MoE MLP resulting in 480B total and 17B active
// parameters", puts both tables in the 10B (see the test).
void read_arctic(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "ArcticForCausalLM");
  set_head_dim_from_hidden(f, m, "vLLM's ArcticAttention");
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  read_expert_counts(f, m, "num_local_experts", "num_experts_per_tok");
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  m.ffn = m.moe.expert_ffn;
  const std::int64_t every = f.integer("moe_layer_frequency", 2);
  if (every < 1 || every > m.layers)
    throw Error(fmt::format("{}: moe_layer_frequency {} must be within [1, num_hidden_layers = {}]", w, every,
                            m.layers));
  m.moe.layer_step = static_cast<int>(every);  // layers every-1, 2 every-1, ...: layers / every of them
  if (f.boolean("use_residual", false)) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = m.hidden;
  }
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

// Pangu Pro MoE (PanguProMoEForCausalLM; vLLM-Ascend's pangu_moe.py, PanguProMoEAttention /
// PanguProMoESparseMoeBlock / PanguProMoEDecoderLayer, and its PanGuMoEConfig):
//   attention  GQA of hidden_size / num_attention_heads with biases on qkv_proj and on o_proj
//              (bias=True whatever the config says);
//   MLP        on every layer but those of mlp_only_layers (a SwiGLU MLP of intermediate_size) a
//              router hidden -> num_experts without bias, num_experts SwiGLU experts of
//              moe_intermediate_size and, with shared_expert_intermediate_size > 0, one shared
//              SwiGLU MLP of that width. MoGE routing takes the best expert of each of
//              num_experts_per_tok equal groups: num_experts_per_tok experts a token, as servesim
//              counts them (which experts it reaches is not modelled). The router_scale vector
//              (num_experts weights a layer, 3,072 in the 72B) is not counted.
// Active figure: the LM head counted, the embedding not, as DeepSeek's (Huawei's Ultra MoE 39B
// fits that count; the Pro MoE's 16B fits it too, see the test).
void read_pangu_pro_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "PanguProMoEForCausalLM");
  set_head_dim_from_hidden(f, m, "vLLM-Ascend's PanguProMoEAttention");
  m.qkv_bias = true;
  m.attention_o_bias = true;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  read_expert_counts(f, m, "num_experts", "num_experts_per_tok");
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
  if (shared < 0) throw Error(fmt::format("{}: shared_expert_intermediate_size must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
  std::vector<bool> moe(static_cast<std::size_t>(m.layers), true);
  for (const std::int64_t i : f.integers("mlp_only_layers")) {
    if (i < 0 || i >= m.layers)
      throw Error(fmt::format("{}: mlp_only_layers lists layer {}, outside [0, num_hidden_layers = {})", w, i, m.layers));
    moe[static_cast<std::size_t>(i)] = false;
  }
  set_moe_layers(moe, m);
  require_moe_layer(f, m);
  if (m.moe_layers() < m.layers && m.ffn <= 0)
    throw Error(fmt::format("{}: the mlp_only_layers need a positive intermediate_size", w));
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// openPangu Ultra MoE's own field names (its OpenPanguMoEConfig, "openPanguUltraMoE 718B model
// configuration", model_type "pangu_ultra_moe") copied under DeepSeek-V3's, where the config does
// not give the latter, before read_deepseek reads them (the text model's json, which the importer
// owns): num_routed_experts -> n_routed_experts, num_shared_experts -> n_shared_experts,
// num_dense_layers -> first_k_dense_replace, attention_q_lora_dim -> q_lora_rank,
// attention_kv_lora_dim -> kv_lora_rank, attention_qk_dim -> qk_nope_head_dim,
// attention_qk_rope_dim -> qk_rope_head_dim, attention_v_dim -> v_head_dim, num_mtp_layers ->
// num_nextn_predict_layers. A no-op for the group's other families.
void alias_rest2026_fields(nlohmann::json& text, HfFamily family) {
  if (family != HfFamily::pangu_ultra_moe) return;
  auto copy = [&](const char* own, const char* common) {
    if (text.contains(own) && !text[own].is_null() && (!text.contains(common) || text[common].is_null()))
      text[common] = text[own];
  };
  copy("num_routed_experts", "n_routed_experts");
  copy("num_shared_experts", "n_shared_experts");
  copy("num_dense_layers", "first_k_dense_replace");
  copy("attention_q_lora_dim", "q_lora_rank");
  copy("attention_kv_lora_dim", "kv_lora_rank");
  copy("attention_qk_dim", "qk_nope_head_dim");
  copy("attention_qk_rope_dim", "qk_rope_head_dim");
  copy("attention_v_dim", "v_head_dim");
  copy("num_mtp_layers", "num_nextn_predict_layers");
}

// openPangu Ultra MoE (PanguUltraMoEForCausalLM; vLLM's openpangu.py at
// 0084eaffd5b6a57a8337cc6e8b73a4b25f3d3e1e, OpenPanguMLAAttention / OpenPanguMoE /
// OpenPanguDecoderLayer): DeepSeek-V3's MLA and MoE (n_routed_experts SwiGLU experts of
// moe_intermediate_size, top num_experts_per_tok, n_shared_experts x moe_intermediate_size shared,
// the first first_k_dense_replace layers dense of intermediate_size), read by read_deepseek. With
// sandwich_norm a layer has two more RMSNorms (post-attention and post-MLP): 2 x hidden a layer not
// counted (937,000 weights in the 718B, 0.0001%). The same file builds later openPangu variants
// whose layers servesim cannot describe; those configs are refused naming the key:
// use_mhc (manifold hyper-connections: mHCModule's phi projections of num_stream x hidden),
// use_mome (MomeAttention: causal convolutions over the query, latent and output with their own
// per-sequence state), param_sink_number > 0 (learned sink keys and values prepended to every
// layer's cache), sliding_window / swa_layers / sliding_window_list (a window on some MLA layers)
// and dsa_layers (DeepSeek sparse attention on some layers only; index_topk on every layer reads
// as DeepSeek-V3.2's).
void read_pangu_ultra_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "PanguUltraMoEForCausalLM");
  if (f.boolean("use_mhc", false))
    throw Error(fmt::format("{}: use_mhc true: openPangu's manifold hyper-connections (mHCModule, mhc_num_stream "
                            "residual streams) are not described by servesim; it would misprice them",
                            w));
  if (f.boolean("use_mome", false))
    throw Error(fmt::format("{}: use_mome true: openPangu's MoME attention (causal convolutions over the query, "
                            "latent and output with a per-sequence state) is not described by servesim",
                            w));
  if (f.integer("param_sink_number", 0) > 0)
    throw Error(fmt::format("{}: param_sink_number {}: learned sink keys and values in every layer's cache are not "
                            "described by servesim",
                            w, f.integer("param_sink_number")));
  for (const char* key : {"sliding_window", "swa_layers", "sliding_window_list", "dsa_layers"})
    if (f.has(key))
      throw Error(fmt::format("{}: {}: openPangu's per-layer sliding-window or sparse MLA layers are not described "
                              "by servesim (one MLA attention for every layer); it would misprice them",
                              w, key));
  if (!f.has("kv_lora_rank"))
    throw Error(fmt::format("{}: an openPangu MoE config without kv_lora_rank (attention_kv_lora_dim): its layers "
                            "then run vLLM's OpenPanguSinkAttention or plain attention, and servesim reads "
                            "openPangu MoE's MLA attention only",
                            w));
  read_deepseek(f, m);
}

// Sarvam's MLA MoE (SarvamMLAForCausalLM; vLLM's sarvam.py at
// 055e47c28003156421365af985d676fc921cb075, SarvamMLAAttention / SarvamMLAMoE / SarvamMLABlock):
//   attention  DeepSeek-V2's MLA (q_a_proj / q_b_proj with q_lora_rank, else q_proj; kv_a_proj_with_mqa,
//              kv_b_proj, o_proj, no biases): read_mla;
//   MLP        layer i is MoE when num_experts is given, i >= first_k_dense_replace (default 1) and
//              (i - first_k_dense_replace) % moe_layer_freq == 0; the others a SwiGLU MLP of
//              intermediate_size (default 16384). A MoE layer: a router hidden -> num_experts (its
//              e_score_correction_bias, num_experts fp32 values, not counted), num_experts SwiGLU
//              experts of moe_intermediate_size, top num_experts_per_tok, and num_shared_experts
//              (default 1) x (moe_shared_expert_intermediate_size, else moe_intermediate_size) as one
//              shared MLP.
// Active figure: neither table counted, as Sarvam counts (read_sarvam_moe).
void read_sarvam_mla(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "SarvamMLAForCausalLM");
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  if (!f.has("kv_lora_rank"))
    throw Error(fmt::format("{}: SarvamMLAForCausalLM needs kv_lora_rank (its attention is MLA)", w));
  read_mla(f, m);
  read_expert_counts(f, m, "num_experts", "num_experts_per_tok");
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  const std::int64_t shared = f.integer("num_shared_experts", 1);
  if (shared < 0) throw Error(fmt::format("{}: num_shared_experts must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = f.integer("moe_shared_expert_intermediate_size", m.moe.expert_ffn) * shared;
  }
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
  const std::int64_t first = f.integer("first_k_dense_replace", 1);
  const std::int64_t every = f.integer("moe_layer_freq", 1);
  if (first < 0 || first > m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {}]", w, first,
                            m.layers));
  if (every < 1) throw Error(fmt::format("{}: moe_layer_freq must be >= 1, got {}", w, every));
  std::vector<bool> moe(static_cast<std::size_t>(m.layers), false);
  for (std::int64_t i = first; i < m.layers; ++i) moe[static_cast<std::size_t>(i)] = (i - first) % every == 0;
  set_moe_layers(moe, m);
  require_moe_layer(f, m);
  m.ffn = f.integer("intermediate_size", 16384);
  if (m.moe_layers() < m.layers && m.ffn <= 0)
    throw Error(fmt::format("{}: the dense layers need a positive intermediate_size", w));
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// Sarvam 30B (SarvamMoEForCausalLM; vLLM's sarvam.py: "Same as BailingMoeForCausalLM, but normalizes
// gate expert_bias pre-load"): Ling 2.0's decoder, read by read_bailing_moe_v2 (GQA through a fused
// query_key_value, per-head q/k norms not counted, first_k_dense_replace dense layers, routed experts
// and num_shared_experts shared ones). Sarvam's active figures count neither table ("2.4B
// non-embedding" for the 30B; the 105B's 10.3B fits the same count, see the test).
void read_sarvam_moe(const JsonFields& f, ModelSpec& m) {
  require_silu(f, "SarvamMoEForCausalLM");
  read_bailing_moe_v2(f, m);
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// Param-2 (Param2MoEForCausalLM; vLLM's param2moe.py at 055e47c28003156421365af985d676fc921cb075,
// Param2MoEAttention / Param2MoEMoEBlock / Param2MoEDecoderLayer):
//   attention  GQA of head_dim (else hidden_size / num_attention_heads) through a fused qkv_proj, biased
//              with use_qkv_bias, and o_proj, biased with use_bias (the MLPs have no biases whatever
//              use_bias says); with use_qk_norm per-head q and k RMSNorms of head_dim (counted:
//              qk_head_norms); vLLM runs no window;
//   MLP        the first first_k_dense_replace layers (default 1) a SwiGLU MLP of intermediate_size, the
//              others a router hidden -> num_experts (its expert bias, num_experts fp32 values, not
//              counted), num_experts SwiGLU experts of moe_intermediate_size, top num_experts_per_tok,
//              and with num_shared_experts > 0 (default 1) one shared MLP of
//              moe_shared_expert_intermediate_size, which is already the total width (vLLM: "Do NOT
//              multiply again"), else moe_intermediate_size x num_shared_experts.
void read_param2_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "Param2MoEForCausalLM");
  m.qkv_bias = f.boolean("use_qkv_bias", false);
  m.attention_o_bias = f.boolean("use_bias", false);
  m.qk_head_norms = f.boolean("use_qk_norm", false);
  m.gated_mlp = true;
  m.local = LocalAttention{};
  read_expert_counts(f, m, "num_experts", "num_experts_per_tok");
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  const std::int64_t shared = f.integer("num_shared_experts", 1);
  if (shared < 0) throw Error(fmt::format("{}: num_shared_experts must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = f.has("moe_shared_expert_intermediate_size")
                                  ? f.at_least("moe_shared_expert_intermediate_size", 1)
                                  : m.moe.expert_ffn * shared;
  }
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
  const std::int64_t dense = f.integer("first_k_dense_replace", 1);
  if (dense < 0 || dense >= m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {})", w, dense,
                            m.layers));
  m.moe.dense_layers = static_cast<int>(dense);
  if (dense > 0 && m.ffn <= 0)
    throw Error(fmt::format("{}: first_k_dense_replace {} dense layers need a positive intermediate_size", w, dense));
}

// A.X K1 (AXK1ForCausalLM; vLLM's AXK1.py at 01063cd07bef167f37f6d25a96b1df7d97fe40eb, AXK1Attention /
// AXK1MoE / AXK1DecoderLayer; transformers' AXK1Config, a DeepseekV3Config subclass): DeepSeek-V3's MLA,
// dense leading layers and MoE (n_routed_experts, n_shared_experts x moe_intermediate_size, a layer MoE
// when i >= first_k_dense_replace and i % moe_layer_freq == 0), read by read_deepseek, plus a
// post_mlp_layernorm on every MoE layer's output (hidden weights a MoE layer, 430,080 in A.X K1:
// 0.0001%, not counted). Active figure: both tables counted: SK Telecom's 33B fits that count and not
// DeepSeek's (see the test).
void read_axk1(const JsonFields& f, ModelSpec& m) {
  require_silu(f, "AXK1ForCausalLM");
  if (!f.has("kv_lora_rank"))
    throw Error(fmt::format("{}: AXK1ForCausalLM without kv_lora_rank: servesim reads A.X K1's MLA attention only",
                            f.where()));
  read_deepseek(f, m);
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

// Architectures of this group servesim refuses, with the piece it lacks (the importer's refusal
// says it), or "". Step-3 (Step3TextForCausalLM, Step3VLForConditionalGeneration), once refused
// here for its low-rank query, has its reader (hf_step3_family.cpp, ModelSpec::query_rank).
std::string rest2026_unsupported(const std::string& arch) {
  (void)arch;
  return "";
}

}  // namespace servesim
