// Reader of Zyphra's Zamba2 (Zamba2ForCausalLM, model_type zamba2): a Mamba-2 layer on every
// layer, and on the hybrid layers a shared transformer block run before it (SharedBlocks,
// layer_kinds.h). Shapes as transformers' Zamba2Config / modeling_zamba2.py and vLLM's zamba2.py
// build them:
//   - Mamba-2 (MambaMixer2): d_inner = mamba_expand x hidden_size, n_mamba_heads heads of
//     mamba_headdim, mamba_ngroups groups of mamba_d_state, a conv of mamba_d_conv taps
//     (use_conv_bias), in_proj and out_proj without biases (add_bias_linear false), an RMSNorm
//     before the mixer;
//   - a shared block: an RMSNorm over [hidden; embedding] (2 x hidden_size), q, k, v from that
//     width to heads x attention_head_dim (attention_head_dim = 2 x hidden_size / heads), o_proj
//     to hidden_size, an RMSNorm, a gated GELU MLP (gate_up hidden -> 2 x intermediate_size,
//     down back; vLLM refuses another activation), no biases; num_mem_blocks of them taken in
//     turn over the hybrid layers;
//   - per hybrid layer: the adapters (adapter_rank; use_shared_attention_adapter,
//     use_shared_mlp_adapter) and the hidden x hidden linear map.
// Zyphra's first uploads (transformers 4.43 dev, the Zyphra/transformers_zamba2 fork) spell some
// fields otherwise (ffn_hidden_size, state_size, lora_rank, use_shared_block_lora,
// use_shared_attention_lora, expansion_factor, conv_dimension): both spellings are read.
//
// Weights shared as vLLM serves them: transformers ties the blocks' copies only when
// tie_word_embeddings is true (every published Zamba2 config), vLLM always builds num_mem_blocks.
#include <fmt/format.h>

#include <set>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {

// The first of `keys` the config has, as an integer >= 1, else `fallback`.
std::int64_t first_positive(const JsonFields& f, std::initializer_list<const char*> keys, std::int64_t fallback) {
  for (const char* k : keys)
    if (f.has(k)) return f.at_least(k, 1);
  return fallback;
}

bool first_boolean(const JsonFields& f, std::initializer_list<const char*> keys, bool fallback) {
  for (const char* k : keys)
    if (f.has(k)) return f.boolean(k, fallback);
  return fallback;
}

// transformers' Zamba2Config default layer list (Zamba2-2.7B's): "mamba", then 7 x (5 mamba,
// hybrid), 4 mamba, hybrid, 3 mamba, hybrid, 2 mamba: 54 layers, hybrid at 6, 12, ..., 42, 47, 51.
std::vector<std::int64_t> default_hybrid_layers() {
  return {6, 12, 18, 24, 30, 36, 42, 47, 51};
}

std::vector<std::int64_t> hybrid_layers(const JsonFields& f, int layers) {
  std::vector<std::int64_t> ids;
  if (f.has("layers_block_type")) {
    const std::vector<std::string> types = f.strings("layers_block_type");
    if (static_cast<int>(types.size()) != layers)
      throw Error(fmt::format("{}: layers_block_type lists {} layers, num_hidden_layers is {}", f.where(), types.size(),
                              layers));
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "hybrid") ids.push_back(static_cast<std::int64_t>(i));
      else if (types[i] != "mamba")
        throw Error(fmt::format("{}: layers_block_type[{}] is '{}': Zamba2's layers are \"mamba\" or \"hybrid\"",
                                f.where(), i, types[i]));
    }
    if (f.has("hybrid_layer_ids") && f.integers("hybrid_layer_ids") != ids)
      throw Error(fmt::format("{}: hybrid_layer_ids does not list the layers layers_block_type marks \"hybrid\"",
                              f.where()));
    return ids;
  }
  if (f.has("hybrid_layer_ids")) {
    std::set<std::int64_t> seen;
    for (const std::int64_t i : f.integers("hybrid_layer_ids")) {
      if (i < 0 || i >= layers || !seen.insert(i).second)
        throw Error(fmt::format("{}: hybrid_layer_ids lists {}: layers are numbered 0..{}, each listed once",
                                f.where(), i, layers - 1));
      ids.push_back(i);
    }
    return ids;
  }
  if (layers != 54)
    throw Error(fmt::format("{}: no layers_block_type or hybrid_layer_ids: Zamba2Config's default layer list has 54 "
                            "layers, this config {}; list the hybrid layers",
                            f.where(), layers));
  return default_hybrid_layers();
}

}  // namespace

