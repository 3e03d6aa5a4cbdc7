// Thinking Machines Lab's Inkling (InklingForConditionalGeneration around its text model,
// InklingForCausalLM; model_type inkling_mm_model, text inkling_text / inkling_model), read as
// transformers builds it (huggingface/transformers@04fafa296134367ab5b7ce37a54c622644ccde5a:
// src/transformers/models/inkling/modeling_inkling.py; its configuration_inkling.py, and vLLM's
// vllm/models/inkling/configs.py for the field names):
//   attention  every layer: global ones num_attention_heads x head_dim with num_key_value_heads,
//              local (sliding) ones swa_num_attention_heads x swa_head_dim with
//              swa_num_key_value_heads over the last sliding_window_size tokens; local_layer_ids
//              (or layer_types "hybrid_sliding") names the local ones; no RoPE: relative-position
//              logits and short convolutions instead (RelativeAttention: d_rel, rel_extent,
//              sconv_kernel_size with use_sconv), q and k norms;
//   MLP        the first dense_mlp_idx layers dense (dense_intermediate_size), then
//              n_routed_experts of intermediate_size (top num_experts_per_tok) and n_shared_experts
//              of the same width, run for every token;
//   tables     embedding with its RMSNorm (embed_norm) and a separate LM head (never tied).
// servesim takes one head geometry for both kinds: the query heads and head width must agree,
// the KV heads may differ (ModelSpec::global_kv_heads, as Gemma 4's). The router's two rows for
// the shared experts (2 x hidden) are not counted; the MTP depths (mtp_config) are not counted.
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

void read_inkling(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  for (const auto& [swa, global] : {std::pair{"swa_num_attention_heads", "num_attention_heads"},
                                    std::pair{"swa_head_dim", "head_dim"}})
    if (f.has(swa) && f.integer(swa) != f.integer(global))
      throw Error(fmt::format("{}: {} {} differs from {} {}: servesim prices one query-head geometry for Inkling's "
                              "local and global layers (their KV heads may differ)",
                              w, swa, f.integer(swa), global, f.integer(global)));
  if (f.boolean("q_bias", false) || f.boolean("o_bias", false))
    throw Error(fmt::format("{}: q_bias / o_bias true: Inkling's attention projections have no biases", w));
  const int global_kv = m.kv_heads;
  const int local_kv = static_cast<int>(f.integer("swa_num_key_value_heads", global_kv));
  if (local_kv < 1) throw Error(fmt::format("{}: swa_num_key_value_heads must be at least 1, got {}", w, local_kv));
  m.kv_heads = local_kv;
  if (global_kv != local_kv) m.global_kv_heads = global_kv;

  // Which layers are local.
  int local = 0;
  if (f.has("local_layer_ids")) {
    std::set<std::int64_t> ids;
    for (const std::int64_t i : f.integers("local_layer_ids")) {
      if (i < 0 || i >= m.layers)
        throw Error(fmt::format("{}: local_layer_ids lists layer {}, outside 0 .. {}", w, i, m.layers - 1));
      ids.insert(i);
    }
    local = static_cast<int>(ids.size());
  } else if (f.has("layer_types")) {
    local = count_layer_types(f, "hybrid_sliding");
  } else {
    throw Error(fmt::format("{}: Inkling needs local_layer_ids (or layer_types) to tell its sliding-window layers "
                            "from its global ones",
                            w));
  }
  // The context: max_position_embeddings where given, else the tokenizer's model_max_length the
  // released config carries (1,048,576: RoPE-free, the positions have no table to bound them).
  if (!f.has("max_position_embeddings") && f.has("model_max_length"))
    m.max_context = f.at_least("model_max_length", 1);
  const std::int64_t window = f.at_least("sliding_window_size", 1);
  m.local = LocalAttention{};
  if (local > 0 && window < m.max_context) {
    m.local.kind = LocalAttention::Kind::sliding;
    m.local.span = window;
    m.local.layers = local;
  }

  RelativeAttention& r = m.rel;
  r.d_rel = static_cast<int>(f.at_least("d_rel", 1));
  r.extent_local = window;
  r.extent_global = f.at_least("rel_extent", 1);
  r.sconv_kernel = f.boolean("use_sconv", true) ? static_cast<int>(f.at_least("sconv_kernel_size", 1)) : 0;
  m.embedding_norm = f.boolean("use_embed_norm", true);
  m.tied_embeddings = false;  // embed and unembed are separate tensors, never tied

  // The MLP: dense first, then routed and shared experts of one width.
  m.ffn = f.at_least("dense_intermediate_size", 1);
  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} is more than n_routed_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
  if (m.moe.shared_experts < 0) throw Error(fmt::format("{}: n_shared_experts must be >= 0", w));
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.dense_layers = static_cast<int>(f.integer("dense_mlp_idx", 0));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers >= m.layers)
    throw Error(fmt::format("{}: dense_mlp_idx {} (the first MoE layer) must be within [0, num_hidden_layers = {})", w,
                            m.moe.dense_layers, m.layers));
  m.gated_mlp = true;
  // Thinking Machines' "41B active" fits both tables counted (41.05B).
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

}  // namespace servesim
