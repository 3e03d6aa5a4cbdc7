// 2026 mixture-of-experts families that reuse an existing reader once their config is read under
// the reader's field names (hf_families.h):
//   MistralLarge3ForCausalLM  DeepSeek-V3's decoder (read_deepseek): vLLM builds it as a subclass
//                             of DeepseekV3ForCausalLM and only renames the checkpoint's tensors
//                             (vllm-project/vllm vllm/model_executor/models/mistral_large_3.py),
//                             and the config it serves is Mistral's params.json remapped onto
//                             DeepSeek-V3's field names with model_type "deepseek_v3"
//                             (vllm/transformers_utils/configs/mistral.py, adapt_config_dict and
//                             _remap_moe_args, at 01da88c5bef903224038ae4e57d653964740dc04);
//   MiMoV2ForCausalLM         MiMo-V2.5 / V2.5-Pro (model_type "mimo_v2"): vLLM's registry builds
//                             it with MiMoV2FlashForCausalLM (vllm/model_executor/models/
//                             mimo_v2_flash.py at 01ed47b4166b26251895a9c298352fcdb2385149 reads the
//                             same fields: hybrid_layer_pattern, swa_* shapes, moe_layer_freq), so
//                             read_mimo_v2 reads it; the omnimodal V2.5's vision tower is estimated
//                             from its vision_config and left out as every wrapper's is, and its
//                             audio encoder (261M in V2.5, model card) is left out too;
//   Step3p5ForCausalLM        Step-3.5-Flash and the text model inside Step-3.7-Flash's
//                             Step3p7ForConditionalGeneration (read_step3p7 after
//                             alias_step3p5_fields below).
// and the readers of two families of their own:
//   AfmoeForCausalLM          Arcee Trinity Nano / Mini / Large (read_afmoe);
//   ExaoneMoEForCausalLM      LG's K-EXAONE (read_exaone_moe);
//   DeepseekForCausalLM       DeepSeek-MoE 16B, DeepSeek's first MoE (read_deepseek_moe: read_deepseek
//                             with multi-head attention and both tables in the active figure);
//   DbrxForCausalLM           Databricks' DBRX (read_dbrx after alias_dbrx_fields: Mixtral's
//                             experts under DBRX's nested field names);
//   BailingMoeForCausalLM     Ling v1 (Ling-lite, Ling-plus): vLLM's bailing_moe.py builds it and
//                             BailingMoeV2ForCausalLM with one BailingMoeModel (the v2 fields,
//                             use_qk_norm, n_group, moe_router_enable_expert_bias, default off),
//                             so read_bailing_moe_v2 reads it; norm_head normalises the LM head's
//                             rows at run time (no weights);
//   Grok1ModelForCausalLM     Grok-1 (read_grok1: Mixtral-like experts of GELU, four norms a layer);
//   HYV3ForCausalLM           Tencent's Hy3-preview (read_hy_v3).
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {

// moe_layers_enum: the MoE layers' indices as a comma-separated string ("3,4,5,...,44").
std::vector<std::int64_t> parse_layer_list(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) throw Error(fmt::format("{}: moe_layers_enum must be a string of comma-separated layer indices", where));
  std::vector<std::int64_t> out;
  std::stringstream in(v.get<std::string>());
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const auto last = item.find_last_not_of(" \t");
    const std::string digits = item.substr(first, last - first + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
      throw Error(fmt::format("{}: moe_layers_enum entry '{}' is not a layer index", where, excerpt(digits)));
    out.push_back(std::stoll(digits));
  }
  return out;
}

// Dense and MoE layers from a per-layer list: `moe[i]` true where layer i is MoE. A leading run
// of dense layers is servesim's dense_layers; any other order is counted (listed_layers).
void set_moe_layers(const std::vector<bool>& moe, ModelSpec& m) {
  int count = 0, leading_dense = 0;
  for (const bool x : moe) {
    if (x) ++count;
    else if (count == 0) ++leading_dense;
  }
  if (count + leading_dense == m.layers) m.moe.dense_layers = leading_dense;
  else m.moe.listed_layers = count;
}

