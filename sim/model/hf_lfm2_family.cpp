// Liquid AI's LFM2 family read from config.json: LFM2 / LFM2.5 (Lfm2ForCausalLM), LFM2-MoE
// (Lfm2MoeForCausalLM: LFM2-8B-A1B) and LFM2-VL's text model (Lfm2VlForConditionalGeneration,
// whose text_config is a model_type "lfm2").
//
// Shapes as transformers builds them (huggingface/transformers@1505215df303467822c2ef407e277381f9d290f1:
// src/transformers/models/lfm2/modular_lfm2.py; @e9702f25318ec25b876b034b6cdb716d786de467:
// src/transformers/models/lfm2_moe/modular_lfm2_moe.py) and vLLM serves them
// (vllm-project/vllm@6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c: vllm/model_executor/models/lfm2.py):
//   every layer is an operator (attention or a gated short convolution) then a SwiGLU MLP
//   (w1, w3: hidden -> width, w2 back; no biases), each after an RMSNorm (operator_norm,
//   ffn_norm), and a final RMSNorm (embedding_norm);
//   attention layers (Lfm2Attention): q_proj, k_proj, v_proj, out_proj without biases, head_dim =
//   hidden / heads, and a per-head q_layernorm and k_layernorm of head_dim (2 x head_dim weights
//   a layer, counted: ModelSpec::qk_head_norms; with them LFM2-350M's count is its model card's
//   354,483,968 to the weight, see the test);
//   the other layers (Lfm2ShortConv): StateLayers::Kind::short_conv (layer_kinds.cpp): in_proj
//   hidden -> 3 hidden, a depthwise causal conv of conv_L_cache taps, out_proj, all three with a
//   bias when conv_bias; per sequence the conv's last conv_L_cache - 1 inputs per channel (vLLM's
//   MambaStateShapeCalculator.short_conv_state_shape; transformers' Lfm2HybridConvCache keeps
//   conv_L_cache, one column it never reads back for the output).
// Which layers are attention: layer_types ("full_attention" / "conv"), else full_attn_idxs, else
// all of them (Lfm2Config.__init__). The dense MLP's width (Lfm2MLP.__init__): ff =
// block_ff_dim if given, else intermediate_size (Lfm2Config reads block_ff_dim over
// intermediate_size); with block_auto_adjust_ff_dim, ff = int(2 ff / 3), then with a
// block_ffn_dim_multiplier ff = int(multiplier x ff) rounded up to a multiple of
// block_multiple_of. (vLLM's Lfm2MLP rounds up even without a multiplier; the two agree whenever a
// multiplier is given or no adjustment asked, as in every LFM2 config quoted in
// tests/fixtures/hf_configs_from_fields/PROVENANCE.md.)
// LFM2-MoE (Lfm2MoeDecoderLayer): layers below num_dense_layers have an MLP of intermediate_size
// as written (Lfm2MoeMLP: no adjustment), the others a router hidden -> num_experts (no bias;
// its expert_bias buffer, num_experts floats a layer with use_expert_bias, not counted: 704 in
// LFM2-8B-A1B) and num_experts SwiGLU experts of moe_intermediate_size, top num_experts_per_tok
// by sigmoid score; no shared expert.
// The embedding is tied to the LM head unless tie_embedding / tie_word_embeddings say otherwise
// (both configurations default to tied; tie_embedding is the original key they read first).
#include <fmt/format.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "model/hf_families.h"

namespace servesim {
namespace {

constexpr const char* kAttention = "full_attention";
constexpr const char* kConv = "conv";

// How many of the layers are attention, from layer_types, full_attn_idxs or neither (all).
int attention_layer_count(const JsonFields& f, int layers, bool moe) {
  const std::string w = f.where();
  if (f.has("layer_types")) {
    const std::vector<std::string> types = f.strings("layer_types");
    if (static_cast<int>(types.size()) != layers)
      throw Error(fmt::format("{}: layer_types lists {} layers but num_hidden_layers is {}: each layer needs its type "
                              "(\"{}\" or \"{}\")",
                              w, types.size(), layers, kAttention, kConv));
    int attention = 0;
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == kAttention)
        ++attention;
      else if (types[i] != kConv)
        throw Error(fmt::format("{}: layer_types[{}] is '{}': an LFM2 layer is \"{}\" or \"{}\"", w, i, types[i],
                                kAttention, kConv));
    }
    return attention;
  }
  if (f.has("full_attn_idxs")) {
    const nlohmann::json& idx = f.doc()["full_attn_idxs"];
    if (!idx.is_array()) throw Error(fmt::format("{}: full_attn_idxs must be a list of layer indices", w));
    std::set<std::int64_t> seen;
    for (const nlohmann::json& x : idx) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() >= layers)
        throw Error(fmt::format("{}: full_attn_idxs holds {}: each must be a layer index in [0, num_hidden_layers = {})",
                                w, x.dump(), layers));
      if (!seen.insert(x.get<std::int64_t>()).second)
        throw Error(fmt::format("{}: full_attn_idxs lists layer {} twice", w, x.dump()));
    }
    return static_cast<int>(seen.size());
  }
  // Lfm2Config makes every layer attention without either list; Lfm2MoeConfig has no default.
  if (moe)
    throw Error(fmt::format("{}: an LFM2-MoE config needs layer_types (which layers are \"{}\", which \"{}\")", w,
                            kAttention, kConv));
  return layers;
}

