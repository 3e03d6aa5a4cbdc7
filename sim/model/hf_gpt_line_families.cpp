// The GPT-2 line of hf_legacy_families.cpp's families: GPT-2, StarCoder 1's GPTBigCode, GPT-J,
// GPT-NeoX / Pythia, Falcon (and its remote-code RW configs), Phi-1 / 1.5 / 2, StableLM, OPT, BLOOM,
// MPT and JAIS: their field names (n_embd, n_layer, n_head, n_positions, n_inner; Falcon's and
// BLOOM's n_embed, n_head_kv; OPT's ffn_dim; MPT's d_model, n_layers, n_heads, max_seq_len,
// expansion_ratio) copied under the common ones, and one reader that sets each block's biases,
// norms, MLP, tied head and KV heads as vLLM builds them (vllm/model_executor/models/gpt2.py,
// gpt_bigcode.py, gpt_j.py, gpt_neox.py, falcon.py, phi.py, stablelm.py, opt.py, bloom.py, mpt.py,
// jais.py). What ModelSpec cannot count (LM-head biases, BLOOM's embedding
// LayerNorm, a parallel block's single norm) is listed in hf_legacy_families.cpp's header.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_legacy_common.h"
#include "util/error.h"

namespace servesim::legacy {

using nlohmann::json;

namespace {

// A width the config leaves null or out (GPT-2's n_inner, Falcon's ffn_hidden_size) as `mult` x
// hidden_size, as the configuration classes default it.
void default_width(json& t, const char* key, std::int64_t mult) {
  if ((!t.contains(key) || t[key].is_null()) && t.contains("hidden_size") && t["hidden_size"].is_number_integer())
    t[key] = mult * t["hidden_size"].get<std::int64_t>();
}

}  // namespace

bool is_gpt_line(HfFamily f) {
  return f == HfFamily::gpt2 || f == HfFamily::gpt_bigcode || f == HfFamily::gptj || f == HfFamily::gpt_neox ||
         f == HfFamily::falcon || f == HfFamily::phi || f == HfFamily::stablelm || f == HfFamily::opt ||
         f == HfFamily::bloom || f == HfFamily::mpt || f == HfFamily::jais;
}

void alias_gpt_line_fields(nlohmann::json& t, HfFamily family) {
  // GPT-2, GPTBigCode, GPT-J and Phi's first configs: n_embd, n_layer, n_head, n_positions, n_inner,
  // activation_function; Falcon's RW configs and BLOOM: n_embed, n_layer, n_head, n_head_kv;
  // OPT: ffn_dim; MPT: d_model, n_layers, n_heads, max_seq_len, expansion_ratio.
  for (const char* k : {"n_embd", "n_embed", "d_model"}) alias(t, k, "hidden_size");
  for (const char* k : {"n_layer", "n_layers"}) alias(t, k, "num_hidden_layers");
  for (const char* k : {"n_head", "n_heads"}) alias(t, k, "num_attention_heads");
  alias(t, "n_head_kv", "num_kv_heads");
  alias(t, "activation_function", "hidden_act");
  alias(t, "n_inner", "intermediate_size");
  alias(t, "ffn_hidden_size", "intermediate_size");
  alias(t, "ffn_dim", "intermediate_size");
  alias_context(t);
  if (family == HfFamily::jais && !t.contains("hidden_act")) t["hidden_act"] = "swiglu";  // JAISConfig's default
  if (family == HfFamily::falcon) {
    if (!t.contains("max_position_embeddings")) t["max_position_embeddings"] = 2048;  // FalconConfig's default
    // Falcon's remote-code configs say which block they have by model_type: "RefinedWeb" (40B, 180B)
    // is the new decoder architecture, "RefinedWebModel" (7B, RW-1B) the old one (vLLM's get_config
    // sets new_decoder_architecture so for both).
    const std::string type =
        t.contains("model_type") && t["model_type"].is_string() ? t["model_type"].get<std::string>() : "";
    if ((type == "RefinedWeb" || type == "RefinedWebModel") && !t.contains("new_decoder_architecture"))
      t["new_decoder_architecture"] = type == "RefinedWeb";
  }
  if (family == HfFamily::mpt && (!t.contains("intermediate_size") || t["intermediate_size"].is_null())) {
    // up_proj is int(expansion_ratio x d_model) wide (MptMLP; expansion_ratio 4 by default).
    const json r = t.contains("expansion_ratio") ? t["expansion_ratio"] : json(4);
    if (r.is_number() && t.contains("hidden_size") && t["hidden_size"].is_number_integer())
      t["intermediate_size"] =
          static_cast<std::int64_t>(r.get<double>() * static_cast<double>(t["hidden_size"].get<std::int64_t>()));
  }
  if (family == HfFamily::gpt2 || family == HfFamily::gpt_bigcode || family == HfFamily::gptj ||
      family == HfFamily::falcon || family == HfFamily::phi || family == HfFamily::jais)
    default_width(t, "intermediate_size", 4);
  // Heads read from these configs are the query heads; the common reader's num_key_value_heads
  // (absent in most) is replaced by each family's rule in read_gpt_line.
}

// The GPT-2 line. Which projections carry biases, the norms, the MLP, the tied head and the KV
// heads of each family; the table's comments give the modules.
void read_gpt_line(HfFamily family, const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  m.local = LocalAttention{};  // none of these has a window (GPT-Neo, which has, is another family)
  m.norm_bias = true;          // nn.LayerNorm: a weight and a bias (MPT without them: below)
  m.gated_mlp = false;         // fc_in / c_fc, an activation, fc_out / c_proj
  switch (family) {
    case HfFamily::gpt2:
    case HfFamily::gpt_bigcode: {
      // GPT-2 (vLLM's gpt2.py): wte, wpe, and per layer ln_1, c_attn (hidden -> 3 x hidden) and
      // c_proj with biases, ln_2, c_fc (hidden -> n_inner, 4 x hidden when null) and c_proj with
      // biases; ln_f; the head tied to wte (GPT2Config's default). GPTBigCode (gpt_bigcode.py:
      // StarCoder, SantaCoder) the same with multi_query (GPTBigCodeConfig's default true): c_attn
      // gives hidden + 2 x head_dim, one KV head.
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = true;
      m.tied_embeddings = f.boolean("tie_word_embeddings", true);
      if (family == HfFamily::gpt_bigcode && f.boolean("multi_query", true)) m.kv_heads = 1;
      else m.kv_heads = m.heads;
      require_ffn(f, m, "n_inner");
      m.position_table_rows = m.max_context;  // wpe: n_positions x hidden
      break;
    }
    case HfFamily::jais: {
      // JAIS (JAISLMHeadModel; vLLM's jais.py): GPT-2's attention (c_attn, c_proj with biases), a
      // SwiGLU MLP (activation_function "swiglu": c_fc and c_fc2 hidden -> n_inner, c_proj back,
      // all with biases), LayerNorms with biases, the head tied to wte. position_embedding_type
      // "alibi" (JAIS-13B, JAIS-30B) has no position weights; "learned" a wpe table (n_positions rows).
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = true;
      m.gated_mlp = f.string("hidden_act", "swiglu") == "swiglu";
      m.kv_heads = m.heads;
      m.tied_embeddings = f.boolean("tie_word_embeddings", true);
      require_ffn(f, m, "n_inner");
      if (f.string("position_embedding_type", "learned") != "alibi") m.position_table_rows = m.max_context;
      break;
    }
    case HfFamily::gptj: {
      // GPT-J (gpt_j.py): per layer one ln_1 before attention and MLP side by side; q_proj,
      // k_proj, v_proj and out_proj without biases; fc_in (hidden -> n_inner) and fc_out with
      // biases; ln_f; lm_head with a bias (vocab weights, not counted), untied (GPTJConfig).
      // Rotary on rotary_dim of each head: no weights. One norm a layer counted as two.
      m.qkv_bias = m.attention_o_bias = false;
      m.mlp_bias = true;
      m.kv_heads = m.heads;
      m.tied_embeddings = f.boolean("tie_word_embeddings", false);
      require_ffn(f, m, "n_inner");
      break;
    }
    case HfFamily::gpt_neox: {
      // GPT-NeoX, Pythia (gpt_neox.py): embed_in; per layer input_layernorm and
      // post_attention_layernorm (both, parallel residual or not), query_key_value (hidden -> 3 x
      // hidden) and dense with biases (attention_bias, GPTNeoXConfig's default true),
      // dense_h_to_4h (hidden -> intermediate_size) and dense_4h_to_h with biases;
      // final_layer_norm; embed_out untied without a bias (tie_word_embeddings default false).
      m.qkv_bias = m.attention_o_bias = f.boolean("attention_bias", true);
      m.mlp_bias = true;
      m.kv_heads = m.heads;
      m.tied_embeddings = f.boolean("tie_word_embeddings", false);
      require_ffn(f, m, "intermediate_size");
      break;
    }
    case HfFamily::falcon: {
      // Falcon (falcon.py, FalconConfig): query_key_value gives heads + 2 x KV heads of head_dim:
      // with new_decoder_architecture (40B, 180B) num_kv_heads of them, else one with
      // multi_query (7B; FalconConfig's default true) or one per head (Falcon-RW); dense; the MLP
      // dense_h_to_4h (hidden -> ffn_hidden_size, 4 x hidden by default), GELU, dense_4h_to_h;
      // biases on all four with `bias` (default false). Norms: ln_attn and ln_mlp with the new
      // architecture (num_ln_in_parallel_attn 2, the default), else input_layernorm, and
      // post_attention_layernorm unless parallel_attn (7B: one, counted as two). The head is tied
      // (tie_word_embeddings default true). alibi (Falcon-RW) has no weights.
      const bool bias = f.boolean("bias", false);
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = bias;
      if (f.boolean("new_decoder_architecture", false)) {
        m.kv_heads = static_cast<int>(f.integer("num_kv_heads", m.heads));
        if (m.kv_heads < 1 || m.heads % m.kv_heads != 0)
          throw Error(fmt::format("{}: num_kv_heads {} must divide num_attention_heads {}", w, m.kv_heads, m.heads));
      } else {
        m.kv_heads = f.boolean("multi_query", true) ? 1 : m.heads;
      }
      m.tied_embeddings = f.boolean("tie_word_embeddings", true);
      require_ffn(f, m, "ffn_hidden_size");
      break;
    }
    case HfFamily::phi: {
      // Phi-1, Phi-1.5, Phi-2 (phi.py, PhiConfig): one input_layernorm before attention and MLP
      // side by side (counted as two); q_proj, k_proj, v_proj (num_key_value_heads, the heads when
      // null) and dense with biases; fc1 (hidden -> intermediate_size) and fc2 with biases;
      // final_layernorm; lm_head with a bias (vocab weights, not counted), untied. qk_layernorm
      // (false in the published configs) would add per-head LayerNorms, not counted.
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = true;
      m.tied_embeddings = f.boolean("tie_word_embeddings", false);
      require_ffn(f, m, "intermediate_size");
      break;
    }
    case HfFamily::stablelm: {
      // StableLM 2 and StableLM-3B-4E1T (stablelm.py, StableLmConfig): q_proj, k_proj, v_proj
      // (biases with use_qkv_bias, default false) and o_proj without; a SwiGLU MLP without biases;
      // LayerNorms with biases: input_layernorm and post_attention_layernorm, only the first with
      // use_parallel_residual (StableLM-2-12B: counted as two); norm; lm_head untied. qk_layernorm
      // (StableLM-2-12B) adds per-head LayerNorms (heads + kv_heads) x head_dim a layer, not counted.
      m.qkv_bias = f.boolean("use_qkv_bias", false);
      m.attention_o_bias = false;
      m.mlp_bias = false;
      m.gated_mlp = true;
      m.tied_embeddings = f.boolean("tie_word_embeddings", false);
      require_ffn(f, m, "intermediate_size");
      break;
    }
    case HfFamily::opt: {
      // OPT (transformers' modeling_opt.py OPTDecoder, vLLM's opt.py): embed_tokens (vocab x
      // word_embed_proj_dim), embed_positions (max_position_embeddings + 2 rows of hidden: OPT's
      // offset of 2); per layer self_attn_layer_norm, q/k/v/out_proj with biases (enable_bias,
      // default true), final_layer_norm, fc1 (hidden -> ffn_dim) and fc2 with biases; the head tied.
      // word_embed_proj_dim other than hidden_size (OPT-350m: 512 beside 1024) adds project_in
      // (dim -> hidden) and project_out (hidden -> dim), nn.Linear without bias. The decoder's
      // final_layer_norm only with do_layer_norm_before (default true); OPT-350m's false is the
      // post-LN layout: the same two LayerNorms a layer (after each sublayer), no final one.
      const std::int64_t proj = f.integer("word_embed_proj_dim", m.hidden);
      if (proj < 1 || proj > m.hidden * 64)
        throw Error(fmt::format("{}: word_embed_proj_dim {} must be a positive width", w, proj));
      if (proj != m.hidden) m.embed_proj_dim = proj;
      m.final_norm = f.boolean("do_layer_norm_before", true) && !f.boolean("_remove_final_layer_norm", false);
      if (!f.boolean("layer_norm_elementwise_affine", true))
        throw Error(fmt::format("{}: layer_norm_elementwise_affine false: LayerNorms without weights are not "
                                "described by servesim",
                                w));
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = f.boolean("enable_bias", true);
      m.kv_heads = m.heads;
      m.tied_embeddings = f.boolean("tie_word_embeddings", true);
      require_ffn(f, m, "ffn_dim");
      m.position_table_rows = m.max_context + 2;  // OPTLearnedPositionalEmbedding's offset
      break;
    }
    case HfFamily::bloom: {
      // BLOOM (bloom.py, BloomConfig): word_embeddings and word_embeddings_layernorm (2 x hidden,
      // not counted); per layer input_layernorm, query_key_value (hidden -> 3 x hidden) and dense
      // with biases, post_attention_layernorm, dense_h_to_4h (hidden -> 4 x hidden) and
      // dense_4h_to_h with biases; ln_f; the head tied. ALiBi: no position weights.
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = true;
      m.kv_heads = m.heads;
      m.ffn = 4 * m.hidden;
      m.tied_embeddings = f.boolean("tie_word_embeddings", true);
      break;
    }
    case HfFamily::mpt: {
      // MPT (mpt.py, MptConfig): wte; per layer norm_1, attn.Wqkv (hidden -> hidden + 2 x KV
      // heads x head_dim: attn_config.kv_n_heads; one with attn_type multiquery_attention; else the
      // heads), out_proj, norm_2,
      // ffn.up_proj (hidden -> expansion_ratio x hidden), GELU, down_proj; norm_f; logits from wte
      // (no lm_head). no_bias (default true) leaves every projection and LayerNorm without a bias.
      // ALiBi only: vLLM's MPTAttention asserts attn_config.alibi, so a config without it (a
      // learned position table) is refused. qk_ln's LayerNorms are not counted.
      const bool bias = !f.boolean("no_bias", true);
      m.qkv_bias = m.attention_o_bias = m.mlp_bias = m.norm_bias = bias;
      m.tied_embeddings = true;
      const json& doc = f.doc();
      if (doc.contains("attn_config") && doc["attn_config"].is_object()) {
        const json& a = doc["attn_config"];
        if (a.contains("alibi") && a["alibi"].is_boolean() && !a["alibi"].get<bool>())
          throw Error(fmt::format("{}: attn_config.alibi false: MPT without ALiBi uses a learned position table, which "
                                  "vLLM's MPTAttention does not run (it asserts alibi) and servesim does not describe",
                                  w));
        if (a.contains("kv_n_heads") && !a["kv_n_heads"].is_null()) {
          if (!a["kv_n_heads"].is_number_integer() || a["kv_n_heads"].get<std::int64_t>() < 1 ||
              m.heads % a["kv_n_heads"].get<std::int64_t>() != 0)
            throw Error(fmt::format("{}: attn_config.kv_n_heads {} must be a positive divisor of n_heads {}", w,
                                    excerpt(a["kv_n_heads"].dump()), m.heads));
          m.kv_heads = static_cast<int>(a["kv_n_heads"].get<std::int64_t>());
        } else if (a.contains("attn_type") && a["attn_type"] == "multiquery_attention") {
          m.kv_heads = 1;  // llm-foundry's MultiQueryAttention: one KV head whatever kv_n_heads says
        } else {
          m.kv_heads = m.heads;
        }
      } else {
        m.kv_heads = m.heads;
      }
      require_ffn(f, m, "expansion_ratio");
      break;
    }
    default: break;
  }
}

}  // namespace servesim::legacy
