// poolside's Laguna (LagunaForCausalLM, model_type "laguna"; vLLM's laguna.py at
// 038481da3a60c77e68feeacc4929d63e12bc08c8: LagunaAttention, LagunaMoE, LagunaDecoderLayer):
//   attention  GQA of head_dim (qkv_proj with config.qkv_bias, o_proj with attention_bias; both
//              false in the released configs), per-head q_norm and k_norm (counted: qk_head_norms),
//              full or sliding-window attention per layer_types (read_local_attention). A layer's
//              query heads are num_attention_heads_per_layer[i] where the config lists them
//              (Laguna-XS: 48 on the full layers, 64 on the sliding ones; KV heads the same on
//              both), else num_attention_heads. servesim has one query head count per layer kind
//              (ModelSpec::global_heads for the full layers, heads for the sliding ones), so a list
//              that is not one count for the full layers and one for the sliding ones is refused.
//              A softplus output gate g_proj when `gating` is set: "per-element" gives one gate per
//              query channel (hidden -> heads x head_dim: servesim's attention_output_gate, counted);
//              true or "per-head" one per head (hidden -> heads: not counted, 4.9M weights in
//              Laguna-XS, 0.16% of its active figure). Sinks on the sliding layers with
//              swa_attention_sink_enabled (servesim counts them on every layer: a logit per head).
//   MLP        a layer is MoE when it is not in mlp_only_layers and (i + 1) % decoder_sparse_step
//              is 0 (vLLM's rule; the configs also write it per layer as mlp_layer_types "dense" /
//              "sparse", read first), the others a SwiGLU MLP of intermediate_size. MoE: num_experts
//              SwiGLU experts of moe_intermediate_size, top num_experts_per_tok, a gate hidden ->
//              num_experts without bias (its fp32 e_score_correction_bias not counted), and one
//              shared SwiGLU expert of shared_expert_intermediate_size when that is positive.
//              num_experts 0 (vLLM: no layer is MoE) reads as a dense model.
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

// Layer i's query heads, one per layer (num_attention_heads_per_layer), each a positive integer.
std::vector<std::int64_t> heads_per_layer(const JsonFields& f, int layers) {
  const nlohmann::json& list = f.doc()["num_attention_heads_per_layer"];
  if (!list.is_array() || static_cast<int>(list.size()) != layers)
    throw Error(fmt::format("{}: num_attention_heads_per_layer must list the query heads of each of the {} layers, got "
                            "{}",
                            f.where(), layers, excerpt(list.dump())));
  std::vector<std::int64_t> out;
  for (const nlohmann::json& x : list) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 1 || x.get<std::int64_t>() > (1 << 20))
      throw Error(fmt::format("{}: num_attention_heads_per_layer entries must be positive head counts, got {}",
                              f.where(), excerpt(x.dump())));
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

// The distinct values of `heads` on the layers whose sliding flag is `sliding`, as "48, 64".
std::set<std::int64_t> counts_of(const std::vector<std::int64_t>& heads, const std::vector<bool>& is_sliding,
                                 bool sliding) {
  std::set<std::int64_t> out;
  for (std::size_t i = 0; i < heads.size(); ++i)
    if (is_sliding[i] == sliding) out.insert(heads[i]);
  return out;
}

