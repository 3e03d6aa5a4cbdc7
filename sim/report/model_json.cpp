#include "report/model_json.h"

#include <fmt/format.h>

#include "util/units.h"

namespace servesim {

namespace {
const TensorGroup kGroups[] = {TensorGroup::attention, TensorGroup::dense_mlp, TensorGroup::experts,
                               TensorGroup::shared_experts, TensorGroup::state_layers};
}  // namespace

nlohmann::json model_json(const ModelSpec& m) {
  nlohmann::json j;
  j["architecture"] = m.architecture;
  j["layers"] = m.layers;
  j["attention_layers"] = m.attention_layers();
  j["params_total"] = m.total_params();
  j["params_active"] = m.active_params();
  j["params_active_all_tables"] = m.active_params_all_tables();
  j["params_active_counts"] = m.active_count_name();
  if (m.mtp_layers > 0) j["params_checkpoint_with_mtp"] = m.checkpoint_params();
  if (m.local.enabled())
    j["local_attention"] = {{"kind", m.local.kind == LocalAttention::Kind::chunked ? "chunked"
                                     : m.local.kind == LocalAttention::Kind::topk  ? "topk"
                                                                                   : "sliding"},
                            {"span_tokens", m.local.span},
                            {"layers", m.local.layers}};
  if (m.indexer.enabled())
    j["sparse_indexer"] = {{"heads", m.indexer.heads}, {"head_dim", m.indexer.head_dim}, {"topk", m.indexer.topk},
                           {"key_bytes_per_token_layer", m.indexer.key_bytes()}};
  // Block selection (MiniMax-M3's MSA) and an indexer on only some layers: said where they apply.
  if (m.indexer.enabled() && m.indexer.block > 1) {
    j["sparse_indexer"]["block_tokens"] = m.indexer.block;
    j["sparse_indexer"]["blocks"] = m.indexer.selected();
  }
  if (m.indexer.enabled() && m.indexer_layers() != m.attention_layers()) j["sparse_indexer"]["layers"] = m.indexer_layers();
  if (m.indexer.enabled() && m.indexer.key_pool > 1) j["sparse_indexer"]["key_pool_tokens"] = m.indexer.key_pool;
  if (m.indexer.enabled() && m.indexer.pool_when_scoring) j["sparse_indexer"]["keys_pooled_when_scoring"] = true;
  if (m.compressed.enabled()) {
    const CompressedAttention& c = m.compressed;
    nlohmann::json per_seq;
    for (const std::int64_t ctx : {8192LL, 131072LL})
      per_seq[std::to_string(ctx)] = {{"bf16", c.kv_bytes_per_sequence(ctx, 2.0)}, {"fp8", c.kv_bytes_per_sequence(ctx, 1.0)}};
    j["compressed_attention"] = {
        {"window_tokens", c.window},
        {"head_dim", c.head_dim},
        {"window_only_layers", c.window_layers},
        {"indexed_layers", c.indexed_layers},
        {"indexed_ratio", CompressedAttention::kIndexedRatio},
        {"dense_layers", c.dense_layers},
        {"dense_ratio", CompressedAttention::kDenseRatio},
        {"indexer", {{"heads", c.indexer.heads}, {"head_dim", c.indexer.head_dim}, {"topk", c.indexer.topk}}},
        {"kv_bytes_per_sequence", per_seq},
        {"compressed_kv_bytes_per_token_bf16", c.compressed_bytes_per_token(2.0)},
        {"window_kv_bytes_per_sequence_bf16", c.window_bytes_per_sequence(2.0)},
        {"compressor_state_bytes_per_sequence", c.compressor_state_bytes_per_sequence()}};
  }
  if (m.hc_mult > 0) j["hyper_connections"] = {{"streams", m.hc_mult}, {"params", m.hc_params()}};
  if (m.moe.hash_layers > 0) j["hash_routed_layers"] = {{"layers", m.moe.hash_layers}, {"table_params", m.hash_table_params()}};
  if (m.attention_sinks) j["attention_sinks"] = true;
  // LongCat-Flash's identity experts and LongCat-Flash-Lite's n-gram tables: shown only then.
  if (m.moe.zero_experts > 0)
    j["zero_computation_experts"] = {{"experts", m.moe.zero_experts},
                                     {"router_topk", m.moe.routed_topk},
                                     {"real_experts_per_token_expected", m.moe.experts_per_token},
                                     {"params_active_min", m.active_params_with_real_experts(0)},
                                     {"params_active_max", m.active_params_with_real_experts(m.moe.routed_topk)}};
  if (m.moe.vision_experts > 0)
    j["vision_experts"] = {{"experts", m.moe.vision_experts},
                           {"intermediate_size", m.moe.vision_expert_ffn},
                           {"params", static_cast<std::int64_t>(m.moe_layers()) * m.vision_expert_params_per_layer()}};
  if (m.ple.enabled())
    j["ple_ngram_embedding"] = {{"rows", m.ple.rows},
                                {"width", m.ple.width},
                                {"lookups_per_token", m.ple.lookups},
                                {"table_params", m.ple.table_params()},
                                {"table_bytes_per_weight", m.ple.table_bytes > 0 ? m.ple.table_bytes : 2.0},
                                {"projection_params", m.ple.projection_params(m.hidden)},
                                {"conv_state_elements_per_sequence", m.ple.conv_state_elements(m.hidden)}};
  if (m.hc_mult > 0 && m.hc_lowrank > 0) j["hyper_connections"]["low_rank"] = m.hc_lowrank;
  if (m.ngram.enabled())
    j["ngram_embedding"] = {{"tables", m.ngram.tables},
                            {"width", m.ngram.width},
                            {"table_params", m.ngram.table_params()},
                            {"projection_params", m.ngram.projection_params(m.hidden)}};
  if (!m.mlp_widths.empty()) {
    nlohmann::json groups = nlohmann::json::array();
    for (const MlpWidthGroup& g : m.mlp_widths)
      groups.push_back({{"layers", g.layers}, {"intermediate_size", g.ffn}, {"linear", g.linear}});
    j["dense_mlp_widths"] = groups;
  }
  if (m.v_head_dim > 0) j["v_head_dim"] = m.v_head_dim;
  if (m.query_rank > 0) j["query_rank"] = m.query_rank;  // Step3's low-rank query: shown only then
  // KV heads per group of attention layers (Nemotron-51B), a learned position table (GPT-2, OPT),
  // narrower token tables with their projections and no final norm (OPT-350m): shown only then.
  if (!m.kv_head_groups.empty()) {
    nlohmann::json groups = nlohmann::json::array();
    for (const KvHeadGroup& g : m.kv_head_groups) groups.push_back({{"kv_heads", g.kv_heads}, {"layers", g.layers}});
    j["kv_head_groups"] = groups;
  }
  if (m.position_table_rows > 0)
    j["position_table"] = {{"rows", m.position_table_rows}, {"params", m.position_table_params()}};
  if (m.embed_proj_dim > 0)
    j["embedding_projection"] = {{"table_width", m.embed_proj_dim}, {"params", m.embed_projection_params()}};
  if (!m.final_norm) j["final_norm"] = false;
  // Query heads per layer kind (Step-3.5-Flash, Laguna); shown only then, so other models'
  // output is as it was.
  if (m.global_heads > 0)
    j["attention_heads_by_kind"] = {{"global", {{"heads", m.heads_of(true)}, {"kv_heads", m.kv_heads_of(true)},
                                                {"head_dim", m.head_dim_of(true)}, {"layers", m.global_attention_layers()}}},
                                    {"local", {{"heads", m.heads_of(false)}, {"kv_heads", m.kv_heads_of(false)},
                                               {"head_dim", m.head_dim_of(false)},
                                               {"layers", m.local.enabled() ? m.local.layers : 0}}}};
  if (m.state.enabled())
    j["state_layers"] = {{"kind", m.state.kind_name()},
                         {"layers", m.state.layers},
                         {"heads", m.state.heads},
                         {"head_dim", m.state.head_dim},
                         {"key_heads", m.state.key_heads},
                         {"key_dim", m.state.key_dim},
                         {"conv_kernel", m.state.conv_kernel},
                         {"state_dtype", dtype_name(m.state.state_dtype)},
                         {"state_bytes_per_sequence", m.state_bytes_per_sequence(DType::bf16)}};
  if (m.moe.enabled())
    j["moe"] = {{"experts", m.moe.num_experts},
                {"experts_per_token", m.moe.experts_per_token},
                {"shared_experts", m.moe.shared_experts},
                {"moe_layers", m.moe_layers()},
                {"dense_mlp_layers", m.dense_mlp_layers()},
                {"expert_groups", m.moe.groups},
                {"topk_groups", m.moe.topk_groups},
                {"latent", m.moe.latent}};
  if (m.checkpoint.present) {
    nlohmann::json c;
    c["source"] = m.checkpoint.source;
    c["weights"] = dtype_name(m.native_dtype);
    c["weight_scheme"] = m.weight_groups.scheme;
    c["bytes_per_weight"] = m.weight_element_bytes(m.native_dtype);
    if (m.checkpoint.has_activations) c["activations"] = dtype_name(m.checkpoint.activations);
    if (m.checkpoint.has_kv_cache) c["kv_cache"] = dtype_name(m.checkpoint.kv_cache);
    for (TensorGroup g : kGroups)
      if (m.checkpoint.bytes(g) > 0)
        c["tensor_groups"][tensor_group_name(g)] = {{"bytes_per_weight", m.checkpoint.bytes(g)},
                                                    {"note", m.checkpoint.group_note[static_cast<int>(g)]}};
    j["checkpoint_precision"] = c;
  }
  if (m.vision_params_estimate > 0)
    j["vision_encoder"] = {{"params_estimate", m.vision_params_estimate}, {"modelled", false}};
  if (m.cross_attention_layers > 0)  // only then: other models' JSON unchanged
    j["cross_attention_layers"] = {{"layers", m.cross_attention_layers},
                                   {"params", m.cross_attention_params()},
                                   {"run_for_text", false}};
  if (m.kv_shared_global_layers + m.kv_shared_local_layers > 0)  // only then: other models' JSON unchanged
    j["kv_shared_layers"] = {{"global", m.kv_shared_global_layers},
                             {"local", m.kv_shared_local_layers},
                             {"hold_kv_proj", m.kv_shared_layers_hold_kv_proj}};
  if (m.gemma3n.enabled())
    j["per_layer_parts"] = {{"altup_streams", m.gemma3n.altup_streams},
                            {"laurel_rank", m.gemma3n.laurel_rank},
                            {"per_layer_embedding_width", m.gemma3n.ple_width},
                            {"per_layer_table_params", m.gemma3n.table_params(m.layers)},
                            {"params", m.gemma3n_params()}};
  if (m.layer_passes > 1)  // only then: other models' JSON unchanged
    j["looped"] = {{"passes", m.layer_passes},
                   {"stored_layers", m.layers / m.layer_passes},
                   {"layers_run", m.layers},
                   {"kv_per_pass", m.kv_shared_global_layers == 0},
                   {"early_exit", false}};
  if (m.shared_blocks.enabled()) {  // Zamba2 only: other models' JSON unchanged
    const SharedBlocks& b = m.shared_blocks;
    j["shared_blocks"] = {{"blocks", b.blocks},
                          {"uses", b.uses},
                          {"input_width", b.input_width},
                          {"adapter_rank", b.adapter_rank},
                          {"attention_adapters", b.attention_adapters},
                          {"mlp_adapters", b.mlp_adapters},
                          {"per_use_params", b.per_use_params(m.hidden, m.q_dim(), (m.gated_mlp ? 2 : 1) * m.ffn)},
                          {"kv_per_use", true}};
  }
  if (m.loop_gate_params > 0) {  // IQuest-Loop-Coder: later passes read the first pass's KV
    j["looped"]["later_passes_read_first_pass_kv"] = true;
    j["looped"]["gate_params"] = m.loop_gate_params;
    j["looped"]["window_tokens_not_priced"] = m.loop_window;
  }
  return j;
}

std::vector<std::string> model_notes(const ModelSpec& m) {
  std::vector<std::string> out;
  // Falcon-H1: both mixers side by side on every layer; Mamba, Mamba-2: no attention at all.
  // Zamba2: a shared block runs before the mixer on some layers, one after the other.
  if (m.shared_blocks.enabled() && m.state.enabled())
    out.push_back(fmt::format("layers: {} of {}; on {} of them a shared transformer block (attention and MLP) "
                              "runs first and feeds the mixer's input (a sequential hybrid: those layers cache KV "
                              "and every layer holds a state)",
                              m.state.describe(), m.layers, m.attention_layers()));
  else if (m.state.enabled() && m.attention_layers() + m.state.layers > m.layers)
    out.push_back(fmt::format("layers: {} with attention and {} of {}, side by side (a parallel hybrid: each layer "
                              "caches KV and holds a state)",
                              m.attention_layers(), m.state.describe(), m.layers));
  else if (m.state.enabled() && m.attention_layers() == 0)
    out.push_back(fmt::format("layers: no attention (a pure state-space model, no KV cache), {} of {}",
                              m.state.describe(), m.layers));
  else if (m.state.enabled())
    out.push_back(fmt::format("layers: {} with attention, {} of {}", m.attention_layers(), m.state.describe(), m.layers));
  else if (m.attention_layers() != m.layers && !m.compressed.enabled())
    out.push_back(fmt::format("layers: {} of {} with attention, {} with an MLP", m.attention_layers(), m.layers,
                              m.mlp_layers()));
  if (!m.mlp_widths.empty()) {
    std::string groups;
    for (const MlpWidthGroup& g : m.mlp_widths)
      groups += g.linear ? fmt::format("{}{} linear {}x{}", groups.empty() ? "" : ", ", g.layers, m.hidden, m.hidden)
                         : fmt::format("{}{} x {}", groups.empty() ? "" : ", ", g.layers, g.ffn);
    out.push_back(fmt::format("dense MLP widths differ by layer (layers x width): {}; each priced at its own shape",
                              groups));
  }
  if (m.state.enabled() && m.state.recurrent())
    out.push_back(fmt::format("state per sequence: {} over {} layers ({} recurrent state), the same at any context "
                              "length; the engine reserves a state slot per sequence, not KV blocks",
                              format_bytes(m.state_bytes_per_sequence(DType::bf16)), m.state.layers,
                              dtype_name(m.state.state_dtype)));
  else if (m.state.enabled())  // the short convolution: its last inputs only, at the activations' precision
    out.push_back(fmt::format("state per sequence: {} over {} layers (the convolution's last {} inputs per channel, "
                              "bf16), the same at any context length; the engine reserves a state slot per sequence, "
                              "not KV blocks",
                              format_bytes(m.state_bytes_per_sequence(DType::bf16)), m.state.layers,
                              m.state.conv_kernel - 1));
  if (m.indexer.enabled() && m.indexer.pool_when_scoring)
    out.push_back(fmt::format("sparse attention (Qwen QSA) on {} of {} layers: an indexer of {} heads x {} scores "
                              "every earlier block of {} tokens by the mean of their raw keys, the attention reads "
                              "the top {} blocks ({} keys); KV kept for all tokens (+{} raw index-key bytes per token "
                              "and layer)",
                              m.indexer_layers(), m.attention_layers(), m.indexer.heads, m.indexer.head_dim,
                              m.indexer.key_pool, m.indexer.selected(), m.indexer.topk, m.indexer.key_bytes()));
  else if (m.indexer.enabled() && m.indexer.block > 1)
    out.push_back(fmt::format("block-sparse attention (MiniMax MSA) on {} of {} layers: an indexer of {} heads x {} "
                              "scores every earlier token, the attention reads the top {} blocks of {} tokens ({} "
                              "keys); KV kept for all tokens (+{} index-key bytes per token and layer)",
                              m.indexer_layers(), m.attention_layers(), m.indexer.heads, m.indexer.head_dim,
                              m.indexer.selected(), m.indexer.block, m.indexer.topk, m.indexer.key_bytes()));
  else if (m.indexer.enabled())
    out.push_back(fmt::format("sparse attention (DSA): an indexer of {} heads x {} scores every earlier {}, the "
                              "attention reads the top {}; KV kept for all tokens (+{} indexer bytes per token and "
                              "layer){}",
                              m.indexer.heads, m.indexer.head_dim,
                              m.indexer.key_pool > 1 ? fmt::format("pool of {} tokens (one key each)", m.indexer.key_pool)
                                                     : std::string("token"),
                              m.indexer.topk, m.indexer.key_bytes(),
                              m.indexer_layers() < m.local.layers
                                  ? fmt::format("; an indexer of its own on {} of the {} layers, the others reuse the "
                                                "last selection",
                                                m.indexer_layers(), m.local.layers)
                                  : std::string()));
  if (m.compressed.enabled())
    out.push_back(fmt::format("{}; KV per sequence (bf16) {} at 8k tokens, {} at 128k: the window ({}) and the "
                              "compressors' fp32 state ({}) held per sequence like a state slot, {} per token in KV "
                              "blocks",
                              m.compressed.describe(), format_bytes(m.compressed.kv_bytes_per_sequence(8192, 2.0)),
                              format_bytes(m.compressed.kv_bytes_per_sequence(131072, 2.0)),
                              format_bytes(m.compressed.window_bytes_per_sequence(2.0)),
                              format_bytes(m.compressed.compressor_state_bytes_per_sequence()),
                              format_bytes(m.compressed.compressed_bytes_per_token(2.0))));
  if (m.hc_mult > 0 && m.hc_lowrank > 0)
    out.push_back(fmt::format("hyper-connections: {} residual streams mixed before and after each sublayer through "
                              "rank-{} mixers, no final norm ({:.1f}M 16-bit weights)",
                              m.hc_mult, m.hc_lowrank, static_cast<double>(m.hc_params()) / 1e6));
  else if (m.hc_mult > 0)
    out.push_back(fmt::format("hyper-connections: {} residual streams mixed before and after each sublayer ({:.1f}M "
                              "fp32 weights)",
                              m.hc_mult, static_cast<double>(m.hc_params()) / 1e6));
  if (m.ple.enabled())
    out.push_back(fmt::format("per-layer n-gram embedding (PLE): {} rows of {} a token from one table of {} rows "
                              "({:.2f}B weights{} on the GPUs, split over TP: in the total, not the active parameters; "
                              "vLLM's VLLM_PLE_CPU_OFFLOAD=1 keeps it in host memory instead, not modelled), "
                              "projected into the streams ({:.1f}M weights, priced), its convolution {} of state a "
                              "sequence",
                              m.ple.lookups, m.ple.width, m.ple.rows, static_cast<double>(m.ple.table_params()) / 1e9,
                              m.ple.table_bytes == 1.0 ? " at fp8, as the checkpoint's modules_to_convert lists it" : "",
                              static_cast<double>(m.ple.projection_params(m.hidden)) / 1e6,
                              format_bytes(static_cast<double>(m.ple.conv_state_elements(m.hidden)) * 2.0)));
  if (m.moe.hash_layers > 0)
    out.push_back(fmt::format("hash routing: the first {} MoE layers pick experts by token id (a {}-entry table each)",
                              m.moe.hash_layers, m.vocab * m.moe.experts_per_token));
  if (m.global_heads > 0)
    out.push_back(fmt::format("query heads per layer kind: {} on the {} full-attention layers, {} on the {} local "
                              "ones (q_proj, o_proj and the attention priced at each)",
                              m.heads_of(true), m.global_attention_layers(), m.heads_of(false),
                              m.local.enabled() ? m.local.layers : 0));
  if (!m.kv_head_groups.empty()) {
    std::string runs;
    for (const KvHeadGroup& g : m.kv_head_groups)
      runs += fmt::format("{}{} x {}", runs.empty() ? "" : ", ", g.layers, g.kv_heads);
    out.push_back(fmt::format("KV heads differ by attention layer (layers x KV heads): {}; KV cache, k/v_proj and KV "
                              "traffic at each",
                              runs));
  }
  if (m.position_table_rows > 0)
    out.push_back(fmt::format("learned position table: {} positions x {} ({:.2f}M weights, a row lookup per token)",
                              m.position_table_rows, m.hidden, static_cast<double>(m.position_table_params()) / 1e6));
  if (m.embed_proj_dim > 0)
    out.push_back(fmt::format("token tables {} wide, projected to and from hidden {} (project_in, project_out)",
                              m.embed_proj_dim, m.hidden));
  if (!m.final_norm && m.hc_lowrank == 0) out.push_back("no final norm (post-LN layers)");  // else said with the mixers
  if (m.attention_sinks) out.push_back("attention sinks: a learned logit per head (no KV)");
  if (m.moe.zero_experts > 0)
    out.push_back(fmt::format("zero-computation experts: the router picks {} of {} routed + {} identity experts, on "
                              "average {} real ones (priced so); active {:.2f}B-{:.2f}B a token by how many identity "
                              "experts it picks",
                              m.moe.routed_topk, m.moe.num_experts, m.moe.zero_experts, m.moe.experts_per_token,
                              static_cast<double>(m.active_params_with_real_experts(0)) / 1e9,
                              static_cast<double>(m.active_params_with_real_experts(m.moe.routed_topk)) / 1e9));
  if (m.moe.vision_experts > 0)
    out.push_back(fmt::format("vision experts: {} of width {} and their router on each MoE layer ({:.2f}B weights), "
                              "reached by image and video tokens only: in the total and the weights, not the active "
                              "count or a text token's work",
                              m.moe.vision_experts, m.moe.vision_expert_ffn,
                              static_cast<double>(m.moe_layers()) * static_cast<double>(m.vision_expert_params_per_layer()) / 1e9));
  if (m.ngram.enabled())
    out.push_back(fmt::format("n-gram embedding: {} hashed tables {} wide ({:.2f}B weights, a row lookup each per "
                              "token, in the total not the active parameters) projected to hidden ({:.1f}M weights, "
                              "not priced in step time)",
                              m.ngram.tables, m.ngram.width, static_cast<double>(m.ngram.table_params()) / 1e9,
                              static_cast<double>(m.ngram.projection_params(m.hidden)) / 1e6));
  if (m.query_rank > 0)
    out.push_back(fmt::format("low-rank query (multi-matrix factorization attention): hidden -> {} (replicated), a "
                              "norm, then -> {} heads x {} (split over TP), beside {}",
                              m.query_rank, m.heads, m.head_dim,
                              m.kv_heads == 1 ? std::string("one KV head") : fmt::format("{} KV heads", m.kv_heads)));
  if (m.v_head_dim > 0 && m.v_head_dim != m.head_dim)
    out.push_back(fmt::format("value heads of {} beside query/key heads of {} (v_proj, the cached values, o_proj)",
                              m.v_head_dim, m.head_dim));
  if (m.moe.enabled() && (m.moe.groups > 1 || m.moe.latent > 0))
    out.push_back(fmt::format("experts: {} routed (top {}), {} shared{}{}", m.moe.num_experts, m.moe.experts_per_token,
                              m.moe.shared_experts,
                              m.moe.groups > 1 ? fmt::format(", routed within {} of {} groups", m.moe.topk_groups,
                                                             m.moe.groups)
                                               : "",
                              m.moe.latent > 0 ? fmt::format(", run at a latent width of {}", m.moe.latent) : ""));
  if (m.checkpoint.present) {
    std::string groups;
    for (TensorGroup g : kGroups)
      if (m.checkpoint.bytes(g) > 0)
        groups += fmt::format("; {}: {}", tensor_group_name(g), m.checkpoint.group_note[static_cast<int>(g)]);
    out.push_back(fmt::format("checkpoint precision ({}): weights {}{}{}{}", m.checkpoint.source,
                              dtype_name(m.native_dtype),
                              m.checkpoint.has_activations ? ", activations " + dtype_name(m.checkpoint.activations) : "",
                              m.checkpoint.has_kv_cache ? ", KV cache " + dtype_name(m.checkpoint.kv_cache) : "",
                              groups));
  }
  if (m.cross_attention_layers > 0)
    out.push_back(fmt::format("cross-attention layers: {} beside the {} self-attention layers, {:.2f}B parameters "
                              "counted and held in memory, not run: engines skip them for a request without an "
                              "image, and servesim serves text (their image keys and values are not modelled)",
                              m.cross_attention_layers, m.layers,
                              static_cast<double>(m.cross_attention_params()) / 1e9));
  if (m.kv_shared_global_layers + m.kv_shared_local_layers > 0)
    out.push_back(fmt::format("KV sharing: the last {} layers ({} full, {} windowed) attend over the KV of the last "
                              "earlier layer of their kind and store none: {} of {} attention layers cache{}",
                              m.kv_shared_global_layers + m.kv_shared_local_layers, m.kv_shared_global_layers,
                              m.kv_shared_local_layers, m.cached_attention_layers(), m.attention_layers(),
                              m.kv_shared_layers_hold_kv_proj ? "" : " (the sharing layers hold no k/v projections)"));
  if (m.gemma3n.ple_width > 0)
    out.push_back(fmt::format("per-layer embeddings: a table of {:.2f}B parameters ({} rows x {} layers x {}), a "
                              "lookup: in the total and the memory, not in the active figure{}",
                              static_cast<double>(m.gemma3n.table_params(m.layers)) / 1e9, m.gemma3n.ple_rows,
                              m.layers, m.gemma3n.ple_width,
                              m.gemma3n.altup_streams > 0
                                  ? fmt::format("; AltUp over {} streams and LAuReL of rank {}", m.gemma3n.altup_streams,
                                                m.gemma3n.laurel_rank)
                                  : ""));
  // Gemma 3n's and Gemma 4 E-models' audio and vision encoders (timm's MobileNet-V5, a USM
  // conformer): no estimate is read from their configs; said rather than left silent.
  if (m.gemma3n.enabled() && m.vision_params_estimate == 0 &&
      m.architecture.find("ForConditionalGeneration") != std::string::npos)
    out.push_back("audio and vision encoders: NOT counted or loaded, and image and audio prefill not priced: "
                  "servesim serves the language model (Hugging Face's parameter figure includes them)");
  if (m.layer_passes > 1)
    out.push_back(fmt::format("looped: {} stored layers run {} times a token ({} layers run), the weights held once; "
                              "{}; every pass runs (no early exit, as vLLM serves it){}",
                              m.layers / m.layer_passes, m.layer_passes, m.layers,
                              m.kv_shared_global_layers > 0
                                  ? "each pass streams the weights again and the later ones attend over the first "
                                    "one's KV (the KV sharing above)"
                                  : "each pass has its own KV cache and streams the weights again",
                              m.loop_gate_params > 0
                                  ? fmt::format("; {} gate weights mix each later pass's two attentions per head "
                                                "(counted, their work not priced; its {}-token window attention "
                                                "and cache not priced either)",
                                                m.loop_gate_params, m.loop_window)
                                  : ""));
  if (m.shared_blocks.enabled()) {
    const SharedBlocks& b = m.shared_blocks;
    out.push_back(fmt::format(
        "shared blocks: {} transformer block{} (attention over [hidden; embedding], {} wide, and a gated MLP) held "
        "once and run on {} of the {} Mamba-2 layers in turn, each use with its own KV cache{} and a {} x {} "
        "linear map",
        b.blocks, b.blocks == 1 ? "" : "s", b.input_width, b.uses, m.layers,
        b.attention_adapters || b.mlp_adapters
            ? fmt::format(", rank-{} adapters on {}", b.adapter_rank,
                          b.attention_adapters && b.mlp_adapters ? "q, k, v and the MLP"
                          : b.attention_adapters                ? "q, k and v"
                                                                : "the MLP")
            : "",
        m.hidden, m.hidden));
  }
  if (m.vision_params_estimate > 0)
    out.push_back(fmt::format("vision encoder: about {:.2f}B parameters (from vision_config) NOT counted or loaded, "
                              "and image prefill not priced: servesim serves the language model",
                              static_cast<double>(m.vision_params_estimate) / 1e9));
  return out;
}

}  // namespace servesim
