// Readers of the hybrid families, whose layers mix softmax attention with state layers
// (layer_kinds.h): Qwen3-Next / Qwen3.5 (gated delta rule), Kimi Linear / Kimi K3 (Kimi delta
// attention beside MLA), Nemotron-H / Nemotron 3 (Mamba-2), Jamba (Mamba) and Granite 4.0-H (Mamba-2).
#include <fmt/format.h>

#include <set>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {

// The recurrent state's precision: mamba_ssm_cache_dtype / mamba_ssm_dtype ("float32" in
// Nemotron 3 and Qwen3.5 configs), else the model's (vLLM's mamba_ssm_cache_dtype "auto").
DType state_dtype(const JsonFields& f, DType model) {
  for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
    const std::string s = f.string(key, "");
    if (!s.empty() && s != "auto") return parse_dtype(s, f.where() + ": " + key);
  }
  return model == DType::fp32 ? DType::bf16 : model;
}

// Layer i of `layers` is MoE unless listed in mlp_only_layers or (i + 1) % decoder_sparse_step != 0
// (the Qwen MoE rule, shared by Qwen3-Next and Qwen3.5-MoE).
void read_qwen_experts(const JsonFields& f, ModelSpec& m) {
  if (!f.has("num_experts") || f.integer("num_experts") <= 0) return;
  m.moe.num_experts = static_cast<int>(f.integer("num_experts"));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
  m.moe.expert_ffn = f.integer("moe_intermediate_size");
  const std::int64_t step = f.integer("decoder_sparse_step", 1);
  if (step < 1) throw Error(fmt::format("{}: decoder_sparse_step must be >= 1, got {}", f.where(), step));
  std::set<std::int64_t> mlp_only;
  for (const std::int64_t x : f.integers("mlp_only_layers")) mlp_only.insert(x);
  int dense = 0;
  for (int i = 0; i < m.layers; ++i)
    if (mlp_only.count(i) || (i + 1) % step != 0) ++dense;
  m.moe.dense_layers = dense;
  const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
}

}  // namespace

// Gated delta-rule layers from the linear_* fields (hf_families.h).
void read_gated_delta_layers(const JsonFields& f, ModelSpec& m, int linear) {
  if (linear <= 0) return;
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::gated_delta;
  s.layers = linear;
  s.heads = static_cast<int>(f.at_least("linear_num_value_heads", 1));
  s.head_dim = static_cast<int>(f.at_least("linear_value_head_dim", 1));
  s.key_heads = static_cast<int>(f.at_least("linear_num_key_heads", 1));
  s.key_dim = static_cast<int>(f.at_least("linear_key_head_dim", 1));
  s.conv_kernel = static_cast<int>(f.integer("linear_conv_kernel_dim", 4));
  if (s.conv_kernel < 1) throw Error(fmt::format("{}: linear_conv_kernel_dim must be positive", f.where()));
  s.chunk = 64;  // FLA's chunk_gated_delta_rule (vLLM's fla ops)
  s.state_dtype = state_dtype(f, m.native_dtype);
}

// Qwen3-Next and Qwen3.5 (transformers' Qwen3NextConfig, Qwen3_5TextConfig): layer_types, or
// every full_attention_interval-th layer, is full attention with an output gate
// (attn_output_gate; Qwen3-Next always), the others gated delta rule layers; MoE (Qwen3-Next,
// Qwen3.5-MoE) or a dense MLP (Qwen3.5 27B); an MTP module sharing the embedding and head.
void read_qwen_hybrid(const JsonFields& f, ModelSpec& m) {
  int linear = count_layer_types(f, "linear_attention");
  if (linear < 0) {
    const std::int64_t every = f.at_least("full_attention_interval", 1);
    linear = 0;
    for (int i = 0; i < m.layers; ++i)
      if ((i + 1) % every != 0) ++linear;
  }
  read_gated_delta_layers(f, m, linear);
  const std::string type = f.string("model_type", "");
  m.attention_output_gate = type == "qwen3_next" || f.boolean("attn_output_gate", false);
  read_qwen_experts(f, m);
  m.mtp_layers = static_cast<int>(f.integer("mtp_num_hidden_layers", 0));
  m.mtp_own_tables = f.boolean("mtp_use_dedicated_embeddings", false);
}

