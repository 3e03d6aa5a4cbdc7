// Zhipu's GLM-5.3-Flash (Glm5NextForCausalLM, flat; Glm5NextForConditionalGeneration, its text
// model in text_config: model_type glm5_next_text). Fields and defaults are transformers'
// Glm5NextTextConfig, whose docstring ties them to zai-org/GLM-5.3-Flash
// (huggingface/transformers@a4c52c8e4bd6e48352a963e7dd37af9925e4f413:
// src/transformers/models/glm5_next/configuration_glm5_next.py); the weights are vLLM's
// (vllm-project/vllm, vllm/models/glm5next/common/kda.py at
// 05a904ca10d61e98d4db71ba1daeb4a1f90d52b9: Glm5NextLinearAttention) and the reference indexer's:
//   layers     layer_types: "linear_attention" (KDA) or "deepseek_sparse_attention" ("full_attention"
//              read as it), default DSA on every fourth layer (i % 4 == 3);
//   KDA        Kimi delta attention (StateLayers::Kind::kda: q, k, v, b, f_a, g_a in one projection,
//              f_b and g_b head_dim -> heads x head_dim, three convs, dt_bias, A_log, o_norm, o_proj),
//              linear_num_heads x linear_head_dim, kernel linear_conv_kernel_dim (or the
//              linear_attn_config dict's num_heads, head_dim, short_conv_kernel_size, which the
//              class reads over them);
//   MLA        without RoPE (qk_rope_head_dim 0) on the DSA layers, with DSA's indexer: index_n_heads
//              x index_head_dim scoring one key per index_kpool tokens (SparseIndexer::key_pool),
//              on the layers indexer_types marks "full" (the "shared" ones reuse the last
//              selection: SparseIndexer::own_layers);
//   MLP        mlp_layer_types "dense" (intermediate_size) or "sparse": n_routed_experts of
//              moe_intermediate_size, top num_experts_per_tok, and n_shared_experts;
//   residual   hc_mult Sinkhorn-mixed hyper-connection streams, as DeepSeek-V4's (ModelSpec::hc_mult).
// The MTP layer (num_nextn_predict_layers) is not counted: its shapes are not in the config.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {

namespace {

// Per layer: true where the layer is KDA.
std::vector<bool> kda_layers(const JsonFields& f, int layers) {
  std::vector<bool> kda(static_cast<std::size_t>(layers));
  if (!f.has("layer_types")) {
    for (int i = 0; i < layers; ++i) kda[static_cast<std::size_t>(i)] = i % 4 != 3;
    return kda;
  }
  const std::vector<std::string> types = f.strings("layer_types");
  if (static_cast<int>(types.size()) != layers)
    throw Error(fmt::format("{}: layer_types must name the mixer of each of the {} layers, got {}", f.where(), layers,
                            types.size()));
  for (int i = 0; i < layers; ++i) {
    const std::string& t = types[static_cast<std::size_t>(i)];
    if (t != "linear_attention" && t != "deepseek_sparse_attention" && t != "full_attention")
      throw Error(fmt::format("{}: layer_types[{}] is \"{}\": GLM-5.3 layers are \"linear_attention\" (KDA) or "
                              "\"deepseek_sparse_attention\"",
                              f.where(), i, t));
    kda[static_cast<std::size_t>(i)] = t == "linear_attention";
  }
  return kda;
}

}  // namespace

