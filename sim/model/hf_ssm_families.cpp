// Readers of the state-space families beside Falcon-H1 (hf_falcon_h1_family.cpp): the pure
// SSMs Mamba-2 (Mamba2ForCausalLM: Mamba-Codestral, the state-spaces/mamba2-* conversions) and
// Mamba (MambaForCausalLM, FalconMambaForCausalLM: Falcon Mamba 7B), which have no attention
// layer at all, and Bamba (BambaForCausalLM), a Mamba-2 hybrid with attention on the layers
// attn_layer_indices lists.
//
// A pure SSM's layer (transformers' Mamba2Block / MambaBlock, FalconMambaBlock) is an RMSNorm
// and the mixer, with a residual; no MLP. So the model holds state layers on every layer,
// attention_layer_count 0 and mlp_layer_count 0 (ModelSpec): sublayers() = the state layers,
// one norm each, exactly the checkpoint's. With no attention nothing grows with the context:
// kv_bytes_per_token() is 0 and each sequence holds only its state slot (the memory plan,
// cost/memory_plan.cpp, bounds the running sequences by engine.max_num_seqs state slots). The
// ModelSpec's attention heads stand for the mixer's heads there (num_heads x head_dim for
// Mamba-2; for Mamba, its d_inner channels of width 1): what tensor parallelism splits (vLLM's
// MambaMixer2 shards the heads, MambaMixer the channels), so heads % tp keeps its meaning.
#include <fmt/format.h>

#include <set>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {

// The recurrent state's precision: mamba_ssm_cache_dtype when the config names one, else the
// model's (vLLM's mamba_ssm_cache_dtype "auto").
DType ssm_state_dtype(const JsonFields& f, DType model) {
  const std::string s = f.string("mamba_ssm_cache_dtype", "");
  if (!s.empty() && s != "auto") return parse_dtype(s, f.where() + ": mamba_ssm_cache_dtype");
  return model == DType::fp32 ? DType::bf16 : model;
}

std::int64_t positive_or(const JsonFields& f, const char* key, std::int64_t fallback) {
  return f.has(key) ? f.at_least(key, 1) : fallback;
}

void refuse_true(const JsonFields& f, const char* key, const char* what) {
  if (f.boolean(key, false))
    throw Error(fmt::format("{}: {} is true: the {} then carry biases, which servesim does not count; it would "
                            "undercount this checkpoint",
                            f.where(), key, what));
}

// No attention, no MLP: every layer a state layer with its norm.
void attention_free(ModelSpec& m) {
  m.attention_layer_count = 0;
  m.mlp_layer_count = 0;
  m.ffn = 0;
  m.qkv_bias = false;
  m.local = LocalAttention{};
}

}  // namespace

// Mamba-2 (transformers' Mamba2Config and Mamba2Mixer, modeling_mamba2.py): d_inner = expand x
// hidden_size must equal num_heads x head_dim (Mamba2Config raises otherwise); in_proj hidden ->
// 2 d_inner + 2 n_groups state_size + num_heads (bias: use_bias), a depthwise conv1d over d_inner
// + 2 n_groups state_size channels of conv_kernel taps (bias: use_conv_bias), dt_bias, A_log, D
// per head, the gated RMSNorm over d_inner (MambaRMSNormGated, built whatever rms_norm says),
// out_proj d_inner -> hidden (bias: use_bias). Defaults are Mamba2Config's.
void read_mamba2(const JsonFields& f, ModelSpec& m) {
  refuse_true(f, "use_bias", "Mamba-2 in_proj and out_proj");
  const std::int64_t heads = positive_or(f, "num_heads", 128), head_dim = positive_or(f, "head_dim", 64);
  const std::int64_t expand = positive_or(f, "expand", 2);
  if (heads * head_dim != expand * m.hidden)
    throw Error(fmt::format("{}: num_heads {} x head_dim {} = {} is not expand {} x hidden_size {} = {}: the Mamba-2 "
                            "heads must tile its width (Mamba2Config)",
                            f.where(), heads, head_dim, heads * head_dim, expand, m.hidden, expand * m.hidden));
  attention_free(m);
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba2;
  s.layers = m.layers;
  s.heads = static_cast<int>(heads);
  s.head_dim = static_cast<int>(head_dim);
  s.key_heads = static_cast<int>(positive_or(f, "n_groups", 8));
  s.key_dim = static_cast<int>(positive_or(f, "state_size", 128));
  s.conv_kernel = static_cast<int>(positive_or(f, "conv_kernel", 4));
  s.conv_bias = f.boolean("use_conv_bias", true);
  s.chunk = static_cast<int>(positive_or(f, "chunk_size", 256));
  s.state_dtype = ssm_state_dtype(f, m.native_dtype);
  if (s.heads % s.key_heads != 0)
    throw Error(fmt::format("{}: num_heads {} is not a multiple of n_groups {}", f.where(), s.heads, s.key_heads));
  m.heads = m.kv_heads = s.heads;  // the mixer's heads: what TP splits (see the top of this file)
  m.head_dim = s.head_dim;
}

