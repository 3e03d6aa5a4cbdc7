#pragma once
// The model families a Hugging Face config.json is read as, and the readers of what each
// family adds to the common fields (hf_import.cpp reads layers, widths, heads, vocabulary,
// context and the local attention every family shares). A family is found from the
// architecture name or, inside a multimodal wrapper, the text model's architecture or
// model_type (Kimi-K2.5's text model is a DeepseekV3ForCausalLM; Ministral 3's a
// "ministral3" dense model).
#include <optional>
#include <string>
#include <vector>

#include "model/hf_config_fields.h"
#include "model/model_spec.h"

namespace servesim {

enum class HfFamily {
  dense,           // Llama, Mistral, Ministral, Qwen2/3, Qwen3-VL text, Yi, Granite, Nemotron, Gemma 2/3
  mixtral,         // Mixtral
  qwen_moe,        // Qwen2-MoE, Qwen3-MoE, Qwen3-VL-MoE text
  deepseek,        // DeepSeek-V2/V3/V3.2, Kimi-K2, GLM-5 (MLA + DSA), GLM-4.7-Flash
  llama4,          // Llama 4 (chunked attention, interleaved MoE)
  gpt_oss,         // gpt-oss (sinks, alternating sliding/full, MXFP4 experts)
  qwen_hybrid,     // Qwen3-Next, Qwen3.5 (gated delta rule + gated full attention)
  nemotron_h,      // Nemotron-H, Nemotron 3 (Mamba-2 / attention / MLP / MoE blocks)
  jamba,           // Jamba (Mamba + attention, MoE every other layer)
  granite_hybrid,  // Granite 4.0-H (Mamba-2 + attention, MoE with a shared MLP)
  minimax_m2,      // MiniMax-M2
  glm4_moe,        // GLM-4.5/4.6/4.7
  gemma4,          // Gemma 4 (its own global-layer shapes, MoE beside the dense MLP)
  step3p7,         // Step-3.7-Flash (sliding / full layer_types, DeepSeek-style MoE, MTP)
  mimo_v2,         // MiMo-V2-Flash (hybrid SWA / full with their own KV heads, narrower values, sinks)
  deepseek_v4,     // DeepSeek-V4 (compressed attention, hash-routed MoE, hyper-connections)
  kimi_linear,     // Kimi Linear, Kimi K3's text model (KDA + MLA layers, latent MoE, attention residuals)
  minimax_m3,      // MiniMax-M3 (block-sparse attention with an index branch, dense then MoE layers)
  mimo,            // MiMo-7B (Qwen2 dense with biases and MTP layers)
  nemotron_nas,    // Llama-Nemotron NAS models (DeciLM: per-layer FFN widths, attention-free layers)
  phi3,            // Phi-3, Phi-3.5-mini, Phi-4, Phi-4-mini (fused qkv / gate_up, no biases)
  qwen2_vl,        // Qwen2-VL, Qwen2.5-VL text model (Qwen2 dense with q/k/v biases; vision tower left out)
  ernie4_5,        // ERNIE 4.5 dense (use_bias on every projection refused)
  olmo2,           // OLMo 2, OLMo 3 (post-norms, q/k norms over the full width; OLMo 3's sliding layers)
  glm4,            // GLM-4-0414 dense (q/k/v biases, fused gate_up, two extra norms a layer)
  ernie4_5_moe,    // ERNIE 4.5 MoE text models (shared experts, MoE layers from a start index at an interval)
  gemma,           // Gemma 1 (GeGLU whatever hidden_act says, tied table)
  smollm3,         // SmolLM3 (Llama with NoPE layers; a window only on the NoPE layers)
  seed_oss,        // Seed-OSS (Llama with q/k/v biases by default, o_proj's own attention_out_bias)
  olmoe,           // OLMoE (64 experts top-8 on every layer, q/k norms over the full width)
  exaone4,         // EXAONE 4.0 (sliding / global layers, post-norms, per-head q/k norms)
  hunyuan_moe,     // Hunyuan-A13B (routed experts beside a shared MLP on every layer)
  hunyuan_dense,   // Hunyuan dense V1 (Llama with per-head q/k norms)
  bailing_moe_v2,  // Ling / Ring 2.0 (dense leading layers, grouped sigmoid routing, shared expert)
  cohere2,         // Command R7B, Command A (parallel attention + MLP, sliding 3:1, tied table)
  dots1,           // dots.llm1 (DeepSeek-style MoE over GQA attention)
  apertus,         // Apertus (xIELU MLP without a gate)
  falcon_h1,       // Falcon-H1 (attention and a Mamba-2 mixer in parallel in every layer)
  mamba2,          // Mamba-2 (pure SSM: Mamba-Codestral; no attention, no MLP)
  mamba,           // Mamba, Falcon Mamba (pure SSM: selective scan; no attention, no MLP)
  bamba,           // Bamba (Mamba-2 with attention on attn_layer_indices)
  // hf_more_2026_families.cpp:
  cohere,          // Command R / R+, Aya Expanse / Aya 23 (Cohere2's parallel block, no window)
  phimoe,          // Phi-3.5-MoE, Phi-tiny/mini-MoE (Mixtral's experts, biased attention, LayerNorms)
  minicpm,         // MiniCPM 1/2/4 (Llama with muP scalars; MiniCPM-MoE's experts)
  minicpm3,        // MiniCPM3 (MLA attention, as DeepSeek-V2's)
  internlm2,       // InternLM2 / 2.5 (packed wqkv, bias on wqkv and wo with `bias`)
  internlm3,       // InternLM3 (Llama with qkv_bias / bias)
  granite_moe,     // Granite 3.x MoE, GraniteMoeShared (top-k experts, an optional shared MLP)
  arcee,           // AFM (Llama with an ungated ReLU^2 MLP)
  starcoder2,      // StarCoder2 (biased attention, an ungated GELU MLP, a window on every layer)
  exaone,          // EXAONE 3.0 / 3.5 (Llama under GPT-2's field names: num_layers, activation_function)
  lfm2,            // LFM2, LFM2.5 (gated short convolutions + attention with q/k norms; LFM2-VL's text model)
  lfm2_moe,        // LFM2-MoE (the same layers, dense leading MLPs then routed experts)
  // hf_moe_2026_families.cpp (Mistral Large 3, MiMo-V2.5 and Step-3.5 are read by the deepseek,
  // mimo_v2 and step3p7 readers; that file says why):
  afmoe,           // Arcee Trinity (gated attention, sandwich norms, dense then routed + shared experts)
  exaone_moe,      // K-EXAONE (EXAONE 4.0's attention, dense then routed + shared experts)
  deepseek_moe,    // DeepSeek-MoE 16B (v1: DeepSeek's MoE over multi-head attention)
  dbrx,            // DBRX (Mixtral's experts under nested attn_config / ffn_config fields)
  grok1,           // Grok-1 (gated GELU experts on every layer, four norms a layer)
  hy_v3,           // Hy3-preview (GQA with q/k norms, dense then routed + shared experts)
  // hf_legacy_families.cpp (dense families still widely deployed):
  llama_alias,     // CWM, InternLM 1, LLaMA (decapoda), Fairseq2 Llama, Solar Pro (Llama's weights under vLLM)
  glm,             // GLM-4-9B-chat-hf (GlmForCausalLM: q/k/v biases, fused gate_up, no post-norms)
  orion,           // Orion-14B (Llama with LayerNorms)
  telechat2,       // TeleChat / TeleChat2 (Llama under n_layer / n_head, biases on o_proj and down_proj)
  hyperclovax,     // HyperCLOVA X SEED (Granite with optional Peri-LN post-norms)
  rnj1,            // RNJ-1 (Gemma 3 with chunked attention looking one chunk back: refused)
  gpt2,            // GPT-2 (learned positions, biases everywhere, LayerNorms, ungated GELU MLP)
  gpt_bigcode,     // StarCoder 1 / SantaCoder (GPT-2 with multi-query attention)
  gptj,            // GPT-J (parallel block with one LayerNorm, rotary, biased MLP and LM head)
  gpt_neox,        // GPT-NeoX-20B, Pythia (biases everywhere, two LayerNorms, untied head)
  falcon,          // Falcon 7B / 40B / 180B, Falcon-RW (multi-query or grouped KV, parallel block)
  phi,             // Phi-1, Phi-1.5, Phi-2 (parallel block with one LayerNorm, biases everywhere)
  stablelm,        // StableLM 2, StableLM-3B-4E1T (LayerNorms, SwiGLU, optional q/k/v biases)
  opt,             // OPT (learned positions, biases everywhere, ReLU MLP)
  bloom,           // BLOOM (ALiBi, biases everywhere, an embedding LayerNorm)
  mpt,             // MPT (ALiBi, no biases by default, ungated GELU MLP of expansion_ratio)
  qwen1,           // Qwen (1) (QWenLMHeadModel: biased c_attn, a SwiGLU of intermediate_size / 2)
  baichuan,        // Baichuan 1 / 2 (Llama's weights, W_pack; ALiBi on the 13B)
  chatglm,         // ChatGLM2 / 3, GLM-4-9B-chat (remote code: multi_query_group_num, padded_vocab_size)
  olmo,            // OLMo 1 (Llama with LayerNorms without weights)
  persimmon,       // Persimmon (biases everywhere, squared-ReLU MLP, per-head q/k LayerNorms)
  jais,            // JAIS (GPT-2 with a SwiGLU MLP and ALiBi or learned positions)
  internlm2_ve,    // InternLM2 with a visual-expert MLP (Mono-InternVL's language model: refused)
  jais2,           // JAIS 2 (Llama's attention, an ungated squared-ReLU MLP, LayerNorms)
  step1,           // Step1 (Llama's block with ALiBi, num_attention_groups KV heads, tied by default)
  plamo3,          // PLaMo 3 (per-head q/k norms, post-norms, sliding / full layer_types)
  // hf_hyb_families.cpp:
  minimax_text01,     // MiniMax-Text-01, MiniMax-M1 (lightning attention + softmax every 8th, MoE)
  nemotron_h_puzzle,  // Nemotron-H Puzzle (Nemotron-H blocks, each MoE block its own width and top-k)
  bailing_moe_v2_5,   // Ling / Ring 2.5 (lightning attention + MLA every layer_group_size-th, Ling 2.0's MoE)
  olmo_hybrid,        // OLMo Hybrid (Gated DeltaNet + OLMo 2 attention, dense SwiGLU)
  // hf_rest_2026_families.cpp:
  cohere2_moe,      // Cohere2Moe: North Mini Code, Command A+ (Cohere's parallel block, routed + shared experts)
  arctic,           // Snowflake Arctic (a dense residual MLP beside the MoE, read as a shared expert)
  pangu_pro_moe,    // Pangu Pro MoE (biased GQA, grouped experts MoGE, a shared expert)
  pangu_ultra_moe,  // openPangu Ultra MoE (DeepSeek-V3's decoder under Huawei's field names)
  sarvam_mla,       // Sarvam 105B (MLA, dense then routed + shared experts)
  sarvam_moe,       // Sarvam 30B (Ling 2.0's decoder; Sarvam's active count)
  axk1,             // A.X K1 (DeepSeek-V3's decoder, a norm after each MoE block)
  param2_moe,       // Param-2 (GQA with q/k norms, dense then routed + shared experts)
  // hf_laguna_family.cpp:
  laguna,  // poolside Laguna (query heads per layer kind, softplus head gate, dense then routed + shared)
  // hf_longcat_family.cpp:
  longcat_flash,  // LongCat-Flash (two MLA + MLP sublayers a block, MoE with identity experts; Lite's n-gram tables)
  // hf_ernie_vl_family.cpp:
  ernie4_5_vl_moe,  // ERNIE-4.5-VL (ERNIE 4.5's MoE decoder with vision experts beside the text ones)
  // hf_late_2026_families.cpp:
  granite_swa,      // IBM granite-swash (Granite with windows and sinks)
  granite_moe_swa,  // its MoE sibling (GraniteMoeShared's layers with windows and sinks)
  hy_v4,            // Tencent Hy4 (DeepSeek-V3.2's decoder, gated MLA with sinks, shared indexers, iHC)
  muse_glimmer,     // Meta Muse Glimmer (Gemma 2's dense decoder with a SiLU MLP and an output gate)
  bailing_moe_v3,   // inclusionAI Ling 3.0 (KDA with full-rank gates beside MLA, Bailing's MoE)
  // hf_inkling_family.cpp:
  inkling,          // Thinking Machines' Inkling (RoPE-free GQA with relative logits and short convolutions, MoE)
  // hf_glm5_next_family.cpp:
  glm5_next,  // GLM-5.3-Flash (KDA + NoPE MLA with pooled-key DSA, dense then routed + shared, mHC)
  // hf_qwen4_exp_family.cpp:
  qwen4_exp,  // Qwen3.8-Flash-Next (Qwen3.5-MoE's layers, low-rank hyper-connections, QSA, PLE n-gram table)
  // hf_mllama_family.cpp:
  mllama,  // Llama 3.2 Vision (Llama 3.1's layers plus cross-attention layers, held and skipped for text)
  // hf_looped_family.cpp:
  ouro,  // Ouro (a looped model: its layers run total_ut_steps times, weights once, KV per pass)
  iquest_loop_coder,  // IQuest-Loop-Coder (looped: later loops read the first loop's KV)
  // hf_zamba2_family.cpp:
  zamba2,  // Zamba2 (Mamba-2 on every layer, shared transformer blocks with per-use adapters on some)
  // hf_plamo2_family.cpp:
  plamo2,  // PLaMo 2 (Mamba layers with B, C, dt from the conv, attention every mamba_step)
  // hf_gemma3n_family.cpp:
  gemma3n,  // Gemma 3n (AltUp, LAuReL, per-layer embeddings, KV shared by its last layers)
  // hf_step3_family.cpp:
  step3,  // StepFun's Step3 (MFA: low-rank query, one KV head; dense or routed + shared experts by moe_layers_enum)
};

// The family of a text model from its architecture name, or from its model_type (a wrapper's
// text_config without architectures: Mistral3ForConditionalGeneration holds a "ministral3");
// nullopt: unknown.
std::optional<HfFamily> family_of_architecture(const std::string& architecture);
std::optional<HfFamily> family_of_model_type(const std::string& model_type);
// The architectures servesim reads (for the refusal of an unknown one).
std::vector<std::string> supported_hf_architectures();
bool is_moe_family(HfFamily f);

// Family readers: MoE shapes, layer kinds, attention details. `f` reads the text model's fields.
void read_mixtral(const JsonFields& f, ModelSpec& m);
void read_qwen_moe(const JsonFields& f, ModelSpec& m);
void read_deepseek(const JsonFields& f, ModelSpec& m);
void read_llama4_moe(const JsonFields& f, ModelSpec& m);
void read_gpt_oss(const JsonFields& f, ModelSpec& m);
void read_qwen_hybrid(const JsonFields& f, ModelSpec& m);
void read_nemotron_h(const JsonFields& f, ModelSpec& m);
void read_jamba(const JsonFields& f, ModelSpec& m);
void read_granite_hybrid(const JsonFields& f, ModelSpec& m);
void read_minimax_m2(const JsonFields& f, ModelSpec& m);
void read_glm4_moe(const JsonFields& f, ModelSpec& m);
void read_gemma4(const JsonFields& f, ModelSpec& m);
void read_step3p7(const JsonFields& f, ModelSpec& m);
void read_mimo_v2(const JsonFields& f, ModelSpec& m);
void read_deepseek_v4(const JsonFields& f, ModelSpec& m);
void read_kimi_linear(const JsonFields& f, ModelSpec& m);
void read_minimax_m3(const JsonFields& f, ModelSpec& m);
void read_mimo(const JsonFields& f, ModelSpec& m);
void read_nemotron_nas(const JsonFields& f, ModelSpec& m);  // hf_nas_family.cpp
void read_phi3(const JsonFields& f, ModelSpec& m);          // hf_more_families.cpp
void read_qwen2_vl(const JsonFields& f, ModelSpec& m);      // hf_more_families.cpp
void read_ernie4_5(const JsonFields& f, ModelSpec& m);      // hf_more_families.cpp
void read_olmo2(const JsonFields& f, ModelSpec& m);         // hf_recent_families.cpp
void read_glm4(const JsonFields& f, ModelSpec& m);          // hf_recent_families.cpp
void read_ernie4_5_moe(const JsonFields& f, ModelSpec& m);  // hf_recent_families.cpp
void read_gemma(const JsonFields& f, ModelSpec& m);         // hf_recent_families.cpp
void read_smollm3(const JsonFields& f, ModelSpec& m);       // hf_recent_families.cpp
void read_seed_oss(const JsonFields& f, ModelSpec& m);      // hf_recent_families.cpp
void read_olmoe(const JsonFields& f, ModelSpec& m);         // hf_2026_families.cpp
void read_exaone4(const JsonFields& f, ModelSpec& m);       // hf_2026_families.cpp
void read_hunyuan(const JsonFields& f, ModelSpec& m);       // hf_2026_families.cpp (MoE and dense)
void read_bailing_moe_v2(const JsonFields& f, ModelSpec& m);  // hf_2026_families.cpp
void read_cohere2(const JsonFields& f, ModelSpec& m);       // hf_2026_families.cpp
void read_dots1(const JsonFields& f, ModelSpec& m);         // hf_2026_families.cpp
void read_apertus(const JsonFields& f, ModelSpec& m);       // hf_2026_families.cpp
void read_falcon_h1(const JsonFields& f, ModelSpec& m);     // hf_falcon_h1_family.cpp
void read_mamba2(const JsonFields& f, ModelSpec& m);        // hf_ssm_families.cpp
void read_mamba(const JsonFields& f, ModelSpec& m);         // hf_ssm_families.cpp
void read_bamba(const JsonFields& f, ModelSpec& m);         // hf_ssm_families.cpp
// Families without attention layers (no num_attention_heads in their configs).
bool is_attention_free_family(HfFamily f);
void read_cohere(const JsonFields& f, ModelSpec& m);        // hf_more_2026_families.cpp
void read_phimoe(const JsonFields& f, ModelSpec& m);        // hf_more_2026_families.cpp
void read_minicpm(const JsonFields& f, ModelSpec& m);       // hf_more_2026_families.cpp (1/2/4 and 3)
void read_internlm(const JsonFields& f, ModelSpec& m);      // hf_more_2026_families.cpp (2 and 3)
void read_granite_moe(const JsonFields& f, ModelSpec& m);   // hf_more_2026_families.cpp
void read_arcee(const JsonFields& f, ModelSpec& m);         // hf_more_2026_families.cpp
void read_starcoder2(const JsonFields& f, ModelSpec& m);    // hf_more_2026_families.cpp
void read_exaone(const JsonFields& f, ModelSpec& m);        // hf_more_2026_families.cpp
// EXAONE 3.x's own field names copied under the common ones before those are read (the text
// model's json, which the importer owns).
void alias_exaone_fields(nlohmann::json& text);

// Pieces readers share. hf_families.cpp: DeepSeek-V2's MLA fields (DeepSeek, MiniCPM3).
// hf_2026_families.cpp: a refusal of mlp_bias true naming the family; Cohere's block (no
// biases, tied head: Command R and Cohere2); a Llama decoder with an ungated MLP (Apertus, AFM).
void read_mla(const JsonFields& f, ModelSpec& m, std::int64_t v_head_dim_default = 0);
void refuse_mlp_bias(const JsonFields& f, const char* family);
void read_cohere_block(const JsonFields& f, ModelSpec& m, const char* family);
void read_ungated_llama(const JsonFields& f, ModelSpec& m, const char* family);
void read_lfm2(const JsonFields& f, ModelSpec& m);          // hf_lfm2_family.cpp
void read_lfm2_moe(const JsonFields& f, ModelSpec& m);      // hf_lfm2_family.cpp
void read_minimax_text01(const JsonFields& f, ModelSpec& m);     // hf_hyb_families.cpp
void read_nemotron_h_puzzle(const JsonFields& f, ModelSpec& m);  // hf_hyb_families.cpp
void read_bailing_moe_v2_5(const JsonFields& f, ModelSpec& m);   // hf_hyb_families.cpp
void read_olmo_hybrid(const JsonFields& f, ModelSpec& m);        // hf_hyb_families.cpp
// Why servesim refuses an architecture of that group (": ..." for the refusal), or "".
std::string hyb_known_unsupported(const std::string& arch);      // hf_hyb_families.cpp

// hf_moe_2026_families.cpp: Step-3.5-Flash's field names (moe_num_experts, moe_top_k,
// num_attention_groups, share_expert_dim, moe_layers_enum) copied under those read_step3p7 reads
// (the text model's json, which the importer owns); `where` names the file in an error.
void alias_step3p5_fields(nlohmann::json& text, const std::string& where);
void read_afmoe(const JsonFields& f, ModelSpec& m);         // hf_moe_2026_families.cpp
void read_exaone_moe(const JsonFields& f, ModelSpec& m);    // hf_moe_2026_families.cpp
void read_deepseek_moe(const JsonFields& f, ModelSpec& m);  // hf_moe_2026_families.cpp
void read_dbrx(const JsonFields& f, ModelSpec& m);          // hf_moe_2026_families.cpp
void read_grok1(const JsonFields& f, ModelSpec& m);         // hf_moe_2026_families.cpp
void read_hy_v3(const JsonFields& f, ModelSpec& m);         // hf_moe_2026_families.cpp
// DBRX's nested field names (d_model, attn_config.kv_n_heads, ffn_config.moe_num_experts ...)
// copied under the common and Mixtral's ones, as alias_step3p5_fields does.
void alias_dbrx_fields(nlohmann::json& text, const std::string& where);
// hf_legacy_families.cpp: the GPT-2 / GPT-NeoX / Falcon / OPT / BLOOM / MPT field names (n_embd,
// n_layer, n_head, ffn_dim, d_model, ...) copied under the common ones before those are read (as
// alias_exaone_fields; a no-op for other families), and the reader of every family listed there.
void alias_legacy_fields(nlohmann::json& text, HfFamily family);
void read_legacy(HfFamily family, const JsonFields& f, ModelSpec& m);

// `linear` gated delta-rule layers (Qwen3-Next / Qwen3.5's linear_* fields, which OLMo Hybrid
// shares; hf_hybrid_families.cpp): heads, widths, conv kernel, FLA's chunk, the state's dtype.
void read_gated_delta_layers(const JsonFields& f, ModelSpec& m, int linear);

// hf_rest_2026_families.cpp: openPangu Ultra MoE's field names (num_routed_experts,
// attention_q_lora_dim, num_dense_layers, ...) copied under DeepSeek-V3's (a no-op for other
// families), the group's readers, and what servesim lacks for an architecture of the group it
// refuses (": ..." for the importer's refusal), or "".
void alias_rest2026_fields(nlohmann::json& text, HfFamily family);
void read_cohere2_moe(const JsonFields& f, ModelSpec& m);
void read_arctic(const JsonFields& f, ModelSpec& m);
void read_pangu_pro_moe(const JsonFields& f, ModelSpec& m);
void read_pangu_ultra_moe(const JsonFields& f, ModelSpec& m);
void read_sarvam_mla(const JsonFields& f, ModelSpec& m);
void read_sarvam_moe(const JsonFields& f, ModelSpec& m);
void read_axk1(const JsonFields& f, ModelSpec& m);
void read_param2_moe(const JsonFields& f, ModelSpec& m);
std::string rest2026_unsupported(const std::string& arch);
// hf_laguna_family.cpp: poolside's Laguna (num_attention_heads_per_layer split by layer kind).
void read_laguna(const JsonFields& f, ModelSpec& m);
// hf_longcat_family.cpp: LongCat-Flash and LongCat-Flash-Lite (num_layers blocks of two sublayers).
void alias_longcat_fields(nlohmann::json& text, const std::string& where);
void read_longcat_flash(const JsonFields& f, ModelSpec& m);
// hf_ernie_vl_family.cpp: ERNIE-4.5-VL in Baidu's layout and transformers' native one.
void read_ernie4_5_vl_moe(const JsonFields& f, ModelSpec& m);
// hf_recent_families.cpp: what ERNIE 4.5's text and VL MoE readers share (biases refused, SwiGLU, tying).
void read_ernie4_5_moe_common(const JsonFields& f, ModelSpec& m);
// hf_late_2026_families.cpp: granite-swash, dense and MoE.
void read_granite_swa(const JsonFields& f, ModelSpec& m);
void read_granite_moe_swa(const JsonFields& f, ModelSpec& m);
void read_hy_v4(const JsonFields& f, ModelSpec& m);
void read_muse_glimmer(const JsonFields& f, ModelSpec& m);
void read_bailing_moe_v3(const JsonFields& f, ModelSpec& m);
void read_inkling(const JsonFields& f, ModelSpec& m);  // hf_inkling_family.cpp
// What servesim lacks for a late-2026 architecture it refuses (": ..." for the refusal), or "".
std::string late2026_unsupported(const std::string& arch);
// hf_glm5_next_family.cpp: GLM-5.3-Flash, flat or in a text_config.
void read_glm5_next(const JsonFields& f, ModelSpec& m);
// hf_qwen4_exp_family.cpp: Qwen3.8-Flash-Next, flat or in a text_config.
void read_qwen4_exp(const JsonFields& f, ModelSpec& m);
void read_mllama(const JsonFields& f, ModelSpec& m);  // hf_mllama_family.cpp
void read_ouro(const JsonFields& f, ModelSpec& m);    // hf_looped_family.cpp
void read_iquest_loop_coder(const JsonFields& f, ModelSpec& m);  // hf_looped_family.cpp
void read_zamba2(const JsonFields& f, ModelSpec& m);             // hf_zamba2_family.cpp
void read_plamo2(const JsonFields& f, ModelSpec& m);             // hf_plamo2_family.cpp
void read_gemma3n(const JsonFields& f, ModelSpec& m);             // hf_gemma3n_family.cpp
void read_kv_shared_layers(const JsonFields& f, ModelSpec& m);    // hf_gemma3n_family.cpp (Gemma 4 too)
void alias_gemma3n_fields(nlohmann::json& text, const std::string& where);  // hf_gemma3n_family.cpp
// An FP8 Qwen3.8-Flash-Next checkpoint stores the n-gram table at 1 byte where its
// quantization_config's modules_to_convert lists it (quant_method fp8); nothing otherwise.
void apply_ple_table_quantization(const nlohmann::json& j, ModelSpec& m);
// hf_moe_2026_families.cpp: the names StepFun's Step-3 and Step-3.5 configs share for the
// attention groups and the experts (num_attention_groups, moe_num_experts, moe_top_k), copied under
// the common ones where the config does not give those (alias_step3p5_fields and
// alias_step3_fields both start with it).
void alias_step_common_fields(nlohmann::json& text);
// hf_step3_family.cpp: Step3's text model (Step3TextForCausalLM, in Step3VLForConditionalGeneration).
void alias_step3_fields(nlohmann::json& text);
void read_step3(const JsonFields& f, ModelSpec& m);

// How many entries of `layer_types` are `kind`; -1 when the config has no such list.
int count_layer_types(const JsonFields& f, const std::string& kind);

}  // namespace servesim