// Which layers are dense and which MoE, as K-EXAONE's and Hy3's configs say it: mlp_layer_types
// ("dense" / "sparse" a layer), else is_moe_layer (true / false a layer), else the first
// first_k_dense_replace layers (default `default_dense`) dense.
void read_mlp_layer_kinds(const JsonFields& f, ModelSpec& m, std::int64_t default_dense) {
  const std::string w = f.where();
  std::vector<bool> moe(static_cast<std::size_t>(m.layers), true);
  if (f.has("mlp_layer_types")) {
    const std::vector<std::string> kinds = f.strings("mlp_layer_types");
    if (static_cast<int>(kinds.size()) != m.layers)
      throw Error(fmt::format("{}: mlp_layer_types lists {} layers, num_hidden_layers is {}", w, kinds.size(), m.layers));
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != "dense" && kinds[i] != "sparse")
        throw Error(fmt::format("{}: mlp_layer_types entries must be \"dense\" or \"sparse\", got '{}'", w,
                                excerpt(kinds[i])));
      moe[i] = kinds[i] == "sparse";
    }
  } else if (f.has("is_moe_layer")) {
    const nlohmann::json& list = f.doc()["is_moe_layer"];
    if (!list.is_array() || static_cast<int>(list.size()) != m.layers)
      throw Error(fmt::format("{}: is_moe_layer must list true or false for each of the {} layers", w, m.layers));
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_boolean())
        throw Error(fmt::format("{}: is_moe_layer entries must be true or false, got {}", w, excerpt(list[i].dump())));
      moe[i] = list[i].get<bool>();
    }
  } else {
    const std::int64_t dense = f.integer("first_k_dense_replace", default_dense);
    if (dense < 0 || dense > m.layers)
      throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {}]", w, dense,
                              m.layers));
    for (std::int64_t i = 0; i < dense; ++i) moe[static_cast<std::size_t>(i)] = false;
  }
  set_moe_layers(moe, m);
}

void require_silu(const JsonFields& f, const char* family) {
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")
    throw Error(fmt::format("{}: hidden_act '{}': vLLM's {} runs silu (SwiGLU) only", f.where(), act, family));
}

namespace {

// Routed experts as the AFMoE and EXAONE-MoE blocks build them: num_experts SwiGLU experts of
// moe_intermediate_size behind a gate hidden -> num_experts without bias, top num_experts_per_tok,
// and num_shared_experts folded into one SwiGLU MLP of moe_intermediate_size x num_shared_experts
// (vLLM's AfmoeMoE and ExaoneMoe: intermediate_size = config.moe_intermediate_size *
// config.num_shared_experts). The router's score-correction bias (num_experts fp32 values a layer,
// 128 or 256) is not counted.
void read_fine_grained_experts(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  const std::int64_t shared = f.integer("num_shared_experts", 0);
  if (shared < 0) throw Error(fmt::format("{}: num_shared_experts must be >= 0, got {}", w, shared));
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = m.moe.expert_ffn * shared;
  }
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
}


}  // namespace

// Arcee Trinity (AfmoeForCausalLM; vLLM's afmoe.py at 055e47c28003156421365af985d676fc921cb075,
// AfmoeAttention / AfmoeMoE / AfmoeDecoderLayer; Arcee, "Arcee Trinity Large Technical Report",
// arXiv:2602.17004, Table 1):
//   attention  GQA of head_dim without biases (qkv_proj, o_proj bias=False), a sigmoid output gate
//              gate_proj hidden -> heads x head_dim (servesim's attention_output_gate: the same
//              weights as Qwen3-Next's doubled q_proj), per-head q_norm and k_norm (counted:
//              qk_head_norms); sliding layers from layer_types (sliding_window), or, without the
//              list, every global_attn_every_n_layers-th layer (1-based) global;
//   MLP        the first num_dense_layers layers a SwiGLU MLP of intermediate_size, the others
//              routed experts plus a shared MLP (read_fine_grained_experts);
//   norms      four RMSNorms a layer (input, post_attention, pre_mlp, post_mlp: "depth-scaled
//              sandwich norm"); servesim counts two, so 2 x hidden a layer go uncounted (114,688
//              weights in Nano, 368,640 in Large, under 0.002%); muP's embedding scale has no weights.
// Arcee's active figures count the LM head and not the embedding: Nano's "800M non-embedding
// parameters active per token" (arcee.ai/blog/the-trinity-manifesto) is 0.819B so counted.
void read_afmoe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "AfmoeForCausalLM");
  refuse_mlp_bias(f, "AFMoE");
  m.gated_mlp = true;
  m.qkv_bias = false;  // bias=False whatever attention_bias says
  m.attention_o_bias = false;
  m.attention_output_gate = true;
  m.qk_head_norms = true;
  if (!f.has("layer_types") && m.local.enabled()) {
    const std::int64_t every = f.integer("global_attn_every_n_layers", 4);
    if (every < 1) throw Error(fmt::format("{}: global_attn_every_n_layers must be >= 1, got {}", w, every));
    const int sliding = m.layers - static_cast<int>(m.layers / every);
    if (sliding == 0) m.local = LocalAttention{};
    else m.local.layers = sliding;
  }
  read_fine_grained_experts(f, m);
  const std::int64_t dense = f.integer("num_dense_layers", 0);
  if (dense < 0 || dense >= m.layers)
    throw Error(fmt::format("{}: num_dense_layers {} must be within [0, num_hidden_layers = {})", w, dense, m.layers));
  m.moe.dense_layers = static_cast<int>(dense);
  if (dense > 0 && m.ffn <= 0)
    throw Error(fmt::format("{}: num_dense_layers {} dense layers need a positive intermediate_size", w, dense));
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