// Mamba (transformers' MambaConfig / MambaMixer, FalconMambaConfig / FalconMambaMixer):
// d_inner = intermediate_size (expand x hidden_size); in_proj hidden -> 2 d_inner (bias:
// use_bias), a depthwise conv1d over d_inner of conv_kernel taps (bias: use_conv_bias), x_proj
// d_inner -> time_step_rank + 2 state_size, dt_proj time_step_rank -> d_inner with its bias,
// A_log d_inner x state_size, D d_inner, out_proj d_inner -> hidden (bias: use_bias);
// time_step_rank "auto" is ceil(hidden_size / 16). StateLayers' Mamba kind also counts Jamba's
// dt / B / C RMSNorm weights (time_step_rank + 2 state_size a layer), which Mamba lacks and
// Falcon Mamba applies without weights (rms_forward): 288 weights a layer too many for Falcon
// Mamba 7B (0.0003% of it).
void read_mamba(const JsonFields& f, ModelSpec& m) {
  refuse_true(f, "use_bias", "Mamba in_proj and out_proj");
  const std::int64_t d_inner = f.has("intermediate_size") ? f.at_least("intermediate_size", 1)
                                                          : positive_or(f, "expand", 2) * m.hidden;
  attention_free(m);
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba1;
  s.layers = m.layers;
  s.heads = 1;
  s.head_dim = static_cast<int>(d_inner);
  s.key_dim = static_cast<int>(positive_or(f, "state_size", 16));
  s.conv_kernel = static_cast<int>(positive_or(f, "conv_kernel", 4));
  s.conv_bias = f.boolean("use_conv_bias", true);
  const bool rank_given = f.has("time_step_rank") && f.doc()["time_step_rank"].is_number_integer();
  s.dt_rank = static_cast<int>(rank_given ? f.at_least("time_step_rank", 1) : (m.hidden + 15) / 16);
  s.chunk = 1;  // a sequential selective scan
  s.state_dtype = ssm_state_dtype(f, m.native_dtype);
  // The d_inner channels stand for heads of width 1 (see the top of this file).
  m.heads = m.kv_heads = s.head_dim;
  m.head_dim = 1;
  // MambaConfig ties the tables unless told otherwise (tie_word_embeddings defaults to true there).
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
}

// Bamba (transformers' BambaConfig / modeling_bamba.py; IBM's ibm-ai-platform/Bamba-9B): each
// layer is Mamba-2 or attention (attn_layer_indices, 0-based; none listed: every layer Mamba-2),
// then a gated MLP (BambaMLP); two RMSNorms a layer. BambaMixer is Mamba-2 with mamba_*
// fields: d_inner = mamba_expand x hidden_size, mamba_d_head "auto" = d_inner / mamba_n_heads
// (BambaConfig refuses a head width that does not tile d_inner), the gated norm always built,
// in_proj and out_proj biased with mamba_proj_bias. Attention and MLP carry no biases
// (BambaConfig sets attention_bias and mlp_bias false).
void read_bamba(const JsonFields& f, ModelSpec& m) {
  refuse_true(f, "mamba_proj_bias", "Mamba-2 in_proj and out_proj");
  std::set<std::int64_t> attention;
  for (const std::int64_t i : f.integers("attn_layer_indices")) {
    if (i < 0 || i >= m.layers || !attention.insert(i).second)
      throw Error(fmt::format("{}: attn_layer_indices lists {}: layers are numbered 0..{}, each listed once", f.where(),
                              i, m.layers - 1));
  }
  const std::int64_t d_inner = positive_or(f, "mamba_expand", 2) * m.hidden;
  const std::int64_t heads = positive_or(f, "mamba_n_heads", 128);
  if (d_inner % heads != 0)
    throw Error(fmt::format("{}: mamba_expand x hidden_size = {} is not a multiple of mamba_n_heads {} (BambaConfig)",
                            f.where(), d_inner, heads));
  std::int64_t head_dim = d_inner / heads;
  if (f.has("mamba_d_head") && !f.doc()["mamba_d_head"].is_string()) head_dim = f.integer("mamba_d_head");
  if (head_dim * heads != d_inner)
    throw Error(fmt::format("{}: mamba_n_heads {} x mamba_d_head {} = {} is not mamba_expand x hidden_size = {} "
                            "(BambaConfig)",
                            f.where(), heads, head_dim, heads * head_dim, d_inner));
  m.qkv_bias = false;
  const int mamba = m.layers - static_cast<int>(attention.size());
  if (mamba > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::mamba2;
    s.layers = mamba;
    s.heads = static_cast<int>(heads);
    s.head_dim = static_cast<int>(head_dim);
    s.key_heads = static_cast<int>(positive_or(f, "mamba_n_groups", 1));
    s.key_dim = static_cast<int>(positive_or(f, "mamba_d_state", 256));
    s.conv_kernel = static_cast<int>(positive_or(f, "mamba_d_conv", 4));
    s.conv_bias = f.boolean("mamba_conv_bias", true);
    s.chunk = static_cast<int>(positive_or(f, "mamba_chunk_size", 256));
    s.state_dtype = ssm_state_dtype(f, m.native_dtype);
  }
}

}  // namespace servesim
