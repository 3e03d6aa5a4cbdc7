// Readers of hybrid families beyond hf_hybrid_families.cpp's: MiniMax-Text-01 / MiniMax-M1 and
// Ling / Ring 2.5 (lightning attention, StateLayers::Kind::lightning, beside softmax attention or
// MLA), OLMo Hybrid (Gated DeltaNet beside OLMo 2 attention) and NVIDIA's Nemotron-H Puzzle
// models (Nemotron-H blocks whose MoE blocks each have their own expert width and top-k); and
// the reasons servesim refuses the rest of that group (hyb_known_unsupported).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "model/hf_families.h"
#include "util/error.h"
#include "util/text.h"
#include "util/warnings.h"

namespace servesim {
namespace {

using nlohmann::json;

// Which layers are lightning (linear) attention: attn_type_list (MiniMax's remote code and the
// published configs: 0 lightning, 1 softmax), its older name decoder_attention_types, or
// transformers' native MiniMaxConfig layer_types ("linear_attention" / "full_attention").
int minimax_linear_layers(const JsonFields& f, int layers) {
  for (const char* key : {"attn_type_list", "decoder_attention_types"}) {
    if (!f.has(key)) continue;
    const json& list = f.doc()[key];
    if (!list.is_array() || static_cast<int>(list.size()) != layers)
      throw Error(fmt::format("{}: {} must list 0 (lightning attention) or 1 (softmax attention) for each of the {} "
                              "layers (num_hidden_layers)",
                              f.where(), key, layers));
    int linear = 0;
    for (const json& x : list) {
      if (!x.is_number_integer() || (x.get<std::int64_t>() != 0 && x.get<std::int64_t>() != 1))
        throw Error(fmt::format("{}: {} entries must be 0 (lightning) or 1 (softmax), got {}", f.where(), key,
                                excerpt(x.dump())));
      if (x.get<std::int64_t>() == 0) ++linear;
    }
    return linear;
  }
  if (f.has("layer_types")) {
    const std::vector<std::string> types = f.strings("layer_types");
    if (static_cast<int>(types.size()) != layers)
      throw Error(fmt::format("{}: layer_types lists {} layers, num_hidden_layers is {}", f.where(), types.size(),
                              layers));
    int linear = 0;
    for (const std::string& t : types) {
      if (t == "linear_attention") ++linear;
      else if (t != "full_attention")
        throw Error(fmt::format("{}: layer_types entry '{}' is not linear_attention or full_attention", f.where(), t));
    }
    return linear;
  }
  throw Error(fmt::format("{}: MiniMax without attn_type_list (or layer_types): which layers are lightning attention "
                          "and which softmax attention is unknown",
                          f.where()));
}

// An integer field that may be one integer or a per-layer list (MiniMax's num_local_experts and
// shared_intermediate_size, vLLM's MiniMaxText01Model.layer_fn and MiniMaxText01DecoderLayer):
// the one value, or refused when the layers differ (servesim's MoE has one shape for every MoE
// layer). vLLM reads shared_intermediate_size[layer] as 0 past the list's end (short_means_zero);
// num_local_experts[layer] must exist for every layer.
std::int64_t uniform_integer(const JsonFields& f, const char* key, std::int64_t fallback, int layers,
                             bool short_means_zero) {
  if (!f.has(key)) return fallback;
  const json& v = f.doc()[key];
  if (!v.is_array()) return f.integer(key);
  if (v.empty() || (static_cast<int>(v.size()) < layers && !short_means_zero) || static_cast<int>(v.size()) > layers)
    throw Error(fmt::format("{}: {} lists {} values for {} layers", f.where(), key, v.size(), layers));
  std::vector<std::int64_t> values;
  for (const json& x : v) {
    if (!x.is_number_integer())
      throw Error(fmt::format("{}: {} must list integers, got {}", f.where(), key, excerpt(x.dump())));
    values.push_back(x.get<std::int64_t>());
  }
  if (static_cast<int>(values.size()) < layers) values.push_back(0);  // the layers past the list
  for (const std::int64_t x : values)
    if (x != values.front())
      throw Error(fmt::format("{}: {} differs between layers ({} and {}): servesim gives every MoE layer one shape",
                              f.where(), key, values.front(), x));
  return values.front();
}

}  // namespace

// MiniMax-Text-01 and MiniMax-M1 (MiniMaxText01ForCausalLM, MiniMaxM1ForCausalLM; transformers'
// native MiniMaxForCausalLM), read as vLLM builds them (vllm-project/vllm@01c91c00e45c5e551af83d713809504ef4aaff19:
// vllm/model_executor/models/minimax_text_01.py, MiniMaxText01DecoderLayer):
//   - attention_type 0 layers are lightning attention (MiniMaxText01LinearAttention:
//     StateLayers::Kind::lightning, layer_kinds.cpp): num_attention_heads heads of head_dim, a
//     head_dim x head_dim state per head, prefill in blocks of block_size (vLLM's default 256);
//   - attention_type 1 layers are softmax GQA attention (MiniMaxText01Attention: q/k/v/o
//     without biases; RoPE on rotary_dim of head_dim changes no weight);
//   - every layer's MLP is num_local_experts SwiGLU experts of intermediate_size, top
//     num_experts_per_tok, router hidden -> experts (no bias); one expert is a dense MLP;
//     shared_intermediate_size > 0 adds a shared SwiGLU MLP (its hidden -> 1 mixing
//     coefficient, hidden weights a layer, is not counted);
//   - postnorm and the layernorm_*_alpha / _beta residual scales are scalars, not weights.
// MiniMax's figures (the model card's 456B total, 45.9B activated) leave out both tables, as
// its M2's: ActiveCount::no_tables.
void read_minimax_text01(const JsonFields& f, ModelSpec& m) {
  const int linear = minimax_linear_layers(f, m.layers);
  if (linear > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::lightning;
    s.layers = linear;
    s.heads = m.heads;
    s.head_dim = m.head_dim;
    s.key_heads = m.heads;
    s.key_dim = m.head_dim;
    s.conv_kernel = 1;  // no convolution (conv_channels() is 0: no conv weights or window)
    s.chunk = static_cast<int>(f.integer("block_size", f.integer("block", 256)));
    if (s.chunk < 1) throw Error(fmt::format("{}: block_size must be positive, got {}", f.where(), s.chunk));
    // vLLM's MambaStateDtypeCalculator.linear_attention_state_dtype: mamba_cache_dtype "auto",
    // the model's dtype (fp32 refused there).
    s.state_dtype = m.native_dtype == DType::fp32 ? DType::bf16 : m.native_dtype;
  }
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: MiniMax's attention has no biases in vLLM's model; servesim "
                            "will not guess where they are",
                            f.where()));
  m.gated_mlp = true;  // SiluAndMul experts whatever hidden_act says
  const std::int64_t experts = uniform_integer(f, "num_local_experts", 1, m.layers, false);
  if (experts > 1) {
    m.moe.num_experts = static_cast<int>(experts);
    m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
    m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  }
  const std::int64_t shared = uniform_integer(f, "shared_intermediate_size", 0, m.layers, true);
  if (shared > 0) {
    if (!m.moe.enabled())
      throw Error(fmt::format("{}: shared_intermediate_size {} without routed experts: vLLM adds the shared MLP only "
                              "beside num_local_experts > 1",
                              f.where(), shared));
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// Ling 2.5 / Ring 2.5 (BailingMoeV2_5ForCausalLM, model_type bailing_hybrid: inclusionAI's
// Ling-2.5-1T and Ring-2.5-1T, "1:7 MLA + Lightning Linear Attention"), read as vLLM builds them
// (vllm-project/vllm@055e47c28003156421365af985d676fc921cb075: vllm/model_executor/models/
// bailing_moe_linear.py and layers/mamba/linear/bailing_linear_attn.py, base.py):
//   - layer i is lightning attention unless (i + 1) % layer_group_size == 0 (is_linear_layer);
//     BailingMoELinearAttention: query_key_value hidden -> 3 x heads x head_dim (MHA: as many
//     K/V heads as query heads), g_proj hidden -> heads x head_dim, dense back to hidden, a gated
//     group RMSNorm (g_norm) over heads x head_dim: StateLayers::Kind::lightning (layer_kinds.cpp),
//     a head_dim x head_dim state per head (linear_attention_state_shape), blocks of `block`
//     (LinearAttention.BLOCK, default 256); its per-head q/k norms (use_qk_norm: 2 x head_dim a
//     layer) are not counted, as read_bailing_moe_v2 leaves Ling 2.0's uncounted;
//   - the other layers are MLA (BailingMoeV25MLAAttention: q_lora_rank or q_proj, kv_lora_rank,
//     qk_nope_head_dim, qk_rope_head_dim, v_head_dim, as DeepSeek-V2's);
//   - the MLP and experts as Ling 2.0's (read_bailing_moe_v2: first_k_dense_replace dense
//     layers, shared experts, grouped routing; MTP layers not counted).
// Biases on the lightning projections (use_qkv_bias, use_bias) are refused.
void read_bailing_moe_v2_5(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("use_qkv_bias", false))
    throw Error(fmt::format("{}: use_qkv_bias true: biases on Ling 2.5's lightning query_key_value are not described "
                            "by servesim's lightning layer",
                            f.where()));
  // Ling 3's configs (BailingMoeV3: Kimi delta attention with short convolutions) share the
  // model_type bailing_hybrid; one that names this architecture is not read as lightning layers.
  for (const char* key : {"short_conv_kernel_size", "no_kda_lora", "kda_lower_bound"})
    if (f.has(key))
      throw Error(fmt::format("{}: {} is a Ling 3 (Kimi delta attention) field, not Ling 2.5's lightning attention: "
                              "servesim will not read this config as BailingMoeV2_5ForCausalLM",
                              f.where(), key));
  read_bailing_moe_v2(f, m);  // the MoE (and the refusal of use_bias)
  m.qkv_bias = false;
  const std::int64_t group = f.integer("layer_group_size", 1);
  if (group < 1) throw Error(fmt::format("{}: layer_group_size must be at least 1, got {}", f.where(), group));
  int linear = 0;
  for (int i = 0; i < m.layers; ++i)
    if ((i + 1) % group != 0) ++linear;
  if (linear > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::lightning;
    s.layers = linear;
    s.heads = m.heads;
    s.head_dim = m.head_dim;  // config head_dim, else hidden / heads (LinearAttention.head_dim)
    s.key_heads = m.heads;
    s.key_dim = m.head_dim;
    s.conv_kernel = 1;
    s.chunk = static_cast<int>(f.integer("block", 256));
    if (s.chunk < 1) throw Error(fmt::format("{}: block must be positive, got {}", f.where(), s.chunk));
    s.state_dtype = m.native_dtype == DType::fp32 ? DType::bf16 : m.native_dtype;
  }
  read_mla(f, m);
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
}