namespace {
// K-EXAONE's and Hy3's MLPs: routed + shared experts, dense or MoE per layer (the layer list
// rule read_mlp_layer_kinds reads, first_k_dense_replace 1 by default), at least one MoE layer
// and a width for the dense ones.
void read_dense_then_moe_layers(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  read_fine_grained_experts(f, m);
  read_mlp_layer_kinds(f, m, 1);
  if (m.moe_layers() == 0)
    throw Error(fmt::format("{}: no layer is MoE; servesim will not read {} as a dense model", w, m.architecture));
  if (m.moe_layers() < m.layers && m.ffn <= 0)
    throw Error(fmt::format("{}: {} dense layers need a positive intermediate_size", w, m.layers - m.moe_layers()));
}
}  // namespace

// K-EXAONE (ExaoneMoEForCausalLM; transformers' ExaoneMoeForCausalLM, model_type "exaone_moe";
// vLLM's exaone_moe.py at 055e47c28003156421365af985d676fc921cb075, ExaoneMoeAttention /
// ExaoneMoe / ExaoneMoeDecoderLayer; transformers' ExaoneMoeConfig):
//   attention  EXAONE 4.0's (read_exaone4: GQA of head_dim, biases refused, per-head q/k norms not
//              counted as EXAONE 4.0's are not, the window on layer_types or sliding_window_pattern)
//              but pre-norms (input_layernorm, post_attention_layernorm), two a layer as counted;
//   MLP        per layer from mlp_layer_types ("dense" / "sparse"), else is_moe_layer (one flag a
//              layer, as TensorRT-LLM's copy of the config writes it), else the first
//              first_k_dense_replace layers (ExaoneMoeConfig's default 1) dense: dense layers a
//              SwiGLU MLP of intermediate_size, the others routed experts plus a shared MLP
//              (read_fine_grained_experts);
//   MTP        num_nextn_predict_layers modules (ExaoneMoeMTP) are not counted: the model card's
//              236B is the main model's, as servesim's total is.
// LG's "23B activated" fits the LM head counted and not the embedding (see the test).
void read_exaone_moe(const JsonFields& f, ModelSpec& m) {
  require_silu(f, "ExaoneMoeForCausalLM");
  read_exaone4(f, m);
  read_dense_then_moe_layers(f, m);
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// DeepSeek-MoE 16B (DeepseekForCausalLM, model_type "deepseek"; vLLM's registry builds it from
// deepseek_v2.py, whose DeepseekV2ForCausalLM layers it shares without MLA; DeepSeek's remote
// modeling_deepseek.py): multi-head attention (q, k, v, o of num_attention_heads x head_dim, no
// biases unless attention_bias), first_k_dense_replace dense layers of intermediate_size, then
// MoE on every moe_layer_freq-th layer: n_routed_experts of moe_intermediate_size, top
// num_experts_per_tok, and n_shared_experts of the same size, a gate without bias. read_deepseek
// reads all of it; MLA fields here would make it a DeepSeek-V2 config under the wrong name, and
// are refused. Active figure: the DeepSeekMoE paper's 2.8B (of 16.4B) fits both tables counted
// (2.83B) and not the LM head alone (2.62B, -6.4%), unlike V3's 37B.
void read_deepseek_moe(const JsonFields& f, ModelSpec& m) {
  if (f.has("kv_lora_rank"))
    throw Error(fmt::format("{}: kv_lora_rank in a DeepseekForCausalLM config: DeepSeek-MoE v1 has multi-head "
                            "attention; a model with MLA is a DeepseekV2ForCausalLM",
                            f.where()));
  read_deepseek(f, m);
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

// DBRX's field names (transformers' DbrxConfig: d_model, n_heads, n_layers, max_seq_len, and the
// nested attn_config.kv_n_heads, ffn_config.ffn_hidden_size / moe_num_experts / moe_top_k /
// ffn_act_fn.name) copied under the common ones and Mixtral's, where the config does not give
// the latter (the text model's json, which the importer owns).
void alias_dbrx_fields(nlohmann::json& text, const std::string& where) {
  auto copy = [&](const nlohmann::json& from, const char* own, const char* common) {
    if (from.contains(own) && !from[own].is_null() && (!text.contains(common) || text[common].is_null()))
      text[common] = from[own];
  };
  copy(text, "d_model", "hidden_size");
  copy(text, "n_heads", "num_attention_heads");
  copy(text, "n_layers", "num_hidden_layers");
  copy(text, "max_seq_len", "max_position_embeddings");
  for (const char* nested : {"attn_config", "ffn_config"})
    if (text.contains(nested) && !text[nested].is_null() && !text[nested].is_object())
      throw Error(fmt::format("{}: {} must be an object", where, nested));
  if (text.contains("attn_config") && text["attn_config"].is_object()) {
    const nlohmann::json attn = text["attn_config"];
    copy(attn, "kv_n_heads", "num_key_value_heads");
  }
  if (text.contains("ffn_config") && text["ffn_config"].is_object()) {
    const nlohmann::json ffn = text["ffn_config"];
    copy(ffn, "ffn_hidden_size", "intermediate_size");
    copy(ffn, "moe_num_experts", "num_local_experts");
    copy(ffn, "moe_top_k", "num_experts_per_tok");
    if (ffn.contains("ffn_act_fn") && ffn["ffn_act_fn"].is_object()) copy(ffn["ffn_act_fn"], "name", "hidden_act");
  }
}

// DBRX (DbrxForCausalLM; vLLM's dbrx.py, transformers' modeling_dbrx.py): a fused Wqkv and
// out_proj without biases (GQA of d_model / n_heads, kv_n_heads KV heads; clip_qkv clamps, no
// weights), norm_1 and norm_2 LayerNorms without biases (one weight vector each: as servesim
// counts RMSNorms), and on every layer moe_num_experts SwiGLU experts (w1, v1, w2) of
// ffn_hidden_size, top moe_top_k, behind a router d_model -> moe_num_experts without bias
// (read_mixtral); an untied LM head. Databricks' 36B active fits both tables counted (36.47B;
// the LM head alone 35.85B fits too, -0.4%): both are counted, servesim's default.
void read_dbrx(const JsonFields& f, ModelSpec& m) {
  require_silu(f, "DbrxForCausalLM");
  read_mixtral(f, m);
  m.gated_mlp = true;
  m.qkv_bias = false;
  m.attention_o_bias = false;
}

// Hy3 (HYV3ForCausalLM, model_type "hy_v3"; transformers' HYV3Config, whose defaults are
// tencent/Hy3-preview's, and its modeling code's tensor plan): GQA of head_dim without biases
// (attention_bias, mlp_bias refused), per-head q_norm and k_norm (counted: qk_head_norms), dense
// layers of intermediate_size where mlp_layer_types (or first_k_dense_replace; HYV3Config's
// default: the first layer) says "dense", the others routed experts plus a shared MLP
// (read_fine_grained_experts). Its MTP layer (3.8B, listed apart on the card) is not counted.
void read_hy_v3(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  require_silu(f, "HYV3ForCausalLM");
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: Hy3-preview has no attention biases and servesim will not guess "
                            "where they sit",
                            w));
  refuse_mlp_bias(f, "Hy3");
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.qk_head_norms = true;
  read_dense_then_moe_layers(f, m);
}

