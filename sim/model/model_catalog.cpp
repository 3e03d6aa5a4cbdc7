#include "model/model_catalog.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

std::vector<std::string> model_catalog_names() { return list_catalog("models"); }

void validate_model(const ModelSpec& m, const std::string& where) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("{}: model '{}': {}", where, m.name, why)); };
  if (m.layers <= 0) fail("layers must be positive");
  if (m.hidden <= 0) fail("hidden_size must be positive");
  if (m.heads <= 0 || m.kv_heads <= 0) fail("heads and kv_heads must be positive");
  if (m.heads % m.kv_heads != 0)
    fail(fmt::format("{} attention heads are not a multiple of {} KV heads", m.heads, m.kv_heads));
  if (m.head_dim <= 0) fail("head_dim must be positive");
  if (m.vocab <= 0) fail("vocab_size must be positive");
  if (m.max_context <= 0) fail(fmt::format("max_position_embeddings (context length) must be positive, got {}", m.max_context));
  if (m.ffn < 0) fail(fmt::format("intermediate_size must not be negative, got {}", m.ffn));
  // Multi-head latent attention: a negative rank would silently read as "not MLA" and
  // price a full-size KV cache (about 100x DeepSeek-V3's).
  if (m.mla.kv_lora_rank < 0 || m.mla.q_lora_rank < 0 || m.mla.qk_nope_head_dim < 0 || m.mla.qk_rope_head_dim < 0 ||
      m.mla.v_head_dim < 0)
    fail(fmt::format("multi-head latent attention sizes must not be negative (kv_lora_rank {}, q_lora_rank {}, "
                     "qk_nope_head_dim {}, qk_rope_head_dim {}, v_head_dim {})",
                     m.mla.kv_lora_rank, m.mla.q_lora_rank, m.mla.qk_nope_head_dim, m.mla.qk_rope_head_dim,
                     m.mla.v_head_dim));
  if (m.mla.enabled() && m.mla.v_head_dim <= 0) fail("multi-head latent attention needs a positive v_head_dim");
  // Step3's low-rank query (ModelSpec::query_rank) is a non-MLA attention's; MLA has its own
  // q_lora_rank. A rank past the hidden width would be no factorization at all.
  if (m.query_rank < 0 || m.query_rank > m.hidden || (m.query_rank > 0 && m.mla.enabled()))
    fail(fmt::format("query_rank {} must be in 0..hidden_size ({}) and not beside multi-head latent attention "
                     "(whose query rank is q_lora_rank)",
                     m.query_rank, m.hidden));
  if (m.mtp_layers < 0) fail(fmt::format("MTP layers must not be negative, got {}", m.mtp_layers));
  if (m.moe.shared_experts < 0 || m.moe.shared_expert_ffn < 0)
    fail("moe shared experts and their intermediate size must not be negative");
  // Shapes far beyond any real model would overflow the 64-bit parameter and byte
  // counts: refuse them by their size in floating point first (the largest published
  // models have about 2e12 parameters).
  {
    const double experts = m.moe.enabled() ? static_cast<double>(m.moe.num_experts + m.moe.shared_experts) : 0.0;
    const double per_layer =
        4.0 * static_cast<double>(m.hidden) * static_cast<double>(std::max<std::int64_t>(
                                                   m.hidden, static_cast<std::int64_t>(m.heads) * m.head_dim)) +
        3.0 * static_cast<double>(m.hidden) *
            (static_cast<double>(m.ffn) + experts * static_cast<double>(std::max(m.moe.expert_ffn, m.moe.shared_expert_ffn)));
    const double params = static_cast<double>(m.layers) * per_layer + 2.0 * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
    if (!(params < 1e15))
      fail(fmt::format("these shapes (hidden_size {}, layers {}, intermediate_size {}, vocab_size {}) make about "
                       "{:.3g} parameters, far beyond any real model (about 2e12): check the sizes",
                       m.hidden, m.layers, m.ffn, m.vocab, params));
  }
  if (m.moe.enabled()) {
    if (m.moe.experts_per_token <= 0 || m.moe.experts_per_token > m.moe.num_experts)
      fail(fmt::format("experts_per_token {} must be in 1..{}", m.moe.experts_per_token, m.moe.num_experts));
    if (m.moe.expert_ffn <= 0) fail("moe.expert_intermediate_size must be positive");
    if (m.moe.dense_layers < 0 || m.moe.dense_layers > m.layers) fail("moe.dense_layers out of range");
    if (m.moe.layer_step < 1) fail(fmt::format("moe.layer_step {} must be at least 1", m.moe.layer_step));
  }
  if (m.dense_mlp_layers() > 0 && m.ffn <= 0) fail("mlp.intermediate_size must be positive");
  if (m.moe_layers() > m.mlp_layers())
    fail(fmt::format("{} MoE layers but only {} layers with an MLP", m.moe_layers(), m.mlp_layers()));
  if (!m.mlp_widths.empty()) {
    int listed = 0;
    for (const MlpWidthGroup& g : m.mlp_widths) {
      if (g.layers < 1 || (!g.linear && (g.ffn <= 0 || g.ffn > m.ffn)))
        fail(fmt::format("an MLP width group of {} layers, width {}, must have layers and a width in 1..{}", g.layers,
                         g.ffn, m.ffn));
      listed += g.linear ? 0 : g.layers;
    }
    if (listed != m.dense_mlp_layers())
      fail(fmt::format("the MLP width groups hold {} layers, the model {} dense MLP layers", listed,
                       m.dense_mlp_layers()));
  }
  if (m.local.kind != LocalAttention::Kind::none) {
    if (m.local.span <= 0) fail("the local attention span (sliding_window or attention_chunk) must be positive");
    if (m.local.layers < 1 || m.local.layers > m.attention_layers())
      fail(fmt::format("attention.local_layers {} must be in 1..{} (the model's attention layers)", m.local.layers,
                       m.attention_layers()));
    if (m.mla.enabled() && m.local.kind != LocalAttention::Kind::topk)
      fail("a sliding window or chunked attention with multi-head latent attention is not modelled");
  }
  if (m.indexer.enabled() && m.local.kind != LocalAttention::Kind::topk)
    fail("a sparse-attention indexer without top-k attention");
  if (m.indexer.enabled() && m.indexer.topk % m.indexer.block != 0)
    fail(fmt::format("the indexer's top {} keys are not whole blocks of {}", m.indexer.topk, m.indexer.block));
  if (m.state.kind != StateLayers::Kind::none) {
    if (m.state.layers < 1 || m.state.layers > m.layers)
      fail(fmt::format("{} state layers must be in 1..{}", m.state.layers, m.layers));
    // The short convolution has no recurrent state: no key width (key_dim 0).
    const bool short_conv = m.state.kind == StateLayers::Kind::short_conv;
    if (m.state.heads <= 0 || m.state.head_dim <= 0 || (m.state.key_dim <= 0 && !short_conv) ||
        m.state.conv_kernel < 1 || m.state.chunk < 1 || m.state.key_heads < 0 || m.state.dt_rank < 0)
      fail(fmt::format("state layers ({}) need positive heads, widths, conv kernel and chunk", m.state.kind_name()));
    if (short_conv && (m.state.key_heads != 0 || m.state.key_dim != 0 || m.state.dt_rank != 0))
      fail("short_conv state layers have no recurrent state: key_heads, key_dim and dt_rank must be 0");
  }
  if (m.moe.latent < 0) fail(fmt::format("moe latent width must not be negative, got {}", m.moe.latent));
  if (m.global_kv_heads > 0 && m.heads_of(true) % m.global_kv_heads != 0)
    fail(fmt::format("{} attention heads are not a multiple of {} global KV heads", m.heads_of(true),
                     m.global_kv_heads));
  // Query heads of their own on the global layers (Step-3.5-Flash, Laguna): whole KV groups,
  // and plain attention beside local layers (the local layers keep `heads`).
  if (m.global_heads < 0) fail(fmt::format("global query heads must not be negative, got {}", m.global_heads));
  if (m.global_heads > 0) {
    if (m.global_heads % m.kv_heads_of(true) != 0)
      fail(fmt::format("{} attention heads of the global layers are not a multiple of their {} KV heads",
                       m.global_heads, m.kv_heads_of(true)));
    if (m.mla.enabled() || m.compressed.enabled())
      fail("query heads per layer kind with multi-head latent or compressed attention are not modelled");
  }
  // KV heads per group of attention layers (Nemotron-51B): whole KV groups of `heads`, their
  // layers the attention layers, kv_heads the largest; not beside other per-kind shapes.
  if (!m.kv_head_groups.empty()) {
    int layers = 0, most = 0;
    for (const KvHeadGroup& g : m.kv_head_groups) {
      if (g.kv_heads <= 0 || g.layers <= 0)
        fail(fmt::format("kv_head_groups: a run of {} layers with {} KV heads; both must be positive", g.layers,
                         g.kv_heads));
      if (m.heads % g.kv_heads != 0)
        fail(fmt::format("kv_head_groups: {} attention heads are not a multiple of {} KV heads", m.heads, g.kv_heads));
      layers += g.layers;
      most = std::max(most, g.kv_heads);
    }
    if (layers != m.attention_layers())
      fail(fmt::format("kv_head_groups hold {} layers for {} attention layers", layers, m.attention_layers()));
    if (most != m.kv_heads)
      fail(fmt::format("kv_heads {} must be the largest of kv_head_groups' counts ({})", m.kv_heads, most));
    if (m.mla.enabled() || m.compressed.enabled() || m.local.kind != LocalAttention::Kind::none ||
        m.global_head_dim > 0 || m.global_kv_heads > 0 || m.global_k_eq_v || m.global_heads > 0)
      fail("kv_head_groups beside latent, compressed or local attention or global-layer shapes are not modelled");
  }
  if (m.position_table_rows < 0) fail(fmt::format("position_table_rows must not be negative, got {}", m.position_table_rows));
  if (m.embed_proj_dim < 0) fail(fmt::format("embed_proj_dim must not be negative, got {}", m.embed_proj_dim));
  if (m.global_head_dim < 0 || m.global_kv_heads < 0)
    fail("global_head_dim and num_global_key_value_heads must not be negative");
  // A value head width of 0 means "as wide as the key head"; a negative one would price
  // negative value projections and KV.
  if (m.v_head_dim < 0) fail(fmt::format("v_head_dim must not be negative, got {}", m.v_head_dim));
  if (m.v_head_dim > 0 && m.mla.enabled())
    fail("v_head_dim is the value head width of plain attention; multi-head latent attention has its own (mla)");
  if (m.compressed.enabled()) {
    const CompressedAttention& c = m.compressed;
    if (c.layers() != m.layers || m.state.enabled())
      fail(fmt::format("compressed attention on {} of {} layers: servesim models it on every layer, without state "
                       "layers",
                       c.layers(), m.layers));
    if (c.window < 1 || c.head_dim < 1 || c.q_lora_rank < 1 || c.o_groups < 1 || c.o_lora_rank < 1)
      fail("compressed attention needs a positive window, head_dim, q_lora_rank, o_groups and o_lora_rank");
    if (c.indexed_layers > 0 && !c.indexer.enabled())
      fail("compressed attention with ratio-4 layers needs an indexer (index_n_heads, index_head_dim, index_topk)");
    if (m.local.enabled() || m.mla.enabled() || m.indexer.enabled())
      fail("compressed attention with local attention, MLA or a DSA indexer beside it is not modelled");
  }
  if (m.hc_mult < 0) fail(fmt::format("hc_mult must not be negative, got {}", m.hc_mult));
  if (m.moe.hash_layers < 0 || m.moe.hash_layers > m.moe_layers())
    fail(fmt::format("{} hash-routed layers must be in 0..{} (the MoE layers)", m.moe.hash_layers, m.moe_layers()));
  if (m.attention_layers() < 0 || m.attention_layers() > m.layers)
    fail(fmt::format("{} attention layers must be in 0..{}", m.attention_layers(), m.layers));
  if (m.mlp_layers() < 0 || m.mlp_layers() > m.layers)
    fail(fmt::format("{} MLP layers must be in 0..{}", m.mlp_layers(), m.layers));
}

}  // namespace servesim
