// Late-2026 architectures that are known ones under a new name, or a known one plus a part
// servesim already has (vLLM's registry of the time lists each; every reader below names the
// vLLM file it follows):
//   GraniteSWAForCausalLM     IBM granite-swash (model_type granite_swa): Granite's decoder with
//                             sliding-window layers (layer_types, sliding_window) and a learned
//                             sink logit per head (vllm-project/vllm@0949f0908d1ab0190030d2342b1c94fc4b3715f3:
//                             vllm/model_executor/models/granite_swa.py, GraniteSWAAttention.sinks);
//                             q/k/v and o biases with attention_bias, MLP biases with mlp_bias.
//   GraniteMoeSWAForCausalLM  its MoE sibling (granitemoe_swa): GraniteMoeShared's layers (the
//                             routed experts and an optional shared MLP of shared_intermediate_size)
//                             with the same windows and sinks (transformers' docs,
//                             model_doc/granitemoe_swa: "combines the MoE architecture of
//                             GraniteMoeShared with the sliding-window attention and learnable
//                             attention sinks of GraniteSWA").
//   HYV4ForCausalLM           Tencent Hy4-preview (model_type hy_v4; Tencent-Hunyuan/Hy4-preview
//                             README: "770B total parameters, of which 49B are activated", the MTP
//                             layer apart): DeepSeek-V3.2's decoder (MLA, DSA, DeepSeek MoE:
//                             read_deepseek) with four more parts, as vLLM's vllm/models/hy_v4 and
//                             a public mlx-lm port of transformers' modeling_hy_v4.py
//                             (HYV4Attention, HYV4HyperConnection) build them:
//                               a sigmoid output gate linear_gate hidden -> heads x v_head_dim
//                               (attention_output_gate, the MLA form);
//                               a learned sink logit per head (learnable_sink_param);
//                               an indexer only on the layers indexer_types marks "full", the
//                               "shared" ones reusing the last full layer's selection (its
//                               default: layer 0 and every fourth from 1);
//                               hc_mult independent hyper-connection streams (hc_independent).
//   MuseGlimmerForCausalLM    Meta's Muse Glimmer 30B (model_type muse_glimmer, text model
//   MuseGlimmerForConditionalGeneration  muse_glimmer_text): "a Gemma2 derivative"
//                             (vllm-project/vllm@055e47c28003156421365af985d676fc921cb075:
//                             vllm/model_executor/models/muse_glimmer.py): Gemma 2's dense layers
//                             with a SiLU gated MLP, an untied head, a sigmoid output gate per
//                             query channel read from the layer's input (output_gate_proj hidden
//                             -> heads x head_dim: attention_output_gate, counted and priced as
//                             Qwen3-Next's), and RoPE sliding-window layers among NoPE full ones.
//                             Its weightless q/k and embedding norms hold no weights; the four
//                             norms a layer are hidden-sized vectors, left out as for Gemma 2.
//   BailingMoeV3ForCausalLM   inclusionAI's Ling 3.0 (model_type bailing_hybrid, as Ling 2.5's;
//                             vllm-project/vllm@055e47c28003156421365af985d676fc921cb075:
//                             vllm/model_executor/models/bailing_moe_v3.py): layer i is Kimi delta
//                             attention unless (i + 1) % layer_group_size == 0 or it is past the
//                             last whole group (_is_kda_layer), then MLA; KDA over
//                             num_attention_heads x head_dim with both gates full rank (f_proj,
//                             g_proj: vLLM requires no_kda_lora) and three short convolutions of
//                             short_conv_kernel_size; MLA as DeepSeek-V2's (q_lora_rank or q_proj);
//                             Bailing's MoE (read_bailing_moe_v2). A head-wise output gate
//                             (gated_attention_proj_granularity_type "head_wise": g_proj hidden ->
//                             heads, 81,920 weights a layer in Ling-3.0-flash) is not counted; an
//                             element-wise one is (attention_output_gate). The MTP layer is not.
// Those that need no reader of their own are table entries in hf_families.cpp (Mellum as
// Qwen3-MoE, MiMo-V2.5's omni checkpoint as MiMo-V2, DeepSeek-V4's vision checkpoint as
// DeepSeek-V4, Gemma 4 Unified and EXAONE 4.5 by their text_config).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {

void read_granite_swa(const JsonFields& f, ModelSpec& m) {
  m.attention_o_bias = m.qkv_bias;  // GraniteSWAAttention: one `bias` for qkv_proj and o_proj
  m.mlp_bias = f.boolean("mlp_bias", false);
  m.attention_sinks = true;
}

void read_granite_moe_swa(const JsonFields& f, ModelSpec& m) {
  read_granite_moe(f, m);
  m.attention_sinks = true;
}

