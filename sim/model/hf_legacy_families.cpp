// Readers of dense families still widely deployed that vLLM serves and that differ from Llama in
// their field names, biases, norms or block layout:
//   - Llama's weights under other names: CWM, InternLM 1, decapoda's LLaMA, Fairseq2 Llama, Solar Pro,
//     TeleFLM, openPangu-Embedded (llama_alias), Baichuan 1 / 2, Step1 (ALiBi), OLMo 1;
//   - Llama variants: GLM-4-9B-chat-hf (GlmForCausalLM) and ChatGLM2/3 / GLM-4-9B-chat (ChatGLMModel),
//     Orion, TeleChat / TeleChat2, HyperCLOVA X SEED, Qwen (1), JAIS 2, PLaMo 3;
//   - the GPT-2 line, read in hf_gpt_line_families.cpp: GPT-2, StarCoder 1's GPTBigCode, GPT-J,
//     GPT-NeoX / Pythia, Falcon, Phi-1.5 / 2, StableLM, OPT, BLOOM, MPT, JAIS; and Persimmon here;
//   - refused, naming the missing piece: RNJ-1 (chunked attention with lookback), InternLM2-VE (a
//     visual-expert MLP per layer).
// Shapes as vLLM builds them (vllm-project/vllm vllm/model_executor/models/: llama.py, solar.py,
// orion.py, telechat2.py, rnj1.py, qwen.py, baichuan.py, chatglm.py, olmo.py, persimmon.py, step1.py,
// jais.py, jais2.py, plamo3.py, internlm2_ve.py, gpt2.py, gpt_bigcode.py, gpt_j.py, gpt_neox.py,
// falcon.py, phi.py, stablelm.py, opt.py, bloom.py, mpt.py, and the registry.py that maps each
// architecture to them) and as transformers' configuration classes default their fields
// (GPT2Config, GPTBigCodeConfig, GPTJConfig, GPTNeoXConfig, FalconConfig, PhiConfig, StableLmConfig,
// OPTConfig, BloomConfig, MptConfig, GlmConfig, CwmConfig, HyperCLOVAXConfig).
//
// One reader, read_legacy, sets what each family's block has from a few switches (which
// projections carry biases, LayerNorm or RMSNorm, gated or not, tied head, KV heads), after
// alias_legacy_fields has copied each family's own field names under the common ones. What
// servesim's ModelSpec cannot express is refused with the key, or, where it is a few weights, left
// out and said (warn(), and the comment of the family): servesim counts one norm before each
// sublayer and a final one (none with OPT-350m's post-LN layout). A learned absolute position
// table (GPT-2's and GPTBigCode's wpe, OPT's embed_positions, JAIS's with learned positions:
// positions x hidden weights, a row lookup per token) is counted: ModelSpec::position_table_rows.
// servesim has no term for
//   - the bias of an LM head (GPT-J, Phi: vocab weights) and BLOOM's embedding LayerNorm (2 x hidden);
//   - the single LayerNorm of a parallel block (GPT-J, Falcon-7B, Falcon2-11B, Phi, StableLM-2-12B):
//     counted as two, hidden (x 2 with a bias) a layer too many; OLMo 1's weightless LayerNorms too;
//   - post-norms (HyperCLOVA X's use_post_norm, PLaMo 3's: 2 x hidden a layer) and per-head q/k
//     LayerNorms (Persimmon, StableLM-2-12B; PLaMo 3's RMSNorms are counted: qk_head_norms).
// ALiBi (BLOOM, MPT, Falcon-RW, Baichuan-13B, Step1, JAIS) has no weights and changes no matrix
// shape: priced as attention over the same keys.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_legacy_common.h"
#include "util/error.h"
#include "util/warnings.h"