// Grok-1 (Grok1ModelForCausalLM / Grok1ForCausalLM; vLLM's grok1.py at
// 02082de97f2591dfa000220e6835d4a42fa5efab, Grok1Attention / Grok1MoE / Grok1DecoderLayer): GQA
// of hidden_size / num_attention_heads (qkv_proj and o_proj without biases; the attention and
// output multipliers and the logit soft cap have no weights), and on every layer num_experts
// gated GELU experts (linear, linear_v, linear_1: gate, up, down) of intermediate_size, top
// num_experts_per_tok, behind a gate hidden -> num_experts without bias. Four RMSNorms a layer
// (pre/post attention, pre/post MoE): servesim counts two, 2 x hidden a layer uncounted (786,432
// weights in Grok-1, 0.0002%). Grok-2's configs name a residual MoE (residual_moe, a dense MLP of
// intermediate_size beside experts of moe_intermediate_size): not described, so refused.
void read_grok1(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.boolean("residual_moe", false) || f.has("moe_intermediate_size"))
    throw Error(fmt::format("{}: residual_moe / moe_intermediate_size: Grok-2's residual MoE (a dense MLP beside the "
                            "routed experts) is not described by servesim's Grok-1 reader; servesim will not price it "
                            "as Grok-1's experts",
                            w));
  if (f.has("head_dim") && f.integer("head_dim") * m.heads != m.hidden)
    throw Error(fmt::format("{}: head_dim {} x num_attention_heads {} differs from hidden_size {}: vLLM's Grok1Attention "
                            "takes hidden_size / num_attention_heads",
                            w, f.integer("head_dim"), m.heads, m.hidden));
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  // num_experts (vLLM reads it, default 8; TensorRT-LLM's copy of the config has it); some copies
  // write Mixtral's num_local_experts instead.
  m.moe.num_experts = static_cast<int>(f.has("num_experts") ? f.integer("num_experts") : f.integer("num_local_experts", 8));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok", 2));
  if (m.moe.num_experts < 1 || m.moe.experts_per_token < 1 || m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts {} and num_experts_per_tok {} must satisfy 1 <= top-k <= experts", w,
                            m.moe.num_experts, m.moe.experts_per_token));
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  m.gated_mlp = true;  // FusedMoE activation "gelu": gate and up, then down
  m.qkv_bias = false;
  m.attention_o_bias = false;
}