void read_zamba2(const JsonFields& f, ModelSpec& m) {
  if (f.boolean("add_bias_linear", false))
    throw Error(fmt::format("{}: add_bias_linear is true: the shared MLP and the Mamba-2 projections then carry "
                            "biases, which servesim does not count; it would undercount this checkpoint",
                            f.where()));
  const std::string act = f.string("hidden_act", "gelu");
  if (act != "gelu")
    throw Error(fmt::format("{}: hidden_act is '{}': Zamba2's shared MLP is a gated GELU (vLLM's Zamba2MLP "
                            "refuses any other)",
                            f.where(), act));
  const std::vector<std::int64_t> hybrid = hybrid_layers(f, m.layers);
  if (hybrid.empty())
    throw Error(fmt::format("{}: no hybrid layer: a Zamba2 without shared blocks is a Mamba-2 model "
                            "(Mamba2ForCausalLM)",
                            f.where()));
  const std::int64_t h = m.hidden, width = 2 * h;
  if (f.has("attention_hidden_size") && f.integer("attention_hidden_size") != width)
    throw Error(fmt::format("{}: attention_hidden_size {} is not 2 x hidden_size = {}: the shared block reads the "
                            "hidden state and the embedding side by side (Zamba2Config sets it so)",
                            f.where(), f.integer("attention_hidden_size"), width));
  if (m.heads <= 0 || width % m.heads != 0)
    throw Error(fmt::format("{}: num_attention_heads {} does not divide 2 x hidden_size = {}", f.where(), m.heads,
                            width));
  m.head_dim = static_cast<int>(width / m.heads);
  if (f.has("attention_head_dim") && f.integer("attention_head_dim") != m.head_dim)
    throw Error(fmt::format("{}: attention_head_dim {} is not 2 x hidden_size / num_attention_heads = {}", f.where(),
                            f.integer("attention_head_dim"), m.head_dim));
  m.ffn = first_positive(f, {"intermediate_size", "ffn_hidden_size"}, 4 * h);
  m.gated_mlp = true;
  m.qkv_bias = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);  // PretrainedConfig's default, Zamba2's _tied_weights_keys

  // Mamba-2 on every layer.
  const std::int64_t d_inner = first_positive(f, {"mamba_expand", "expansion_factor"}, 2) * h;
  std::int64_t heads = 0, head_dim = 0;
  if (f.has("n_mamba_heads")) {
    heads = f.at_least("n_mamba_heads", 1);
    if (d_inner % heads != 0)
      throw Error(fmt::format("{}: n_mamba_heads {} does not divide mamba_expand x hidden_size = {}", f.where(), heads,
                              d_inner));
    head_dim = d_inner / heads;
  } else {
    head_dim = first_positive(f, {"mamba_headdim"}, 64);
    if (d_inner % head_dim != 0)
      throw Error(fmt::format("{}: mamba_headdim {} does not divide mamba_expand x hidden_size = {}", f.where(),
                              head_dim, d_inner));
    heads = d_inner / head_dim;
  }
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba2;
  s.layers = m.layers;
  s.heads = static_cast<int>(heads);
  s.head_dim = static_cast<int>(head_dim);
  s.key_heads = static_cast<int>(first_positive(f, {"mamba_ngroups"}, 1));
  s.key_dim = static_cast<int>(first_positive(f, {"mamba_d_state", "state_size"}, 64));
  s.conv_kernel = static_cast<int>(first_positive(f, {"mamba_d_conv", "conv_dimension"}, 4));
  s.conv_bias = f.boolean("use_conv_bias", true);
  s.chunk = static_cast<int>(first_positive(f, {"chunk_size"}, 256));
  s.state_dtype = m.native_dtype == DType::fp32 ? DType::bf16 : m.native_dtype;
  if (s.heads % s.key_heads != 0)
    throw Error(fmt::format("{}: the {} Mamba-2 heads are not a multiple of mamba_ngroups {}", f.where(), s.heads,
                            s.key_heads));

  // The shared blocks: attention and MLP on the hybrid layers.
  const int uses = static_cast<int>(hybrid.size());
  m.attention_layer_count = uses;
  m.mlp_layer_count = uses;
  SharedBlocks& b = m.shared_blocks;
  b.blocks = static_cast<int>(first_positive(f, {"num_mem_blocks"}, 1));
  if (b.blocks > uses)
    throw Error(fmt::format("{}: num_mem_blocks {} is more than the {} hybrid layers that would run them", f.where(),
                            b.blocks, uses));
  b.uses = uses;
  b.input_width = width;
  b.adapter_rank = static_cast<int>(first_positive(f, {"adapter_rank", "lora_rank"}, 128));
  b.attention_adapters = first_boolean(f, {"use_shared_attention_adapter", "use_shared_attention_lora"}, false);
  b.mlp_adapters = first_boolean(f, {"use_shared_mlp_adapter", "use_shared_block_lora"}, false);
}

}  // namespace servesim