void read_glm5_next(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "Glm5NextForCausalLM");
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: GLM-5.3's attention has no biases", w));
  m.gated_mlp = true;
  const std::vector<bool> kda = kda_layers(f, m.layers);
  int kda_count = 0;
  for (const bool k : kda) kda_count += k;
  const int dsa_count = m.layers - kda_count;

  // KDA, from the flat fields or the linear_attn_config dict the class reads over them.
  std::int64_t heads = f.integer("linear_num_heads", 64), head_dim = f.integer("linear_head_dim", 128),
               conv = f.integer("linear_conv_kernel_dim", 4);
  if (f.has("linear_attn_config")) {
    if (!f.doc()["linear_attn_config"].is_object())
      throw Error(fmt::format("{}: linear_attn_config must be an object", w));
    const JsonFields lf(f.doc()["linear_attn_config"], w + " linear_attn_config");
    heads = lf.integer("num_heads", heads);
    head_dim = lf.integer("head_dim", head_dim);
    conv = lf.integer("short_conv_kernel_size", conv);
  }
  if (heads < 1 || head_dim < 1 || conv < 1 || heads > (1 << 16) || head_dim > (1 << 16) || conv > 1024)
    throw Error(fmt::format("{}: the KDA layers need positive linear_num_heads, linear_head_dim and "
                            "linear_conv_kernel_dim, got {}, {}, {}",
                            w, heads, head_dim, conv));
  if (kda_count > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::kda;
    s.layers = kda_count;
    s.heads = static_cast<int>(heads);
    s.head_dim = static_cast<int>(head_dim);
    s.key_heads = s.heads;
    s.key_dim = s.head_dim;
    s.conv_kernel = static_cast<int>(conv);
    s.chunk = 64;                  // FLA's chunk_kda
    s.state_dtype = DType::fp32;  // vLLM's kda_state_dtype
  }

  // NoPE MLA on the DSA layers, with the indexer.
  read_mla(f, m);
  if (m.mla.qk_rope_head_dim != 0)
    throw Error(fmt::format("{}: qk_rope_head_dim {}: GLM-5.3's DSA layers are NoPE (the class rejects any other)", w,
                            m.mla.qk_rope_head_dim));
  m.kv_heads = m.heads;
  m.indexer.heads = static_cast<int>(f.at_least("index_n_heads", 1));
  m.indexer.head_dim = static_cast<int>(f.at_least("index_head_dim", 1));
  m.indexer.topk = static_cast<int>(f.at_least("index_topk", 1));
  m.indexer.key_pool = static_cast<int>(f.has("index_kpool") ? f.at_least("index_kpool", 1) : 16);
  if (m.indexer.topk % m.indexer.key_pool != 0)
    throw Error(fmt::format("{}: index_topk {} must be a multiple of index_kpool {}", w, m.indexer.topk,
                            m.indexer.key_pool));
  if (dsa_count > 0 && m.indexer.topk < m.max_context) {
    m.local.kind = LocalAttention::Kind::topk;
    m.local.span = m.indexer.topk;
    m.local.layers = dsa_count;
    if (f.has("indexer_types")) {
      const std::vector<std::string> types = f.strings("indexer_types");
      if (static_cast<int>(types.size()) != m.layers)
        throw Error(fmt::format("{}: indexer_types must give \"full\" or \"shared\" for each of the {} layers, got {}",
                                w, m.layers, types.size()));
      int own = 0;
      bool seen_full = false;
      for (int i = 0; i < m.layers; ++i) {
        const std::string& t = types[static_cast<std::size_t>(i)];
        if (t != "full" && t != "shared")
          throw Error(fmt::format("{}: indexer_types[{}] is \"{}\": \"full\" or \"shared\"", w, i, t));
        if (kda[static_cast<std::size_t>(i)]) continue;  // a KDA layer has no indexer either way
        if (t == "shared" && !seen_full)
          throw Error(fmt::format("{}: indexer_types[{}] is \"shared\" before any DSA layer is \"full\": there is no "
                                  "selection to reuse",
                                  w, i));
        seen_full = seen_full || t == "full";
        own += t == "full";
      }
      m.indexer.own_layers = own;
    }
  } else {
    m.indexer = SparseIndexer{};  // no DSA layer, or a top-k of the whole context: full attention
  }

  // Experts.
  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds n_routed_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 1));
  if (m.moe.shared_experts < 0) throw Error(fmt::format("{}: n_shared_experts must be >= 0", w));
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.groups = static_cast<int>(f.integer("n_group", 1));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 1));
  read_mlp_layer_kinds(f, m, 3);  // the class's default: three dense layers, then sparse

  m.hc_mult = static_cast<int>(f.integer("hc_mult", 4));
  if (m.hc_mult < 0) throw Error(fmt::format("{}: hc_mult must be >= 0, got {}", w, m.hc_mult));
  if (m.hc_mult == 1) m.hc_mult = 0;
  // Zhipu's figures (GLM-5's 40B, read_deepseek): neither table counted.
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

}  // namespace servesim