namespace servesim {
namespace legacy {

using nlohmann::json;

// `own` copied under `common` where the config gives only its own name.
void alias(json& t, const char* own, const char* common) {
  if (t.contains(own) && !t[own].is_null() && (!t.contains(common) || t[common].is_null())) t[common] = t[own];
}

// The context length where the config names it otherwise (vLLM's _get_and_verify_max_len reads
// these keys: n_positions, max_seq_len, seq_length, model_max_length, max_sequence_length); BLOOM's ALiBi
// configs may give none (servesim's default then applies).
void alias_context(json& t) {
  for (const char* k : {"n_positions", "max_seq_len", "seq_length", "model_max_length", "max_sequence_length"})
    alias(t, k, "max_position_embeddings");
}

void require_ffn(const JsonFields& f, const ModelSpec& m, const char* key) {
  if (m.ffn <= 0) throw Error(fmt::format("{}: {} must be positive, got {}", f.where(), key, m.ffn));
}

}  // namespace legacy

namespace {

using nlohmann::json;
using legacy::alias;
using legacy::alias_context;
using legacy::require_ffn;

// Llama's decoder as vLLM's llama.py builds it (CWM, InternLM 1, LLaMA, Fairseq2 Llama; Solar's
// solar.py the same): q, k, v with biases when attention_bias or `bias` (InternLM 1's name), or as
// qkv_bias says where given; o_proj with attention_bias or `bias`; gate, up and down with mlp_bias;
// silu only (LlamaMLP refuses another activation).
void read_llama_block(const JsonFields& f, ModelSpec& m, const char* family) {
  const std::string w = f.where();
  const bool bias = f.boolean("attention_bias", false) || f.boolean("bias", false);
  m.qkv_bias = f.boolean("qkv_bias", bias);
  m.attention_o_bias = bias;
  m.mlp_bias = f.boolean("mlp_bias", false);
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")
    throw Error(fmt::format("{}: hidden_act '{}': {}'s MLP is SwiGLU (vLLM's LlamaMLP runs silu only)", w, act,
                            family));
  m.gated_mlp = true;
  require_ffn(f, m, "intermediate_size");
}

// CWM (CwmForCausalLM; transformers' CwmConfig): Llama with a window of sliding_window on the
// layers layer_types marks "sliding_attention" (read_local_attention counts them); without
// layer_types CwmConfig makes layer i full attention when i % 4 == 0, the others sliding. The other
// aliases take a window only through layer_types (vLLM's llama.py reads a layer's window from them),
// Solar none (solar.py builds no window; Solar Pro's config carries a sliding_window 2047 no layer
// uses).
void read_llama_alias(const JsonFields& f, ModelSpec& m) {
  read_llama_block(f, m, m.architecture.c_str());
  const bool cwm = m.architecture == "CwmForCausalLM" || f.string("model_type", "") == "cwm";
  if (cwm) {
    if (m.local.enabled() && !f.has("layer_types")) m.local.layers = m.layers - (m.layers + 3) / 4;
    return;
  }
  if (m.architecture == "SolarForCausalLM" || !f.has("layer_types")) m.local = LocalAttention{};
}

// GLM-4-9B-chat-hf (GlmForCausalLM; transformers' modeling_glm.py, vLLM's glm.py, a Llama with
// these changes): q, k and v with biases (attention_bias, GlmConfig's default true), o_proj without;
// a fused gate_up_proj (hidden -> 2 x intermediate_size) and down_proj, SwiGLU; two RMSNorms a
// layer (GLM-4-0414's extra post-norms are not in this one); partial rotary (no weights); untied.
void read_glm(const JsonFields& f, ModelSpec& m) {
  refuse_mlp_bias(f, "GLM");
  m.qkv_bias = f.boolean("attention_bias", true);
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  require_ffn(f, m, "intermediate_size");
}

// Orion-14B (OrionForCausalLM; vLLM's orion.py): Llama's attention and SwiGLU without biases, but
// nn.LayerNorm (a weight and a bias) before each sublayer and at the end.
void read_orion(const JsonFields& f, ModelSpec& m) {
  read_llama_block(f, m, "Orion");
  m.norm_bias = true;
  m.local = LocalAttention{};
}

// TeleChat / TeleChat2 (vLLM's telechat2.py): LlamaModel read through TeleChat's names (n_layer,
// n_head, ffn_hidden_size, aliased below), silu whatever the config says, built with bias and
// mlp_bias and then with the biases of qkv_proj and gate_up_proj removed: o_proj (`dense`) and
// down_proj keep theirs. servesim's mlp_bias would add gate and up biases too (2 x ffn a layer), so
// the MLP is read without biases and down_proj's (hidden a layer: 0.002% of TeleChat2-7B) is not
// counted. Untied unless tie_word_embeddings says so.
void read_telechat2(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = false;
  m.attention_o_bias = true;
  m.mlp_bias = false;
  m.gated_mlp = true;
  m.local = LocalAttention{};
  require_ffn(f, m, "ffn_hidden_size");
}

// HyperCLOVA X SEED (HyperCLOVAXForCausalLM; transformers' modular_hyperclovax.py): Granite's
// decoder (q, k, v and o with attention_bias, the MLP with mlp_bias, RMSNorms; the muP multipliers
// have no weights) and, with use_post_norm, Peri-LN: an RMSNorm after each sublayer too (post_norm1,
// post_norm2: 2 x hidden a layer, not counted, said in a warning).
void read_hyperclovax(const JsonFields& f, ModelSpec& m) {
  read_llama_block(f, m, "HyperCLOVA X");
  m.attention_o_bias = m.qkv_bias = f.boolean("attention_bias", false);
  m.local = LocalAttention{};
  if (f.boolean("use_post_norm", false))
    warn(fmt::format("{}: use_post_norm: HyperCLOVA X's Peri-LN post-norms (2 x {} weights a layer, {} in all) are "
                     "not in servesim's parameter counts",
                     f.where(), m.hidden, 2 * m.hidden * m.layers));
}

// Qwen (1) (QWenLMHeadModel; vLLM's qwen.py): c_attn (hidden -> 3 x hidden, heads of hidden /
// heads) with a bias, c_proj without; an MLP of w1, w2 (hidden -> intermediate_size / 2 each: the
// gate and up of a SwiGLU) and c_proj back, without biases; RMSNorms; untied. Qwen-VL's `visual`
// tower is not counted (said in a warning).
void read_qwen1(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = true;
  m.attention_o_bias = false;
  m.mlp_bias = false;
  m.gated_mlp = true;
  m.kv_heads = m.heads;
  m.local = LocalAttention{};
  m.ffn = f.integer("intermediate_size") / 2;
  require_ffn(f, m, "intermediate_size");
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  if (f.has("visual"))
    warn(fmt::format("{}: Qwen-VL's visual tower (the `visual` config) is not in servesim's figures: the language "
                     "model is described, the image encoder left out",
                     f.where()));
}

// ChatGLM2 / ChatGLM3 / GLM-4-9B-chat under THUDM's remote code (ChatGLMModel; vLLM's chatglm.py):
// query_key_value gives heads + 2 x KV heads of hidden / heads (KV heads: multi_query_group_num with
// multi_query_attention, else the heads), with a bias when add_qkv_bias or add_bias_linear; dense,
// dense_h_to_4h (hidden -> 2 x ffn_hidden_size: SwiGLU) and dense_4h_to_h with add_bias_linear;
// RMSNorms with rmsnorm (else LayerNorms with biases); final_layernorm with post_layer_norm (true in
// every published config; false is refused: servesim always counts a final norm); the vocabulary
// padded_vocab_size; output_layer untied unless tie_word_embeddings. ChatGLM-6B (the first, GLM's
// 2D positions: inner_hidden_size, no multi_query fields) is another model: refused.
void read_chatglm(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (f.has("inner_hidden_size") || f.boolean("position_encoding_2d", false))
    throw Error(fmt::format("{}: inner_hidden_size / position_encoding_2d: this is the first ChatGLM-6B (GLM's 2D "
                            "positions), which vLLM's chatglm.py (ChatGLM2 and later) does not run and servesim does "
                            "not describe",
                            w));
  if (!f.boolean("post_layer_norm", true))
    throw Error(fmt::format("{}: post_layer_norm false: a ChatGLM without its final norm is not described by servesim",
                            w));
  const bool linear_bias = f.boolean("add_bias_linear", false);
  m.qkv_bias = f.boolean("add_qkv_bias", false) || linear_bias;
  m.attention_o_bias = m.mlp_bias = linear_bias;
  m.norm_bias = !f.boolean("rmsnorm", true);
  m.gated_mlp = true;
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  if (f.boolean("multi_query_attention", false)) {
    m.kv_heads = static_cast<int>(f.at_least("multi_query_group_num", 1));
    if (m.heads % m.kv_heads != 0)
      throw Error(fmt::format("{}: multi_query_group_num {} must divide num_attention_heads {}", w, m.kv_heads,
                              m.heads));
  } else {
    m.kv_heads = m.heads;
  }
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  m.local = LocalAttention{};
  require_ffn(f, m, "ffn_hidden_size");
}

// OLMo 1 (OlmoForCausalLM, the transformers port; vLLM's olmo.py): Llama's attention (q, k, v and o
// with biases when attention_bias) and SwiGLU without biases, and LayerNorms without weights
// (elementwise_affine false): servesim counts its usual (2 x layers + 1) x hidden norm weights, which
// OLMo does not have (266,240 in OLMo-7B, 0.004%). clip_qkv clamps activations (no weights).
void read_olmo(const JsonFields& f, ModelSpec& m) {
  refuse_mlp_bias(f, "OLMo");
  m.qkv_bias = m.attention_o_bias = f.boolean("attention_bias", false);
  m.gated_mlp = true;
  m.local = LocalAttention{};
  require_ffn(f, m, "intermediate_size");
}

// Persimmon-8B (PersimmonForCausalLM; vLLM's persimmon.py): query_key_value (hidden -> 3 x hidden)
// and dense with biases, per-head q_layernorm and k_layernorm (LayerNorms of head_dim with biases:
// 4 x head_dim a layer, not counted) with qk_layernorm; dense_h_to_4h (hidden -> intermediate_size)
// and dense_4h_to_h with biases around a squared ReLU (no gate); LayerNorms with biases; untied.
void read_persimmon(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = m.attention_o_bias = m.mlp_bias = m.norm_bias = true;
  m.gated_mlp = false;
  m.kv_heads = m.heads;
  m.local = LocalAttention{};
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  require_ffn(f, m, "intermediate_size");
}

// A window given as one integer (every layer) or as a list read cyclically (layer i takes entry i
// mod its length; null: full attention), as JAIS 2's interleaved_sliding_window and PLaMo 3's list
// sliding_window are; one window size only.
void read_window_list(const JsonFields& f, ModelSpec& m, const char* key) {
  const std::string w = f.where();
  const json& iw = f.doc()[key];
  std::int64_t span = 0;
  int layers = 0;
  auto window = [&](const json& x) {
    if (!x.is_number_integer() || x.get<std::int64_t>() <= 0)
      throw Error(fmt::format("{}: {} entries must be positive token counts or null, got {}", w, key,
                              excerpt(x.dump())));
    if (span > 0 && x.get<std::int64_t>() != span)
      throw Error(fmt::format("{}: {} lists windows of {} and {} tokens: servesim describes one window size", w, key,
                              span, x.get<std::int64_t>()));
    span = x.get<std::int64_t>();
  };
  if (iw.is_array()) {
    if (iw.empty()) throw Error(fmt::format("{}: {} is an empty list", w, key));
    for (int i = 0; i < m.layers; ++i) {
      const json& x = iw[static_cast<std::size_t>(i) % iw.size()];
      if (x.is_null()) continue;
      window(x);
      ++layers;
    }
  } else {
    window(iw);
    layers = m.layers;
  }
  if (layers > 0 && span < m.max_context) m.local = LocalAttention{LocalAttention::Kind::sliding, span, layers};
}

// JAIS 2 (Jais2ForCausalLM; vLLM's jais2.py): Llama's attention (q, k, v and o with biases when
// attention_bias or `bias`), an MLP without a gate (up_proj, squared ReLU, down_proj, biases with
// mlp_bias), nn.LayerNorms with biases before each sublayer and at the end; the head tied when
// tie_word_embeddings. A window only through interleaved_sliding_window: an integer on every layer,
// or a list read cyclically (layer i takes entry i mod its length; null: full attention).
void read_jais2(const JsonFields& f, ModelSpec& m) {
  m.qkv_bias = m.attention_o_bias = f.boolean("attention_bias", false) || f.boolean("bias", false);
  m.mlp_bias = f.boolean("mlp_bias", false);
  m.gated_mlp = false;
  m.norm_bias = true;
  require_ffn(f, m, "intermediate_size");
  m.local = LocalAttention{};
  if (f.has("interleaved_sliding_window")) read_window_list(f, m, "interleaved_sliding_window");
}

// PLaMo 3 (Plamo3ForCausalLM; vLLM's plamo3.py): qkv_proj and o_proj without biases, per-head q_norm
// and k_norm (RMSNorms of head_dim: counted, qk_head_norms), a SwiGLU without biases, and four
// RMSNorms a layer: pre_mixer_norm and pre_mlp_norm (counted as servesim's two) and post_mixer_norm
// and post_mlp_norm after the sublayers (2 x hidden a layer, NOT counted, as GLM-4-0414's). The
// layers layer_types marks "sliding_attention" attend within sliding_window (an integer, or a list
// by layer: vLLM's interleaved_sliding_window); a config without layer_types is refused (plamo3.py
// reads them per layer). The LM head pads its rows to a multiple of 16: the vocab_size rows are
// counted, the few padding rows not.
void read_plamo3(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  m.qkv_bias = m.attention_o_bias = m.mlp_bias = false;
  m.gated_mlp = true;
  m.qk_head_norms = true;
  require_ffn(f, m, "intermediate_size");
  if (!f.has("layer_types"))
    throw Error(fmt::format("{}: missing field 'layer_types': PLaMo 3's sliding and full-attention layers are read "
                            "from it (vLLM's plamo3.py)",
                            w));
  // A list was moved to interleaved_sliding_window (alias_legacy_fields, as vLLM renames it); an
  // integer window's "sliding_attention" layers were counted by read_local_attention.
  if (f.has("interleaved_sliding_window")) read_window_list(f, m, "interleaved_sliding_window");
}

// Step1 (Step1ForCausalLM; vLLM's step1.py): Llama's block (qkv_proj and o_proj with biases when
// attention_bias, a SwiGLU with mlp_bias, RMSNorms) under ALiBi (no position weights), heads of
// hidden / heads, KV heads num_attention_groups, else num_key_value_heads, else one; the head tied
// unless tie_word_embeddings says false (step1.py's default true).
void read_step1(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  m.qkv_bias = m.attention_o_bias = f.boolean("attention_bias", false);
  m.mlp_bias = f.boolean("mlp_bias", false);
  m.gated_mlp = true;
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  const std::int64_t kv = f.integer("num_attention_groups", f.integer("num_key_value_heads", 1));
  m.kv_heads = static_cast<int>(kv > 0 ? kv : 1);
  if (m.heads % m.kv_heads != 0)
    throw Error(fmt::format("{}: num_attention_groups {} must divide num_attention_heads {}", w, m.kv_heads, m.heads));
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  m.local = LocalAttention{};
  require_ffn(f, m, "intermediate_size");
}

}  // namespace

void alias_legacy_fields(nlohmann::json& t, HfFamily family) {
  switch (family) {
    case HfFamily::llama_alias:
    case HfFamily::baichuan:  // model_max_length
    case HfFamily::olmo:
    case HfFamily::persimmon:
    case HfFamily::qwen1: alias_context(t); return;  // decapoda's LLaMA: max_sequence_length; Qwen: seq_length
    case HfFamily::plamo3:
      // vLLM renames a list sliding_window (one entry a layer) to interleaved_sliding_window.
      if (t.contains("sliding_window") && t["sliding_window"].is_array()) {
        t["interleaved_sliding_window"] = t["sliding_window"];
        t.erase("sliding_window");
      }
      return;
    case HfFamily::chatglm:
      alias(t, "num_layers", "num_hidden_layers");
      alias(t, "ffn_hidden_size", "intermediate_size");
      // The embedding and output layer are padded_vocab_size rows (ChatGLMModel); vocab_size, where
      // a config also gives it, may be the tokenizer's.
      if (t.contains("padded_vocab_size") && !t["padded_vocab_size"].is_null()) t["vocab_size"] = t["padded_vocab_size"];
      alias_context(t);
      return;
    case HfFamily::telechat2:
      alias(t, "n_layer", "num_hidden_layers");
      alias(t, "n_head", "num_attention_heads");
      alias(t, "ffn_hidden_size", "intermediate_size");
      alias_context(t);
      t["hidden_act"] = "silu";  // telechat2.py sets it whatever the config says
      return;
    default: break;
  }
  if (legacy::is_gpt_line(family)) legacy::alias_gpt_line_fields(t, family);
}

void read_legacy(HfFamily family, const JsonFields& f, ModelSpec& m) {
  // Several readers divide by the head count (ChatGLM and Step1 take hidden / heads as head_dim).
  if (m.heads <= 0)
    throw Error(fmt::format("{}: num_attention_heads (or n_head, n_heads) must be positive, got {}", f.where(), m.heads));
  switch (family) {
    case HfFamily::llama_alias: read_llama_alias(f, m); return;
    case HfFamily::glm: read_glm(f, m); return;
    case HfFamily::orion: read_orion(f, m); return;
    case HfFamily::telechat2: read_telechat2(f, m); return;
    case HfFamily::hyperclovax: read_hyperclovax(f, m); return;
    case HfFamily::qwen1: read_qwen1(f, m); return;
    case HfFamily::baichuan:
      // Baichuan 1 / 2 (vLLM's baichuan.py): W_pack (q, k, v in one hidden -> 3 x hidden, no bias),
      // o_proj, a SwiGLU without biases, RMSNorms, untied (Baichuan2's NormHead is a vocab x hidden
      // weight, normalised at run time). The 13B models use ALiBi (no weights), the 7B RoPE.
      read_llama_block(f, m, "Baichuan");
      m.local = LocalAttention{};
      return;
    case HfFamily::chatglm: read_chatglm(f, m); return;
    case HfFamily::olmo: read_olmo(f, m); return;
    case HfFamily::persimmon: read_persimmon(f, m); return;
    case HfFamily::jais2: read_jais2(f, m); return;
    case HfFamily::step1: read_step1(f, m); return;
    case HfFamily::plamo3: read_plamo3(f, m); return;
    case HfFamily::rnj1:
      // vLLM's rnj1.py: Gemma 3's block, but its local layers (layer_types "chunked_attention") attend
      // within aligned chunks of sliding_window tokens with one chunk of lookback: between one and
      // two chunks of keys, which neither of servesim's local kinds (a sliding window, a chunk
      // without lookback) describes.
      throw Error(fmt::format("{}: RNJ-1's chunked attention with one chunk of lookback (layer_types "
                              "'chunked_attention', sliding_window) is not a local-attention kind servesim describes "
                              "(it has a sliding window and chunks without lookback); describe the model in a "
                              "models/*.yaml file instead",
                              f.where()));
    case HfFamily::internlm2_ve:
      // vLLM's internlm2_ve.py: every layer holds a second MLP (feed_forward_ve) that image tokens
      // run instead of the text MLP: weights servesim would have to count without running them for
      // text, and a per-token choice it does not price.
      throw Error(fmt::format("{}: InternLM2-VE's visual-expert MLP in every layer (feed_forward_ve beside "
                              "feed_forward, chosen per token by modality) is not a layer kind servesim describes; "
                              "describe the model in a models/*.yaml file instead",
                              f.where()));
    default: legacy::read_gpt_line(family, f, m); return;
  }
}

}  // namespace servesim