std::string joined(const std::set<std::int64_t>& values) {
  std::string out;
  for (const std::int64_t v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

// num_attention_heads_per_layer split by layer kind: the sliding (local) layers' count becomes
// `heads`, the full (global) layers' `global_heads` where it differs.
void read_heads_per_layer(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  const std::vector<std::int64_t> heads = heads_per_layer(f, m.layers);
  const std::vector<std::string> types = f.strings("layer_types");
  if (static_cast<int>(types.size()) != m.layers)
    throw Error(fmt::format("{}: num_attention_heads_per_layer needs layer_types, one \"full_attention\" or "
                            "\"sliding_attention\" for each of the {} layers, to tell which count is whose; got {} "
                            "entries",
                            w, m.layers, types.size()));
  std::vector<bool> is_sliding;
  for (const std::string& t : types) {
    if (t != "full_attention" && t != "sliding_attention")
      throw Error(fmt::format("{}: layer_types entries must be \"full_attention\" or \"sliding_attention\", got '{}'",
                              w, excerpt(t)));
    is_sliding.push_back(t == "sliding_attention");
  }
  const std::set<std::int64_t> full = counts_of(heads, is_sliding, false), sliding = counts_of(heads, is_sliding, true);
  if (full.size() > 1 || sliding.size() > 1)
    throw Error(fmt::format("{}: num_attention_heads_per_layer gives the full_attention layers {} query heads and the "
                            "sliding_attention layers {}: servesim models one query head count per layer kind (full, "
                            "sliding), so it would misprice them",
                            w, joined(full), joined(sliding)));
  if (sliding.empty() || full.empty() || *full.begin() == *sliding.begin()) {
    m.heads = static_cast<int>(sliding.empty() ? *full.begin() : *sliding.begin());
    return;
  }
  // Two counts: the sliding layers must be servesim's local layers (a window below the context).
  if (!m.local.enabled())
    throw Error(fmt::format("{}: num_attention_heads_per_layer gives the full layers {} query heads and the sliding "
                            "layers {}, but sliding_window ({}) does not bind below max_position_embeddings ({}), so "
                            "servesim would price every layer as a full one",
                            w, *full.begin(), *sliding.begin(), f.integer("sliding_window", 0), m.max_context));
  m.heads = static_cast<int>(*sliding.begin());
  m.global_heads = static_cast<int>(*full.begin());
}

// Which layers are MoE: mlp_layer_types, else vLLM's mlp_only_layers / decoder_sparse_step rule.
std::vector<bool> moe_layers(const JsonFields& f, int layers) {
  const std::string w = f.where();
  std::vector<bool> moe(static_cast<std::size_t>(layers), true);
  if (f.has("mlp_layer_types")) {
    const std::vector<std::string> kinds = f.strings("mlp_layer_types");
    if (static_cast<int>(kinds.size()) != layers)
      throw Error(fmt::format("{}: mlp_layer_types lists {} layers, num_hidden_layers is {}", w, kinds.size(), layers));
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != "dense" && kinds[i] != "sparse")
        throw Error(fmt::format("{}: mlp_layer_types entries must be \"dense\" or \"sparse\", got '{}'", w,
                                excerpt(kinds[i])));
      moe[i] = kinds[i] == "sparse";
    }
    return moe;
  }
  const std::int64_t step = f.integer("decoder_sparse_step", 1);
  if (step < 1) throw Error(fmt::format("{}: decoder_sparse_step must be at least 1, got {}", w, step));
  for (int i = 0; i < layers; ++i) moe[static_cast<std::size_t>(i)] = (i + 1) % step == 0;
  if (f.has("mlp_only_layers") && !f.doc()["mlp_only_layers"].is_array())
    throw Error(fmt::format("{}: mlp_only_layers must list layer indices", w));
  for (const std::int64_t i : f.integers("mlp_only_layers")) {
    if (i < 0 || i >= layers)
      throw Error(fmt::format("{}: mlp_only_layers names layer {} of {}", w, i, layers));
    moe[static_cast<std::size_t>(i)] = false;
  }
  return moe;
}

}  // namespace

void read_laguna(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu") throw Error(fmt::format("{}: hidden_act '{}': vLLM's Laguna runs silu (SwiGLU) only", w, act));
  m.qkv_bias = f.boolean("qkv_bias", false);
  m.attention_o_bias = f.boolean("attention_bias", false);
  m.qk_head_norms = true;
  m.gated_mlp = true;
  m.attention_sinks = f.boolean("swa_attention_sink_enabled", false);
  if (f.has("gating")) {
    const nlohmann::json& g = f.doc()["gating"];
    const bool per_element = g == "per-element";
    if (!(g.is_boolean() || g == "per-head" || per_element))
      throw Error(fmt::format("{}: gating must be true / false, \"per-head\" or \"per-element\" (vLLM's "
                              "LagunaAttention), got {}",
                              w, excerpt(g.dump())));
    m.attention_output_gate = per_element;  // a per-head gate (true, "per-head") is not counted
  }
  if (f.has("num_attention_heads_per_layer")) read_heads_per_layer(f, m);

  const std::int64_t experts = f.integer("num_experts", 0);
  if (experts < 0) throw Error(fmt::format("{}: num_experts must be >= 0, got {}", w, experts));
  if (experts == 0) {  // vLLM: no layer is MoE
    if (m.ffn <= 0) throw Error(fmt::format("{}: a Laguna without experts needs a positive intermediate_size", w));
    return;
  }
  m.moe.num_experts = static_cast<int>(experts);
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
  if (shared < 0) throw Error(fmt::format("{}: shared_expert_intermediate_size must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
  const std::vector<bool> moe = moe_layers(f, m.layers);
  int count = 0, leading_dense = 0;
  for (const bool x : moe) {
    if (x) ++count;
    else if (count == 0) ++leading_dense;
  }
  if (count == 0)
    throw Error(fmt::format("{}: num_experts {} but no layer is MoE (mlp_layer_types, mlp_only_layers, "
                            "decoder_sparse_step)",
                            w, experts));
  // A leading run of dense layers is servesim's dense_layers; any other order is counted.
  if (count + leading_dense == m.layers) m.moe.dense_layers = leading_dense;
  else m.moe.listed_layers = count;
  if (count < m.layers && m.ffn <= 0)
    throw Error(fmt::format("{}: {} dense layers need a positive intermediate_size", w, m.layers - count));
  // poolside's "33B total parameters with 3B activated per token" fits both tables counted
  // (tests/unit/test_hf_layer_heads.cpp): the model_spec.h default.
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

}  // namespace servesim