// OLMo Hybrid (OlmoHybridForCausalLM, model_type olmo_hybrid), read as vLLM builds it
// (vllm-project/vllm@055e47c28003156421365af985d676fc921cb075: vllm/model_executor/models/olmo_hybrid.py;
// vllm-project/vllm@0290a15b5afc1726f1cc2d36f2179a753d5c92ec:
// vllm/model_executor/layers/mamba/gdn/olmo_gdn_linear_attn.py):
//   - layer_types "linear_attention" layers are Gated DeltaNet (OlmoHybridGatedDeltaNetAttention):
//     q, k (linear_num_key_heads x linear_key_head_dim), v and the output gate
//     (linear_num_value_heads x linear_value_head_dim) in one in_proj_qkvg, b_proj and a_proj
//     hidden -> value heads, a depthwise conv over q, k, v of linear_conv_kernel_dim taps without
//     bias, dt_bias and A_log per value head, a gated RMSNorm of the value head width, o_proj:
//     StateLayers::Kind::gated_delta exactly (layer_kinds.cpp), its state dtype vLLM's
//     gated_delta_net_state_dtype (mamba_ssm_cache_dtype, else the model's);
//   - "full_attention" layers are OLMo 2's attention (q/k/v/o without biases, head_dim = hidden /
//     heads, q_norm and k_norm over the whole widths, not counted as read_olmo2 says);
//   - every layer a SwiGLU MLP of intermediate_size; two hidden-wide RMSNorms a layer (pre-norms
//     before the linear mixer and the MLP, post-norms after attention and the MLP) and the final one.
void read_olmo_hybrid(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (!f.has("layer_types"))
    throw Error(fmt::format("{}: OlmoHybridForCausalLM without layer_types: which layers are Gated DeltaNet and which "
                            "attention is unknown",
                            w));
  int linear = 0;
  const std::vector<std::string> types = f.strings("layer_types");
  if (static_cast<int>(types.size()) != m.layers)
    throw Error(fmt::format("{}: layer_types lists {} layers, num_hidden_layers is {}", w, types.size(), m.layers));
  for (const std::string& t : types) {
    if (t == "linear_attention") ++linear;
    else if (t != "full_attention")
      throw Error(fmt::format("{}: layer_types entry '{}' is not linear_attention or full_attention", w, t));
  }
  if (!f.boolean("linear_use_gate", true))
    throw Error(fmt::format("{}: linear_use_gate false: vLLM's OLMo Hybrid Gated DeltaNet requires the output gate", w));
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: vLLM's OlmoHybridAttention has no biases", w));
  // vLLM's attention takes head_dim = hidden / heads whatever head_dim says.
  if (m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {}", w, m.hidden, m.heads));
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};  // no window in vLLM's OlmoHybridAttention
  read_gated_delta_layers(f, m, linear);  // hf_hybrid_families.cpp: Qwen3-Next's fields, the same names
}