// LongCat-Flash, once refused here, has its reader (hf_longcat_family.cpp), as has Laguna
// (hf_laguna_family.cpp).

// Step-3.5-Flash's own field names (vLLM's step3p5.py at 01b50b9e8fbe085cdba0ace33dfb6e862ab9b627:
// Step3p5Attention, FusedMoEBlock, Step3p5DecoderLayer) copied under those read_step3p7 reads, where
// the config does not give the latter:
//   num_attention_groups  -> num_key_value_heads (the KV heads of qkv_proj);
//   moe_num_experts       -> num_experts (FusedMoE num_experts; gate hidden -> moe_num_experts);
//   moe_top_k             -> num_experts_per_tok;
//   share_expert_dim      -> n_shared_experts 1 (FusedMoEBlock always builds one share_expert MLP
//                            of share_expert_dim beside the routed experts);
//   moe_layers_enum       -> first_k_dense_replace: the listed layers are MoE, the others dense
//                            of intermediate_size; servesim models the dense layers as a leading
//                            run, so a list that is not every layer from some k on is refused.
// attention_other_setting (the sliding layers' own head counts) is left for read_step3p7, which
// gives the sliding layers that shape (ModelSpec::global_heads keeps the full layers').
void alias_step_common_fields(nlohmann::json& text) {
  auto copy = [&](const char* own, const char* common) {
    if (text.contains(own) && !text[own].is_null() && (!text.contains(common) || text[common].is_null()))
      text[common] = text[own];
  };
  copy("num_attention_groups", "num_key_value_heads");
  copy("moe_num_experts", "num_experts");
  copy("moe_top_k", "num_experts_per_tok");
}

void alias_step3p5_fields(nlohmann::json& text, const std::string& where) {
  alias_step_common_fields(text);
  if (text.contains("share_expert_dim") && text["share_expert_dim"].is_number_integer() &&
      text["share_expert_dim"].get<std::int64_t>() > 0 && !text.contains("n_shared_experts"))
    text["n_shared_experts"] = 1;
  if (text.contains("moe_layers_enum") && !text["moe_layers_enum"].is_null() &&
      !text.contains("first_k_dense_replace")) {
    if (!text.contains("num_hidden_layers") || !text["num_hidden_layers"].is_number_integer())
      throw Error(fmt::format("{}: moe_layers_enum needs num_hidden_layers", where));
    const std::int64_t layers = text["num_hidden_layers"].get<std::int64_t>();
    const std::vector<std::int64_t> listed = parse_layer_list(text["moe_layers_enum"], where);
    const std::set<std::int64_t> moe(listed.begin(), listed.end());
    if (moe.empty())
      throw Error(fmt::format("{}: moe_layers_enum lists no MoE layer; servesim will not read a Step-3.5 config as "
                              "a dense model",
                              where));
    const std::int64_t first = *moe.begin(), last = *moe.rbegin();
    if (last >= layers || static_cast<std::int64_t>(moe.size()) != layers - first)
      throw Error(fmt::format("{}: moe_layers_enum lists {} MoE layers from {} to {} of {}: servesim models the dense "
                              "layers as a leading run (every layer from the first MoE one on is MoE)",
                              where, moe.size(), first, last, layers));
    text["first_k_dense_replace"] = first;
  }
}

}  // namespace servesim