// Kimi Linear (KimiLinearConfig: moonshotai/Kimi-Linear-48B-A3B) and Kimi K3's text model, read
// as vLLM builds them (vllm/model_executor/models/kimi_linear.py; Kimi K3's KimiDecoderLayer,
// KimiMoE and KimiMLAAttention in vllm-project/vllm's vllm/models/kimi_k3/):
//   - linear_attn_config lists the 1-based layer numbers of the KDA layers (kda_layers) and of
//     the full-attention ones (full_attn_layers), with KDA's num_heads, head_dim,
//     short_conv_kernel_size and use_full_rank_gate (layer_kinds.cpp); without it every layer
//     is MLA;
//   - the full-attention layers are MLA (q_lora_rank, null in Kimi Linear: q_proj from hidden)
//     without rotary embedding (mla_use_nope: the cache still holds kv_lora_rank +
//     qk_rope_head_dim per token, kv_a_proj_with_mqa's output), with mla_use_output_gate a
//     g_proj (ModelSpec::attention_output_gate);
//   - MoE as DeepSeek's (num_experts, num_experts_per_token, num_shared_experts of
//     moe_intermediate_size each, first_k_dense_replace dense layers of intermediate_size,
//     moe_layer_freq), the routed experts run at routed_expert_hidden_size when given (a
//     latent MoE: routed_expert_down_proj hidden -> latent, routed_expert_up_proj back, with
//     latent_moe_use_norm an RMSNorm between);
//   - hidden_act silu or situ (Kimi K3: vLLM's SituAndMul, beta tanh(g / beta) sigmoid(g) x up):
//     both gated;
//   - attn_res_block_size: attention residuals (ModelSpec::attn_res_block_size).
void read_kimi_linear(const JsonFields& f, ModelSpec& m) {
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu" && act != "situ")
    throw Error(fmt::format("{}: hidden_act '{}' is not one servesim reads for Kimi Linear (silu, situ: both gated)",
                            f.where(), act));
  m.gated_mlp = true;
  int kda = 0;
  if (f.has("linear_attn_config")) {
    const nlohmann::json& c = f.doc()["linear_attn_config"];
    if (!c.is_object())
      throw Error(fmt::format("{}: linear_attn_config must be an object (null: no KDA layers)", f.where()));
    const JsonFields lf(c, f.where() + " linear_attn_config");
    // Every layer listed once, as KDA or full attention.
    std::set<std::int64_t> seen;
    for (const char* key : {"kda_layers", "full_attn_layers"}) {
      for (const std::int64_t x : lf.integers(key)) {
        if (x < 1 || x > m.layers || !seen.insert(x).second)
          throw Error(fmt::format("{}: {} lists layer {}: layers are numbered 1..{} (num_hidden_layers), each listed "
                                  "once in kda_layers or full_attn_layers",
                                  lf.where(), key, x, m.layers));
      }
    }
    if (static_cast<int>(seen.size()) != m.layers)
      throw Error(fmt::format("{}: kda_layers and full_attn_layers list {} layers, num_hidden_layers is {}: which "
                              "mixer the others have is unknown",
                              lf.where(), seen.size(), m.layers));
    kda = static_cast<int>(lf.integers("kda_layers").size());
    if (kda > 0) {
      StateLayers& s = m.state;
      s.kind = StateLayers::Kind::kda;
      s.layers = kda;
      s.heads = static_cast<int>(lf.at_least("num_heads", 1));
      s.head_dim = static_cast<int>(lf.at_least("head_dim", 1));
      s.key_heads = s.heads;  // q and k as wide as v (KimiDeltaAttention's projection_size)
      s.key_dim = s.head_dim;
      s.conv_kernel = static_cast<int>(lf.at_least("short_conv_kernel_size", 1));
      s.full_rank_gate = lf.boolean("use_full_rank_gate", false);
      s.chunk = 64;  // FLA's chunk_kda
      // vLLM's MambaStateDtypeCalculator.kda_state_dtype: the recurrent state fp32 whatever
      // the model's dtype (mamba_cache_dtype sets only the conv windows').
      s.state_dtype = DType::fp32;
    }
  }
  // MLA on the other layers.
  m.mla.kv_lora_rank = static_cast<int>(f.at_least("kv_lora_rank", 1));
  m.mla.q_lora_rank = static_cast<int>(f.integer("q_lora_rank", 0));
  m.mla.qk_nope_head_dim = static_cast<int>(f.at_least("qk_nope_head_dim", 1));
  m.mla.qk_rope_head_dim = static_cast<int>(f.integer("qk_rope_head_dim"));
  m.mla.v_head_dim = static_cast<int>(f.at_least("v_head_dim", 1));
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  m.attention_output_gate = f.boolean("mla_use_output_gate", false);
  // Experts (KimiDecoderLayer: MoE when layer_idx >= first_k_dense_replace and layer_idx %
  // moe_layer_freq == 0).
  m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_token", 1));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("num_shared_experts", 0));
  m.moe.shared_expert_ffn = m.moe.expert_ffn;  // KimiMLP of moe_intermediate_size x num_shared_experts
  m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers > m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within 0..{}", f.where(), m.moe.dense_layers,
                            m.layers));
  const std::int64_t freq = f.at_least("moe_layer_freq", 1);
  if (freq > 1) {
    int moe = 0;
    for (int i = m.moe.dense_layers; i < m.layers; ++i)
      if (i % freq == 0) ++moe;
    m.moe.listed_layers = moe;
  }
  m.moe.latent = f.integer("routed_expert_hidden_size", 0);
  m.moe.latent_norm = m.moe.latent > 0 && f.boolean("latent_moe_use_norm", false);
  m.attn_res_block_size = static_cast<int>(f.integer("attn_res_block_size", 0));
  if (m.attn_res_block_size < 0)
    throw Error(fmt::format("{}: attn_res_block_size must be positive (null: plain residuals), got {}", f.where(),
                            m.attn_res_block_size));
  // A draft module's shapes are not in the config: refused rather than left out silently.
  if (f.integer("num_nextn_predict_layers", 0) != 0)
    throw Error(fmt::format("{}: num_nextn_predict_layers {}: Kimi Linear's MTP module is not described by its "
                            "config, servesim cannot count it",
                            f.where(), f.integer("num_nextn_predict_layers", 0)));
  // Moonshot's figures (Kimi K2's 32B, as read_deepseek): the LM head counted, the embedding not.
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// Nemotron-H and Nemotron 3 (NemotronHConfig): each block is one mixer, named per block by
// hybrid_override_pattern (M Mamba-2, * attention, - MLP, E MoE) or layers_block_type
// ("mamba", "attention", "mlp", "moe"). MLPs and experts are relu2 (not gated); experts may
// run in a latent width (moe_latent_size) with a shared expert beside them.
void read_nemotron_h(const JsonFields& f, ModelSpec& m) {
  std::string pattern;
  if (f.has("hybrid_override_pattern")) {
    pattern = f.string("hybrid_override_pattern", "");
  } else {
    for (const std::string& t : f.strings("layers_block_type")) {
      if (t == "mamba") pattern += 'M';
      else if (t == "attention") pattern += '*';
      else if (t == "mlp") pattern += '-';
      else if (t == "moe") pattern += 'E';
      else
        throw Error(fmt::format("{}: layers_block_type '{}' is not a known Nemotron-H block (mamba, attention, mlp, "
                                "moe)",
                                f.where(), t));
    }
  }
  if (pattern.empty())
    throw Error(fmt::format("{}: Nemotron-H without hybrid_override_pattern or layers_block_type: which blocks are "
                            "Mamba-2, attention and MLP is unknown",
                            f.where()));
  if (static_cast<int>(pattern.size()) != m.layers)
    throw Error(fmt::format("{}: hybrid_override_pattern has {} blocks but num_hidden_layers is {}", f.where(),
                            pattern.size(), m.layers));
  int mamba = 0, attention = 0, mlp = 0, moe = 0;
  for (const char c : pattern) {
    switch (c) {
      case 'M': ++mamba; break;
      case '*': ++attention; break;
      case '-': ++mlp; break;
      case 'E': ++moe; break;
      default:
        throw Error(fmt::format("{}: hybrid_override_pattern block '{}' is not M (Mamba-2), * (attention), - (MLP) "
                                "or E (MoE)",
                                f.where(), c));
    }
  }
  m.attention_layer_count = attention;
  m.mlp_layer_count = mlp + moe;
  m.gated_mlp = f.string("mlp_hidden_act", "relu2") != "relu2";
  if (mamba > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::mamba2;
    s.layers = mamba;
    s.heads = static_cast<int>(f.at_least("mamba_num_heads", 1));
    s.head_dim = static_cast<int>(f.at_least("mamba_head_dim", 1));
    s.key_heads = static_cast<int>(f.at_least("n_groups", 1));
    s.key_dim = static_cast<int>(f.at_least("ssm_state_size", 1));
    s.conv_kernel = static_cast<int>(f.integer("conv_kernel", 4));
    s.conv_bias = f.boolean("use_conv_bias", true);
    s.chunk = static_cast<int>(f.integer("chunk_size", 128));
    s.state_dtype = state_dtype(f, m.native_dtype);
  }
  if (moe > 0) {
    m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
    m.moe.shared_expert_ffn = f.integer("moe_shared_expert_intermediate_size", m.moe.expert_ffn);
    m.moe.latent = f.integer("moe_latent_size", 0);
    m.moe.groups = static_cast<int>(f.integer("n_group", 0));
    m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
    m.moe.listed_layers = moe;
  }
  // NVIDIA's Nemotron 3 Nano card: "31.6B total, 3.2B active (3.6B including embeddings)":
  // the LM head counted, the embedding not.
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// Jamba (transformers' JambaConfig): attention on layers i with i % attn_layer_period ==
// attn_layer_offset, Mamba on the others; MoE (num_experts of intermediate_size, top
// num_experts_per_tok) on i % expert_layer_period == expert_layer_offset, dense MLP elsewhere.
void read_jamba(const JsonFields& f, ModelSpec& m) {
  const std::int64_t attn_period = f.at_least("attn_layer_period", 1), attn_offset = f.integer("attn_layer_offset", 0);
  const std::int64_t moe_period = f.at_least("expert_layer_period", 1), moe_offset = f.integer("expert_layer_offset", 0);
  int attention = 0, moe = 0;
  for (int i = 0; i < m.layers; ++i) {
    if (i % attn_period == attn_offset) ++attention;
    if (i % moe_period == moe_offset) ++moe;
  }
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba1;
  s.layers = m.layers - attention;
  s.heads = 1;
  s.head_dim = static_cast<int>(f.integer("mamba_expand", 2) * m.hidden);
  s.key_dim = static_cast<int>(f.at_least("mamba_d_state", 1));
  s.conv_kernel = static_cast<int>(f.integer("mamba_d_conv", 4));
  s.conv_bias = f.boolean("mamba_conv_bias", true);
  // mamba_dt_rank "auto" (the default) is ceil(hidden / 16).
  const bool dt_given = f.has("mamba_dt_rank") && f.doc()["mamba_dt_rank"].is_number_integer();
  s.dt_rank = static_cast<int>(dt_given ? f.at_least("mamba_dt_rank", 1) : (m.hidden + 15) / 16);
  s.chunk = 1;  // a sequential selective scan
  s.state_dtype = state_dtype(f, m.native_dtype);
  const std::int64_t experts = f.integer("num_experts", 1);
  if (experts > 1 && moe > 0) {
    m.moe.num_experts = static_cast<int>(experts);
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = m.ffn;
    m.moe.listed_layers = moe;
  }
}

// Granite 4.0-H (transformers' GraniteMoeHybridConfig): layer_types "mamba" (Mamba-2) or
// "attention"; each layer's MLP is a shared MLP of shared_intermediate_size plus, with
// num_local_experts, routed experts of intermediate_size (Granite 4.0-H-Micro has none).
void read_granite_hybrid(const JsonFields& f, ModelSpec& m) {
  const int mamba = count_layer_types(f, "mamba");
  if (mamba < 0)
    throw Error(fmt::format("{}: GraniteMoeHybrid without layer_types: which layers are Mamba-2 is unknown",
                            f.where()));
  if (mamba > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::mamba2;
    s.layers = mamba;
    s.heads = static_cast<int>(f.at_least("mamba_n_heads", 1));
    s.head_dim = static_cast<int>(f.integer("mamba_d_head", f.integer("mamba_expand", 2) * m.hidden / s.heads));
    s.key_heads = static_cast<int>(f.integer("mamba_n_groups", 1));
    s.key_dim = static_cast<int>(f.at_least("mamba_d_state", 1));
    s.conv_kernel = static_cast<int>(f.integer("mamba_d_conv", 4));
    s.conv_bias = f.boolean("mamba_conv_bias", true);
    s.chunk = static_cast<int>(f.integer("mamba_chunk_size", 256));
    s.state_dtype = state_dtype(f, m.native_dtype);
  }
  const std::int64_t shared = f.integer("shared_intermediate_size", 0);
  if (f.integer("num_local_experts", 0) > 0) {
    m.moe.num_experts = static_cast<int>(f.integer("num_local_experts"));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = m.ffn;
    if (shared > 0) {
      m.moe.shared_experts = 1;
      m.moe.shared_expert_ffn = shared;
    }
  } else if (shared > 0) {
    m.ffn = shared;  // the shared MLP is the only MLP
  }
}

}  // namespace servesim
