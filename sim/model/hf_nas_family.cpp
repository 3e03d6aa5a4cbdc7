// NVIDIA's Llama-Nemotron NAS models (DeciLMForCausalLM, model_type "nemotron-nas":
// Llama-3.3-Nemotron-Super-49B-v1/v1.5, Llama-3.1-Nemotron-Ultra-253B-v1, Llama-3.1-Nemotron-51B):
// Llama layers pruned block by block by a neural architecture search. Their config.json has no
// intermediate_size or num_key_value_heads; block_configs gives each layer
//   attention: n_heads_in_group (KV heads = num_attention_heads / it, its own per layer: the 51B's
//              "variable GQA", ModelSpec::kv_head_groups), or no_op (no attention, no norm
//              before it), or replace_with_linear (one hidden x hidden linear map);
//   ffn:       ffn_mult (a SwiGLU MLP of width _ffn_mult_to_intermediate_size), or no_op, or
//              replace_with_linear.
// Shapes as the checkpoints' modeling_decilm.py and vLLM's nemotron_nas.py build them
// (_ffn_mult_to_intermediate_size: int(2 * ffn_mult * hidden / 3) rounded up to 256).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/hf_families.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

using json = nlohmann::json;

// transformers' DeciLM: int(2 * ffn_mult * n_embd / 3), rounded up to a multiple of 256
// (Python evaluates it left to right in doubles, as here).
std::int64_t ffn_mult_to_intermediate_size(double ffn_mult, std::int64_t hidden) {
  const auto n = static_cast<std::int64_t>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

bool flag(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || o[key].is_null()) return false;
  if (!o[key].is_boolean()) throw Error(fmt::format("{}.{} must be true or false", where, key));
  return o[key].get<bool>();
}

// A sublayer's object (block_configs[i].attention / .ffn); `where` names it.
const json& sublayer(const json& block, const char* key, const std::string& where) {
  if (!block.is_object())
    throw Error(fmt::format("{}: must be an object with 'attention' and 'ffn', got {}", where, excerpt(block.dump())));
  if (!block.contains(key) || !block[key].is_object()) throw Error(fmt::format("{}: missing object '{}'", where, key));
  return block[key];
}

}  // namespace

void read_nemotron_nas(const JsonFields& f, ModelSpec& m) {
  const json& doc = f.doc();
  if (!doc.contains("block_configs") || !doc["block_configs"].is_array())
    throw Error(fmt::format("{}: DeciLMForCausalLM needs its list 'block_configs' (one entry per layer)", f.where()));
  const json& blocks = doc["block_configs"];
  if (static_cast<std::int64_t>(blocks.size()) != m.layers)
    throw Error(fmt::format("{}: block_configs has {} entries for num_hidden_layers {}", f.where(), blocks.size(),
                            m.layers));
  int attention = 0, mlp = 0, linear = 0;
  std::map<std::int64_t, int> kv_groups;  // KV heads -> attention layers
  std::map<std::int64_t, int> widths;     // width -> layers
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string at = fmt::format("{}: block_configs[{}]", f.where(), i);
    const json& a = sublayer(blocks[i], "attention", at);
    const std::string aw = at + ".attention";
    // Sink tokens and windows (Deci's research variants) would change the KV kept per layer.
    for (const char* unsupported : {"window_length", "num_sink_tokens", "sparsify"})
      if (a.contains(unsupported) && !a[unsupported].is_null())
        throw Error(fmt::format("{}.{} = {}: a per-layer window, sink or sparsity is not described by servesim "
                                "(the released Llama-Nemotron checkpoints leave it null)",
                                aw, unsupported, a[unsupported].dump()));
    if (flag(a, "no_op", aw)) {
      // no attention in this layer
    } else if (flag(a, "replace_with_linear", aw)) {
      ++linear;
    } else {
      if (!a.contains("n_heads_in_group") || !a["n_heads_in_group"].is_number_integer())
        throw Error(fmt::format("{}.n_heads_in_group must be an integer (or no_op / replace_with_linear true)", aw));
      const std::int64_t g = a["n_heads_in_group"].get<std::int64_t>();
      if (g < 1 || g > m.heads || m.heads % g != 0)
        throw Error(fmt::format("{}.n_heads_in_group {} must divide num_attention_heads {}", aw, g, m.heads));
      // Each layer's own KV heads (the 51B groups its layers' heads by 8, 16, 32 or 64).
      ++kv_groups[m.heads / g];
      ++attention;
    }
    const json& ff = sublayer(blocks[i], "ffn", at);
    const std::string fw = at + ".ffn";
    if (ff.contains("sparsify") && !ff["sparsify"].is_null())
      throw Error(fmt::format("{}.sparsify = {}: a sparsified FFN is not described by servesim", fw,
                              ff["sparsify"].dump()));
    if (flag(ff, "no_op", fw)) continue;
    if (flag(ff, "replace_with_linear", fw)) {
      ++linear;
      continue;
    }
    if (!ff.contains("ffn_mult") || !ff["ffn_mult"].is_number() || !(ff["ffn_mult"].get<double>() > 0) ||
        ff["ffn_mult"].get<double>() > 1e3)
      throw Error(fmt::format("{}.ffn_mult must be a positive number (or no_op / replace_with_linear true)", fw));
    const std::int64_t width = ffn_mult_to_intermediate_size(ff["ffn_mult"].get<double>(), m.hidden);
    if (width < 1)
      throw Error(fmt::format("{}.ffn_mult {} gives an FFN of width 0 (int(2 x ffn_mult x {} / 3))", fw,
                              ff["ffn_mult"].get<double>(), m.hidden));
    ++widths[width];
    ++mlp;
  }
  if (attention == 0)
    throw Error(fmt::format("{}: block_configs gives no layer attention; servesim needs a KV cache to size", f.where()));
  // The most KV heads as kv_heads; runs of each count (the most first) where they differ.
  m.kv_heads = static_cast<int>(kv_groups.rbegin()->first);
  if (kv_groups.size() > 1)
    for (auto it = kv_groups.rbegin(); it != kv_groups.rend(); ++it)
      m.kv_head_groups.push_back({static_cast<int>(it->first), it->second});
  m.attention_layer_count = attention;
  m.mlp_layer_count = mlp;
  // The widest first, then the narrower ones: the order the cost model prices them in.
  for (auto it = widths.rbegin(); it != widths.rend(); ++it) m.mlp_widths.push_back({it->first, it->second, false});
  if (linear > 0) m.mlp_widths.push_back({0, linear, true});
  m.ffn = widths.empty() ? 0 : widths.rbegin()->first;
}

}  // namespace servesim