void read_hy_v4(const JsonFields& f, ModelSpec& m) {
  read_deepseek(f, m);
  if (f.has("mlp_layer_types")) read_mlp_layer_kinds(f, m, 1);
  m.attention_output_gate = true;
  m.attention_sinks = true;
  m.hc_mult = static_cast<int>(f.integer("hc_mult", 4));  // the port's ModelArgs default
  if (m.hc_mult < 0) throw Error(fmt::format("{}: hc_mult must be >= 0, got {}", f.where(), m.hc_mult));
  if (m.hc_mult == 1) m.hc_mult = 0;  // one stream: a plain residual
  m.hc_independent = true;
  if (m.indexer.enabled()) {
    int own = 0;
    if (f.has("indexer_types")) {
      const std::vector<std::string> types = f.strings("indexer_types");
      if (static_cast<int>(types.size()) != m.layers)
        throw Error(fmt::format("{}: indexer_types must give \"full\" or \"shared\" for each of the {} layers, got {}",
                                f.where(), m.layers, types.size()));
      for (const std::string& t : types) {
        if (t != "full" && t != "shared")
          throw Error(fmt::format("{}: indexer_types entries must be \"full\" or \"shared\", got \"{}\"", f.where(), t));
        own += t == "full";
      }
      if (types.front() != "full")
        throw Error(fmt::format("{}: indexer_types[0] is \"shared\": the first layer has no earlier selection to reuse",
                                f.where()));
    } else {
      for (int i = 0; i < m.layers; ++i) own += i == 0 || (i - 1) % 4 == 0;
    }
    m.indexer.own_layers = own;
  }
  // Tencent's 49B active fits both tables counted (49.06B; the LM head alone 48.32B), as its
  // Hy3-preview figures are read (read_hy_v3).
  m.active_count = ModelSpec::ActiveCount::all_tables;
}

// Which layers run the sliding window: layer_types when given; else the RoPE layers, which
// vLLM's MuseGlimmerAttention gives the window (no_rope_layers 1, or a layer_rope_theta other
// than 0), the NoPE ones attending to every key.
int muse_glimmer_sliding_layers(const JsonFields& f, int layers) {
  const int listed = count_layer_types(f, "sliding_attention");
  if (listed >= 0) return listed;
  const nlohmann::json& doc = f.doc();
  for (const char* key : {"no_rope_layers", "layer_rope_theta"}) {
    if (!f.has(key)) continue;
    if (!doc[key].is_array() || static_cast<int>(doc[key].size()) != layers)
      throw Error(fmt::format("{}: {} must list one number for each of the {} layers", f.where(), key, layers));
    int rope = 0;
    for (const nlohmann::json& x : doc[key]) {
      if (!x.is_number() || x.get<double>() < 0)
        throw Error(fmt::format("{}: {} entries must be numbers >= 0, got {}", f.where(), key, excerpt(x.dump())));
      rope += x.get<double>() != 0;
    }
    return rope;
  }
  throw Error(fmt::format("{}: Muse Glimmer needs layer_types (or no_rope_layers / layer_rope_theta) to tell its "
                          "sliding-window layers from its full-attention ones",
                          f.where()));
}

void read_muse_glimmer(const JsonFields& f, ModelSpec& m) {
  const std::string act = f.string("hidden_activation", f.string("hidden_act", "silu"));
  if (act != "silu")  // vLLM's MuseGlimmerMLP refuses any other
    throw Error(fmt::format("{}: Muse Glimmer's MLP is SiLU-gated; hidden_activation '{}' is not", f.where(), act));
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: Muse Glimmer's projections have no biases", f.where()));
  // Absent (the modular text_config omits it) means on; only an explicit false turns it off.
  m.attention_output_gate = f.boolean("use_attn_output_gate", true);
  if (m.local.kind == LocalAttention::Kind::sliding) {
    m.local.layers = muse_glimmer_sliding_layers(f, m.layers);
    if (m.local.layers == 0) m.local = LocalAttention{};
  }
}

void read_bailing_moe_v3(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  if (!f.boolean("no_kda_lora", false))
    throw Error(fmt::format("{}: Ling 3.0's KDA layers are read with both gates full rank, as vLLM builds them only "
                            "with no_kda_lora true; this config does not say so",
                            w));
  if (f.boolean("use_qkv_bias", false))
    throw Error(fmt::format("{}: use_qkv_bias true: Ling 3.0's projections have no biases", w));
  read_bailing_moe_v2(f, m);  // the MoE, the dense first layers, use_bias refused
  m.qkv_bias = false;
  const std::int64_t group = f.at_least("layer_group_size", 1);
  int kda = 0;
  for (int i = 0; i < m.layers; ++i)
    if (!((i + 1) % group == 0 || i >= m.layers / group * group)) ++kda;
  if (kda > 0) {
    StateLayers& s = m.state;
    s.kind = StateLayers::Kind::kda;
    s.layers = kda;
    s.heads = m.heads;
    s.head_dim = m.head_dim;
    s.key_heads = m.heads;
    s.key_dim = m.head_dim;
    s.conv_kernel = static_cast<int>(f.at_least("short_conv_kernel_size", 1));
    s.full_rank_gate = true;
    s.full_rank_forget = true;
    s.chunk = 64;                   // FLA's chunk_kda
    s.state_dtype = DType::fp32;    // vLLM's kda_state_dtype, as for Kimi Linear
  }
  read_mla(f, m);
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  const std::string gate = f.string("gated_attention_proj_granularity_type", "");
  if (gate == "element_wise")
    m.attention_output_gate = true;
  else if (!gate.empty() && gate != "head_wise" && gate != "none")
    throw Error(fmt::format("{}: gated_attention_proj_granularity_type '{}': head_wise, element_wise or none", w, gate));
  // inclusionAI's "approximately 5.1B parameters activated" fits the head counted and the input
  // table not (5.10B); with both 5.51B.
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// Late-2026 architectures servesim refuses, with the part it lacks (Sber's GigaChat 3.5 model
// card and vLLM's gigachat3_5.py; read for this list, not implemented: its released config's
// hidden size, vocabulary and linear-attention heads were not found).
std::string late2026_unsupported(const std::string& arch) {
  if (arch == "GigaChat35ForCausalLM")
    return ": GigaChat 3.5 mixes MLA layers (full_attention_layers) with GatedDeltaNet layers under DeepSeek's "
           "MoE; servesim reads gated delta rule layers beside GQA (Qwen3-Next) but not beside MLA";
  return "";
}

}  // namespace servesim