// Nemotron-H Puzzle (NemotronHPuzzleForCausalLM, model_type nemotron_h_puzzle: NVIDIA's
// NVIDIA-Nemotron-Labs-3-Puzzle-75B-A9B, pruned from Nemotron 3 Super). vLLM serves it as
// Nemotron-H (registry: NemotronHPuzzleForCausalLM -> nemotron_h NemotronHForCausalLM); what the
// config adds is block_configs, one entry per block with its block_type (mamba, attention, moe,
// mlp) and, for a MoE block, its own moe_intermediate_size and num_experts_per_tok (the top-level
// ones are deleted: NemotronHPuzzleConfig._delete_blockwise_members_from_global_config, as
// Megatron-Bridge's NemotronHPuzzleBridge says). vLLM applies a block's entries only to its MLP
// and MoE layers (get_nemotron_h_config_for_layer in NemotronHMLPDecoderLayer and
// NemotronHMoEDecoderLayer; vllm-project/vllm@00b08dc44519a82cbdd9061d92d1226985094622:
// vllm/model_executor/models/nemotron_h.py): the Mamba-2 and attention blocks keep the global
// shapes, and a block entry that would change one is refused below.
//
// servesim's MoE has one expert width and top-k for every MoE layer. When the blocks differ,
// the MoE is read as the uniform MoE that holds the same routed expert weights and reads the
// same expert weights per token: with T = sum over MoE blocks of experts x width and A = sum of
// top-k x width over L blocks, top-k k' = round(A / sum of widths), width f' = round(A / (L k'))
// and experts E' = round(T / (L f')); total and active counts then match the blockwise sums to
// the rounding, but the expert count shown is E', not the checkpoint's. Said in a warning.
void read_nemotron_h_puzzle(const JsonFields& f, ModelSpec& m) {
  const json& doc = f.doc();
  if (!doc.contains("block_configs") || !doc["block_configs"].is_array())
    throw Error(fmt::format("{}: NemotronHPuzzleForCausalLM needs its list 'block_configs' (one entry per block)",
                            f.where()));
  const json& blocks = doc["block_configs"];
  if (static_cast<int>(blocks.size()) != m.layers)
    throw Error(fmt::format("{}: block_configs has {} entries for {} layers", f.where(), blocks.size(), m.layers));
  json text = doc;  // the global fields, with the pattern and the MoE shape read from the blocks
  json types = json::array();
  // Fields a block may not change: they shape the Mamba-2, attention and shared parts, which vLLM
  // builds from the global config.
  static const char* const kGlobalOnly[] = {"hidden_size",           "num_attention_heads", "num_key_value_heads",
                                            "head_dim",              "mamba_num_heads",     "mamba_head_dim",
                                            "ssm_state_size",        "n_groups",            "conv_kernel",
                                            "moe_latent_size",       "n_shared_experts",
                                            "moe_shared_expert_intermediate_size"};
  const std::int64_t global_experts = f.integer("n_routed_experts", 0);
  std::int64_t mlp_width = -1;
  double weights = 0, reads = 0, widths = 0;  // sums of experts x width, top-k x width, width
  int moe = 0;
  std::map<std::int64_t, int> width_count, topk_count, experts_count;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    const std::string where = fmt::format("{}: block_configs[{}]", f.where(), i);
    if (!b.is_object() || !b.contains("block_type") || !b["block_type"].is_string())
      throw Error(fmt::format("{} must be an object with a block_type (mamba, attention, moe, mlp)", where));
    const JsonFields bf(b, where);
    const std::string type = b["block_type"].get<std::string>();
    for (const char* key : kGlobalOnly)
      if (bf.has(key) && (!f.has(key) || b[key] != doc[key]))
        throw Error(fmt::format("{}: {} {} differs from the config's {}: vLLM builds Nemotron-H's Mamba-2, attention "
                                "and shared-expert shapes from the global config, and servesim has one per model",
                                where, key, excerpt(b[key].dump()), f.has(key) ? excerpt(doc[key].dump()) : "(none)"));
    types.push_back(type);
    if (type == "moe") {
      const std::int64_t width = bf.has("moe_intermediate_size") ? bf.at_least("moe_intermediate_size", 1)
                                                                 : f.at_least("moe_intermediate_size", 1);
      const std::int64_t topk = bf.has("num_experts_per_tok") ? bf.at_least("num_experts_per_tok", 1)
                                                              : f.at_least("num_experts_per_tok", 1);
      const std::int64_t experts = bf.has("n_routed_experts") ? bf.at_least("n_routed_experts", 1) : global_experts;
      if (experts < 1) throw Error(fmt::format("{}: a MoE block without n_routed_experts", where));
      if (topk > experts)
        throw Error(fmt::format("{}: num_experts_per_tok {} exceeds its {} experts", where, topk, experts));
      weights += static_cast<double>(experts) * width;
      reads += static_cast<double>(topk) * width;
      widths += static_cast<double>(width);
      ++width_count[width];
      ++topk_count[topk];
      ++experts_count[experts];
      ++moe;
    } else if (type == "mlp") {
      const std::int64_t width = bf.has("intermediate_size") ? bf.at_least("intermediate_size", 1)
                                                             : f.at_least("intermediate_size", 1);
      if (mlp_width >= 0 && width != mlp_width)
        throw Error(fmt::format("{}: intermediate_size {} differs from an earlier MLP block's {}: servesim gives "
                                "Nemotron-H's dense MLP blocks one width",
                                where, width, mlp_width));
      mlp_width = width;
    } else if (type != "mamba" && type != "attention") {
      throw Error(fmt::format("{}: block_type '{}' is not a Nemotron-H block (mamba, attention, moe, mlp)", where, type));
    }
  }
  text.erase("hybrid_override_pattern");  // block_configs decides
  text["layers_block_type"] = types;
  if (mlp_width > 0) text["intermediate_size"] = mlp_width;
  if (moe > 0) {
    const bool uniform = width_count.size() == 1 && topk_count.size() == 1 && experts_count.size() == 1;
    std::int64_t topk = 0, width = 0, experts = 0;
    if (uniform) {
      width = width_count.begin()->first;
      topk = topk_count.begin()->first;
      experts = experts_count.begin()->first;
    } else {
      topk = std::max<std::int64_t>(1, std::llround(reads / widths));
      width = std::max<std::int64_t>(1, std::llround(reads / (moe * static_cast<double>(topk))));
      experts = std::max<std::int64_t>(topk, std::llround(weights / (moe * static_cast<double>(width))));
      warn(fmt::format("{}: the {} MoE blocks differ (expert widths {} to {}, top-k {} to {}, {} to {} experts): read "
                       "as a uniform MoE of {} experts of width {}, top {}, which holds the same routed expert weights "
                       "and reads the same per token as the blocks together; the expert count shown is not the "
                       "checkpoint's",
                       f.where(), moe, width_count.begin()->first, width_count.rbegin()->first,
                       topk_count.begin()->first, topk_count.rbegin()->first, experts_count.begin()->first,
                       experts_count.rbegin()->first, experts, width, topk));
    }
    text["moe_intermediate_size"] = width;
    text["num_experts_per_tok"] = topk;
    text["n_routed_experts"] = experts;
  }
  read_nemotron_h(JsonFields(text, f.where()), m);
}

// Architectures of this group that vLLM serves and servesim refuses, with the piece it lacks
// (hf_import.cpp's known_unsupported puts the reason in the refusal). None left: Zamba2
// (hf_zamba2_family.cpp) and PLaMo 2 (hf_plamo2_family.cpp) are read.
std::string hyb_known_unsupported(const std::string& /*arch*/) { return ""; }

}  // namespace servesim