// The short-convolution layers, the attention layers' shape and what every LFM2 checks.
void read_lfm2_layers(const JsonFields& f, ModelSpec& m, bool moe) {
  const std::string w = f.where();
  // vLLM builds the conv and the MLP from conv_dim and block_dim, transformers from hidden_size:
  // a config where they differ would be built two ways.
  for (const char* key : {"conv_dim", "conv_dim_out", "block_dim"})
    if (f.has(key) && f.integer(key) != m.hidden)
      throw Error(fmt::format("{}: {} {} differs from hidden_size {}: transformers builds the layer at hidden_size, "
                              "vLLM at {}; servesim will not guess which checkpoint this is",
                              w, key, f.integer(key), m.hidden, key));
  if (m.head_dim * m.heads != m.hidden)
    throw Error(fmt::format("{}: head_dim {} x {} heads is not hidden_size {}: LFM2's attention projects hidden_size "
                            "to num_attention_heads heads of hidden_size / num_attention_heads",
                            w, m.head_dim, m.heads, m.hidden));
  const int attention = attention_layer_count(f, m.layers, moe);
  const int conv = m.layers - attention;
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.qk_head_norms = true;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  m.tied_embeddings = f.boolean("tie_embedding", f.boolean("tie_word_embeddings", true));
  if (conv > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::short_conv;
    s.layers = conv;
    s.heads = 1;
    s.head_dim = static_cast<int>(m.hidden);  // the conv's channels: hidden_size
    s.key_heads = 0;
    s.key_dim = 0;
    s.conv_kernel = static_cast<int>(f.integer("conv_L_cache", 3));
    if (s.conv_kernel < 1) throw Error(fmt::format("{}: conv_L_cache must be at least 1, got {}", w, s.conv_kernel));
    s.conv_bias = f.boolean("conv_bias", false);
  }
  // Attention layers are those without a state mixer (ModelSpec's derived count).
}

double real_field(const JsonFields& f, const char* key) {
  const nlohmann::json& v = f.doc()[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0)
    throw Error(fmt::format("{}: {} must be a positive number, got {}", f.where(), key, v.dump()));
  return v.get<double>();
}

// Lfm2MLP's width (transformers' Lfm2MLP.__init__, quoted in the file's comment).
std::int64_t lfm2_mlp_width(const JsonFields& f) {
  const std::string w = f.where();
  const char* key = f.has("block_ff_dim") ? "block_ff_dim" : "intermediate_size";
  std::int64_t ff = f.at_least(key, 1);
  if (!f.boolean("block_auto_adjust_ff_dim", true)) return ff;
  ff = 2 * ff / 3;  // int(2 * ff / 3): floor, ff positive
  if (!f.has("block_ffn_dim_multiplier")) return ff;
  ff = static_cast<std::int64_t>(real_field(f, "block_ffn_dim_multiplier") * static_cast<double>(ff));
  const std::int64_t multiple = f.integer("block_multiple_of", 256);
  if (multiple < 1) throw Error(fmt::format("{}: block_multiple_of must be at least 1, got {}", w, multiple));
  ff = multiple * ((ff + multiple - 1) / multiple);
  if (ff < 1) throw Error(fmt::format("{}: the MLP width from {} comes to {}: not a width", w, key, ff));
  return ff;
}

}  // namespace

void read_lfm2(const JsonFields& f, ModelSpec& m) {
  read_lfm2_layers(f, m, false);
  m.ffn = lfm2_mlp_width(f);
}

void read_lfm2_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  read_lfm2_layers(f, m, true);
  m.moe.num_experts = static_cast<int>(f.integer("num_experts", 32));  // Lfm2MoeConfig's defaults
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok", 4));
  if (m.moe.num_experts < 1 || m.moe.experts_per_token < 1 || m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} must be within [1, num_experts = {}]", w,
                            m.moe.experts_per_token, m.moe.num_experts));
  m.moe.expert_ffn = f.integer("moe_intermediate_size", 1792);
  if (m.moe.expert_ffn < 1) throw Error(fmt::format("{}: moe_intermediate_size must be positive", w));
  m.moe.shared_experts = 0;
  m.moe.dense_layers = static_cast<int>(f.integer("num_dense_layers", 2));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers >= m.layers)
    throw Error(fmt::format("{}: num_dense_layers {} must be within [0, num_hidden_layers = {})", w,
                            m.moe.dense_layers, m.layers));
  m.ffn = m.moe.dense_layers > 0 ? f.integer("intermediate_size", 7168) : 0;
  if (m.moe.dense_layers > 0 && m.ffn < 1) throw Error(fmt::format("{}: intermediate_size must be positive", w));
}

}  // namespace servesim
