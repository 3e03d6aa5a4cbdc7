// The families a config.json is read as (hf_families.h) and the readers of the
// mixture-of-experts and attention families; the hybrids with state layers are in
// hf_hybrid_families.cpp.
#include "model/hf_families.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {
namespace {

const std::map<std::string, HfFamily>& by_architecture() {
  static const std::map<std::string, HfFamily> m = {
      {"LlamaForCausalLM", HfFamily::dense},
      {"MistralForCausalLM", HfFamily::dense},
      {"Ministral3ForCausalLM", HfFamily::dense},
      {"Mistral3ForConditionalGeneration", HfFamily::dense},
      {"Qwen2ForCausalLM", HfFamily::dense},
      {"Qwen3ForCausalLM", HfFamily::dense},
      {"Qwen3VLForConditionalGeneration", HfFamily::dense},
      {"YiForCausalLM", HfFamily::dense},
      {"GraniteForCausalLM", HfFamily::dense},
      {"NemotronForCausalLM", HfFamily::dense},
      // Llama under other names: vLLM's model registry builds each as its LlamaForCausalLM
      // (vllm/model_executor/models/registry.py, _TEXT_GENERATION_MODELS: "AquilaModel",
      // "AquilaForCausalLM" (AquilaChat2), "XverseForCausalLM", "TeleChat3ForCausalLM",
      // "IQuestCoderForCausalLM" -> ("llama", "LlamaForCausalLM")), so their configs hold Llama's
      // fields. (InternLM 1, also mapped there, reads a `bias` field this reader does not; CWM
      // alternates windowed and global layers: neither is listed.)
      {"AquilaModel", HfFamily::dense},
      {"AquilaForCausalLM", HfFamily::dense},
      {"XverseForCausalLM", HfFamily::dense},
      {"TeleChat3ForCausalLM", HfFamily::dense},
      {"IQuestCoderForCausalLM", HfFamily::dense},
      {"Gemma2ForCausalLM", HfFamily::dense},
      {"Gemma3ForCausalLM", HfFamily::dense},
      {"Gemma3ForConditionalGeneration", HfFamily::dense},
      {"MixtralForCausalLM", HfFamily::mixtral},
      {"Qwen2MoeForCausalLM", HfFamily::qwen_moe},
      {"Qwen3MoeForCausalLM", HfFamily::qwen_moe},
      {"Qwen3VLMoeForConditionalGeneration", HfFamily::qwen_moe},
      {"DeepseekV2ForCausalLM", HfFamily::deepseek},
      {"DeepseekV3ForCausalLM", HfFamily::deepseek},
      {"DeepseekV32ForCausalLM", HfFamily::deepseek},
      {"KimiK2ForCausalLM", HfFamily::deepseek},
      {"GlmMoeDsaForCausalLM", HfFamily::deepseek},
      {"Glm4MoeLiteForCausalLM", HfFamily::deepseek},
      {"Llama4ForCausalLM", HfFamily::llama4},
      {"Llama4ForConditionalGeneration", HfFamily::llama4},
      {"GptOssForCausalLM", HfFamily::gpt_oss},
      {"Qwen3NextForCausalLM", HfFamily::qwen_hybrid},
      {"Qwen3_5ForCausalLM", HfFamily::qwen_hybrid},
      {"Qwen3_5MoeForCausalLM", HfFamily::qwen_hybrid},
      {"Qwen3_5ForConditionalGeneration", HfFamily::qwen_hybrid},
      {"Qwen3_5MoeForConditionalGeneration", HfFamily::qwen_hybrid},
      {"NemotronHForCausalLM", HfFamily::nemotron_h},
      {"JambaForCausalLM", HfFamily::jamba},
      {"GraniteMoeHybridForCausalLM", HfFamily::granite_hybrid},
      {"MiniMaxM2ForCausalLM", HfFamily::minimax_m2},
      {"Glm4MoeForCausalLM", HfFamily::glm4_moe},
      {"Glm4vMoeForConditionalGeneration", HfFamily::glm4_moe},
      {"Gemma4ForCausalLM", HfFamily::gemma4},
      {"Gemma4ForConditionalGeneration", HfFamily::gemma4},
      {"Step3p7FlashForCausalLM", HfFamily::step3p7},
      {"MiMoV2FlashForCausalLM", HfFamily::mimo_v2},
      {"DeepseekV4ForCausalLM", HfFamily::deepseek_v4},
      {"KimiLinearForCausalLM", HfFamily::kimi_linear},
      {"KimiK3ForConditionalGeneration", HfFamily::kimi_linear},  // its text_config: a KimiLinearForCausalLM
      // MiniMax-M3 and NVIDIA's re-export (a multimodal wrapper around a MiniMaxM3SparseForCausalLM).
      {"MiniMaxM3ForCausalLM", HfFamily::minimax_m3},
      {"MiniMaxM3SparseForCausalLM", HfFamily::minimax_m3},
      {"MiniMaxM3SparseForConditionalGeneration", HfFamily::minimax_m3},
      {"MiMoForCausalLM", HfFamily::mimo},
      {"DeciLMForCausalLM", HfFamily::nemotron_nas},  // Llama-Nemotron Super/Ultra/51B (block_configs)
      {"Phi3ForCausalLM", HfFamily::phi3},
      // Phi-3.5-vision and Phi-4-multimodal keep Phi-3's fields at the top level (Phi4MMConfig
      // extends Phi3Config); their image / speech encoders and the LoRA adapters that switch
      // modality are not counted (vLLM phi3v.py / phi4mm.py build the Phi-3 decoder beside them).
      {"Phi3VForCausalLM", HfFamily::phi3},
      {"Phi4MMForCausalLM", HfFamily::phi3},
      {"Qwen2VLForConditionalGeneration", HfFamily::qwen2_vl},
      {"Qwen2_5_VLForConditionalGeneration", HfFamily::qwen2_vl},
      {"Ernie4_5_ForCausalLM", HfFamily::ernie4_5},
      {"Ernie4_5ForCausalLM", HfFamily::ernie4_5},  // transformers' name for the same model
      {"Olmo2ForCausalLM", HfFamily::olmo2},
      {"Olmo3ForCausalLM", HfFamily::olmo2},
      {"Glm4ForCausalLM", HfFamily::glm4},
      {"Ernie4_5_MoeForCausalLM", HfFamily::ernie4_5_moe},
      {"GemmaForCausalLM", HfFamily::gemma},
      {"SmolLM3ForCausalLM", HfFamily::smollm3},
      {"SeedOssForCausalLM", HfFamily::seed_oss},
      {"OlmoeForCausalLM", HfFamily::olmoe},
      {"Exaone4ForCausalLM", HfFamily::exaone4},
      {"HunYuanMoEV1ForCausalLM", HfFamily::hunyuan_moe},
      {"HunYuanDenseV1ForCausalLM", HfFamily::hunyuan_dense},
      {"BailingMoeV2ForCausalLM", HfFamily::bailing_moe_v2},
      {"Cohere2ForCausalLM", HfFamily::cohere2},
      {"Dots1ForCausalLM", HfFamily::dots1},
      {"ApertusForCausalLM", HfFamily::apertus},
      {"FalconH1ForCausalLM", HfFamily::falcon_h1},
      {"Mamba2ForCausalLM", HfFamily::mamba2},
      {"MambaForCausalLM", HfFamily::mamba},
      {"FalconMambaForCausalLM", HfFamily::mamba},
      {"BambaForCausalLM", HfFamily::bamba},
      {"CohereForCausalLM", HfFamily::cohere},
      // transformers names it PhimoeForCausalLM; the published configs (Phi-3.5-MoE, the SlimMoE
      // Phi-tiny/mini-MoE) write PhiMoEForCausalLM, vLLM's registered name.
      {"PhimoeForCausalLM", HfFamily::phimoe},
      {"PhiMoEForCausalLM", HfFamily::phimoe},
      {"MiniCPMForCausalLM", HfFamily::minicpm},
      {"MiniCPM3ForCausalLM", HfFamily::minicpm3},
      {"InternLM2ForCausalLM", HfFamily::internlm2},
      {"InternLM3ForCausalLM", HfFamily::internlm3},
      {"GraniteMoeForCausalLM", HfFamily::granite_moe},
      {"GraniteMoeSharedForCausalLM", HfFamily::granite_moe},
      {"ArceeForCausalLM", HfFamily::arcee},
      {"Starcoder2ForCausalLM", HfFamily::starcoder2},
      {"ExaoneForCausalLM", HfFamily::exaone},
      // GLM-4.1V-Thinking: its text_config ("glm4v_text") is GLM-4-0414's dense decoder (vLLM's
      // glm4_1v.py builds the language model as Glm4ForCausalLM).
      {"Glm4vForConditionalGeneration", HfFamily::glm4},
      {"Lfm2ForCausalLM", HfFamily::lfm2},
      {"Lfm2MoeForCausalLM", HfFamily::lfm2_moe},
      {"Lfm2VlForConditionalGeneration", HfFamily::lfm2},  // its text_config: a model_type "lfm2"
      // hf_moe_2026_families.cpp (which says why each is read by an existing reader):
      {"MistralLarge3ForCausalLM", HfFamily::deepseek},
      {"MiMoV2ForCausalLM", HfFamily::mimo_v2},
      {"Step3p5ForCausalLM", HfFamily::step3p7},
      {"Step3p7ForConditionalGeneration", HfFamily::step3p7},  // its text_config: a Step3p5ForCausalLM
      {"AfmoeForCausalLM", HfFamily::afmoe},
      {"ExaoneMoEForCausalLM", HfFamily::exaone_moe},  // the published configs' name (vLLM's registry)
      {"ExaoneMoeForCausalLM", HfFamily::exaone_moe},  // transformers' class name
      {"DeepseekForCausalLM", HfFamily::deepseek_moe},
      {"DbrxForCausalLM", HfFamily::dbrx},
      {"BailingMoeForCausalLM", HfFamily::bailing_moe_v2},  // Ling v1: hf_moe_2026_families.cpp
      {"Grok1ModelForCausalLM", HfFamily::grok1},
      {"Grok1ForCausalLM", HfFamily::grok1},
      {"HYV3ForCausalLM", HfFamily::hy_v3},
      // hf_legacy_families.cpp. Llama's weights under other names: vLLM's registry builds CWM,
      // InternLM 1, decapoda's LLaMA and Fairseq2 Llama as its LlamaForCausalLM (fairseq2_llama.py
      // renames the checkpoint's tensors only) and Solar as solar.py's Llama block with skip
      // connections.
      {"CwmForCausalLM", HfFamily::llama_alias},
      {"InternLMForCausalLM", HfFamily::llama_alias},
      {"LLaMAForCausalLM", HfFamily::llama_alias},
      {"Fairseq2LlamaForCausalLM", HfFamily::llama_alias},
      {"SolarForCausalLM", HfFamily::llama_alias},
      {"GlmForCausalLM", HfFamily::glm},
      {"OrionForCausalLM", HfFamily::orion},
      {"TeleChatForCausalLM", HfFamily::telechat2},  // vLLM's registry: ("telechat2", "TeleChat2ForCausalLM")
      {"TeleChat2ForCausalLM", HfFamily::telechat2},
      {"HyperCLOVAXForCausalLM", HfFamily::hyperclovax},
      {"Rnj1ForCausalLM", HfFamily::rnj1},
      {"GPT2LMHeadModel", HfFamily::gpt2},
      {"GPTBigCodeForCausalLM", HfFamily::gpt_bigcode},
      {"GPTJForCausalLM", HfFamily::gptj},
      {"GPTNeoXForCausalLM", HfFamily::gpt_neox},
      {"FalconForCausalLM", HfFamily::falcon},
      {"RWForCausalLM", HfFamily::falcon},  // Falcon's first remote-code configs (vLLM: falcon.py)
      {"PhiForCausalLM", HfFamily::phi},
      {"StableLmForCausalLM", HfFamily::stablelm},
      {"StableLMEpochForCausalLM", HfFamily::stablelm},
      {"OPTForCausalLM", HfFamily::opt},
      {"BloomForCausalLM", HfFamily::bloom},
      {"MptForCausalLM", HfFamily::mpt},
      {"MPTForCausalLM", HfFamily::mpt},
      {"QWenLMHeadModel", HfFamily::qwen1},
      {"BaichuanForCausalLM", HfFamily::baichuan},  // Baichuan-13B, Baichuan2 (vLLM: baichuan.py)
      {"BaiChuanForCausalLM", HfFamily::baichuan},  // Baichuan-7B
      {"ChatGLMModel", HfFamily::chatglm},
      {"ChatGLMForConditionalGeneration", HfFamily::chatglm},
      {"OlmoForCausalLM", HfFamily::olmo},
      {"PersimmonForCausalLM", HfFamily::persimmon},
      {"JAISLMHeadModel", HfFamily::jais},
      // TeleFLM (vLLM's teleflm.py: a LlamaForCausalLM whose muP multipliers have no weights) and
      // GritLM (gritlm.py: a LlamaForCausalLM served for embeddings and generation; its checkpoints
      // are Mistral 7B's shape, read as Mistral is).
      {"TeleFLMForCausalLM", HfFamily::llama_alias},
      {"GritLM", HfFamily::dense},
      {"InternLM2VEForCausalLM", HfFamily::internlm2_ve},
      {"Jais2ForCausalLM", HfFamily::jais2},
      {"Step1ForCausalLM", HfFamily::step1},
      {"Plamo3ForCausalLM", HfFamily::plamo3},
      // openPangu-Embedded (vLLM's openpangu.py, SGLang's and vllm-ascend's PanguEmbeddedForCausalLM:
      // Llama's block with `bias` on q, k, v and o).
      {"PanguEmbeddedForCausalLM", HfFamily::llama_alias},
      // hf_hyb_families.cpp (vLLM's registry builds all three as minimax_text_01's
      // MiniMaxText01ForCausalLM; NemotronHPuzzleForCausalLM as nemotron_h's model):
      {"MiniMaxText01ForCausalLM", HfFamily::minimax_text01},
      {"MiniMaxM1ForCausalLM", HfFamily::minimax_text01},
      {"MiniMaxForCausalLM", HfFamily::minimax_text01},
      {"NemotronHPuzzleForCausalLM", HfFamily::nemotron_h_puzzle},
      // vLLM: bailing_moe_linear's BailingMoeV25ForCausalLM. Not by model_type: Ling 3's KDA
      // configs share its "bailing_hybrid".
      {"BailingMoeV2_5ForCausalLM", HfFamily::bailing_moe_v2_5},
      {"OlmoHybridForCausalLM", HfFamily::olmo_hybrid},
      // hf_rest_2026_families.cpp. FlexOlmo reads as OLMoE: vLLM's FlexOlmoForCausalLM subclasses
      // OlmoeForCausalLM (flex_olmo.py): OLMoE's attention, router and experts of intermediate_size
      // on every layer, q/k norms over the full widths (uncounted as OLMoE's are), two norms a layer
      // placed after the sublayers instead of before (the same count).
      {"Cohere2MoeForCausalLM", HfFamily::cohere2_moe},
      {"FlexOlmoForCausalLM", HfFamily::olmoe},
      {"ArcticForCausalLM", HfFamily::arctic},
      {"PanguProMoEForCausalLM", HfFamily::pangu_pro_moe},
      {"PanguUltraMoEForCausalLM", HfFamily::pangu_ultra_moe},
      // vLLM builds openPangu Pro MoE V2 with the same class as Ultra (openpangu.py:
      // PanguProMoEV2ForCausalLM(OpenPanguMoEModel)): an MLA config reads as Ultra's; its sink
      // attention (param_sink_number) or a layer without MLA is refused naming the key.
      {"PanguProMoEV2ForCausalLM", HfFamily::pangu_ultra_moe},
      {"SarvamMoEForCausalLM", HfFamily::sarvam_moe},
      {"SarvamMLAForCausalLM", HfFamily::sarvam_mla},
      {"AXK1ForCausalLM", HfFamily::axk1},
      {"Param2MoEForCausalLM", HfFamily::param2_moe},
      // hf_laguna_family.cpp:
      {"LagunaForCausalLM", HfFamily::laguna},
      // hf_longcat_family.cpp:
      {"LongcatFlashForCausalLM", HfFamily::longcat_flash},
      {"LongcatFlashNgramForCausalLM", HfFamily::longcat_flash},
      // hf_ernie_vl_family.cpp:
      {"Ernie4_5_VLMoeForConditionalGeneration", HfFamily::ernie4_5_vl_moe},
      // Late-2026 names of known decoders (hf_late_2026_families.cpp says why each maps here):
      // JetBrains' Mellum (vllm/model_executor/models/mellum.py: a Qwen3MoeForCausalLM subclass
      // adding layer_types windows and mlp_layer_types, which read_qwen_moe reads);
      {"MellumForCausalLM", HfFamily::qwen_moe},
      // Xiaomi MiMo-V2.5's omni checkpoint: MiMo-V2's text fields at the top level, the vision and
      // audio towers' configs beside them (vllm/model_executor/models/mimo_v2_omni.py);
      {"MiMoV2OmniForCausalLM", HfFamily::mimo_v2},
      // DeepSeek-V4-Flash-Vision-Exp: a DeepseekV4 config with vision_* fields beside it (vLLM's
      // deepseek_v4 vl_model.py: "a thin multimodal wrapper around DeepseekV4ForCausalLM");
      {"DeepseekV4ForConditionalGeneration", HfFamily::deepseek_v4},
      // wrappers whose text_config is a known text model (Gemma 4 12B Unified:
      // vllm/model_executor/models/gemma4_unified.py builds Gemma4ForCausalLM from text_config;
      // EXAONE 4.5: exaone4_5.py builds Exaone4ForCausalLM from it), by the wrapper's name when
      // the text_config names no architecture of its own;
      {"Gemma4UnifiedForConditionalGeneration", HfFamily::gemma4},
      {"Exaone4_5_ForConditionalGeneration", HfFamily::exaone4},
      // hf_late_2026_families.cpp:
      {"GraniteSWAForCausalLM", HfFamily::granite_swa},
      {"GraniteMoeSWAForCausalLM", HfFamily::granite_moe_swa},
      {"HYV4ForCausalLM", HfFamily::hy_v4},
      {"MuseGlimmerForCausalLM", HfFamily::muse_glimmer},
      {"BailingMoeV3ForCausalLM", HfFamily::bailing_moe_v3},  // model_type bailing_hybrid, as Ling 2.5's
      {"InklingForCausalLM", HfFamily::inkling},
      {"InklingForConditionalGeneration", HfFamily::inkling},
      {"MuseGlimmerForConditionalGeneration", HfFamily::muse_glimmer},
      // hf_glm5_next_family.cpp:
      {"Glm5NextForCausalLM", HfFamily::glm5_next},
      {"Glm5NextForConditionalGeneration", HfFamily::glm5_next},
      // hf_qwen4_exp_family.cpp (and the Qwen3_8FlashNext aliases plugins register):
      {"Qwen4ExpForCausalLM", HfFamily::qwen4_exp},
      {"Qwen4ExpForConditionalGeneration", HfFamily::qwen4_exp},
      {"Qwen3_8FlashNextForCausalLM", HfFamily::qwen4_exp},
      {"Qwen3_8FlashNextForConditionalGeneration", HfFamily::qwen4_exp},
      {"MllamaForConditionalGeneration", HfFamily::mllama},
      {"MllamaForCausalLM", HfFamily::mllama},
      {"OuroForCausalLM", HfFamily::ouro},
      {"IQuestLoopCoderForCausalLM", HfFamily::iquest_loop_coder},
      {"Zamba2ForCausalLM", HfFamily::zamba2},
      {"Plamo2ForCausalLM", HfFamily::plamo2},
      {"Gemma3nForConditionalGeneration", HfFamily::gemma3n},
      {"Gemma3nForCausalLM", HfFamily::gemma3n},
      // hf_step3_family.cpp (the wrapper serves its text_config's Step3TextForCausalLM):
      {"Step3TextForCausalLM", HfFamily::step3},
      {"Step3VLForConditionalGeneration", HfFamily::step3},
  };
  return m;
}

// A text model named only by model_type (a text_config without architectures).
const std::map<std::string, HfFamily>& by_model_type() {
  static const std::map<std::string, HfFamily> m = {
      {"llama", HfFamily::dense},          {"mistral", HfFamily::dense},       {"ministral", HfFamily::dense},
      {"ministral3", HfFamily::dense},     {"qwen2", HfFamily::dense},         {"qwen3", HfFamily::dense},
      {"qwen3_vl_text", HfFamily::dense},  {"gemma2", HfFamily::dense},        {"gemma3_text", HfFamily::dense},
      {"granite", HfFamily::dense},        {"mixtral", HfFamily::mixtral},     {"qwen2_moe", HfFamily::qwen_moe},
      {"qwen3_moe", HfFamily::qwen_moe},   {"qwen3_vl_moe_text", HfFamily::qwen_moe},
      {"qwen3_omni_moe_text", HfFamily::qwen_moe},  // Qwen3-Omni's thinker (thinker_config.text_config)
      {"deepseek_v2", HfFamily::deepseek}, {"deepseek_v3", HfFamily::deepseek}, {"deepseek_v32", HfFamily::deepseek},
      {"kimi_k2", HfFamily::deepseek},     {"glm_moe_dsa", HfFamily::deepseek}, {"glm4_moe_lite", HfFamily::deepseek},
      {"llama4_text", HfFamily::llama4},   {"gpt_oss", HfFamily::gpt_oss},     {"qwen3_next", HfFamily::qwen_hybrid},
      {"qwen3_5_text", HfFamily::qwen_hybrid}, {"qwen3_5_moe_text", HfFamily::qwen_hybrid},
      {"nemotron_h", HfFamily::nemotron_h}, {"jamba", HfFamily::jamba},
      {"granitemoehybrid", HfFamily::granite_hybrid}, {"minimax_m2", HfFamily::minimax_m2},
      {"glm4_moe", HfFamily::glm4_moe},    {"glm4v_moe_text", HfFamily::glm4_moe}, {"gemma4_text", HfFamily::gemma4},
      {"step3p7", HfFamily::step3p7},      {"mimo_v2_flash", HfFamily::mimo_v2},
      {"deepseek_v4", HfFamily::deepseek_v4},
      {"kimi_linear", HfFamily::kimi_linear},
      {"minimax_m3", HfFamily::minimax_m3}, {"minimax_m3_vl", HfFamily::minimax_m3},
      {"mimo", HfFamily::mimo},            {"nemotron-nas", HfFamily::nemotron_nas},
      {"phi3", HfFamily::phi3},            {"qwen2_vl", HfFamily::qwen2_vl},   {"qwen2_5_vl", HfFamily::qwen2_vl},
      {"qwen2_vl_text", HfFamily::qwen2_vl}, {"qwen2_5_vl_text", HfFamily::qwen2_vl},
      {"qwen2_5_omni_text", HfFamily::qwen2_vl},  // Qwen2.5-Omni's thinker: Qwen2 with q/k/v biases
      {"ernie4_5", HfFamily::ernie4_5},
      {"olmo2", HfFamily::olmo2},          {"olmo3", HfFamily::olmo2},         {"glm4", HfFamily::glm4},
      {"ernie4_5_moe", HfFamily::ernie4_5_moe}, {"gemma", HfFamily::gemma},
      {"smollm3", HfFamily::smollm3},      {"seed_oss", HfFamily::seed_oss},
      {"olmoe", HfFamily::olmoe},          {"exaone4", HfFamily::exaone4},     {"exaone4_5_text", HfFamily::exaone4},
      {"hunyuan_v1_moe", HfFamily::hunyuan_moe}, {"hunyuan_v1_dense", HfFamily::hunyuan_dense},
      {"bailing_moe_v2", HfFamily::bailing_moe_v2}, {"cohere2", HfFamily::cohere2},
      {"dots1", HfFamily::dots1},          {"apertus", HfFamily::apertus},
      {"falcon_h1", HfFamily::falcon_h1},  {"mamba2", HfFamily::mamba2},       {"mamba", HfFamily::mamba},
      {"falcon_mamba", HfFamily::mamba},   {"bamba", HfFamily::bamba},
      {"cohere", HfFamily::cohere},        {"phimoe", HfFamily::phimoe},       {"minicpm", HfFamily::minicpm},
      {"minicpm3", HfFamily::minicpm3},    {"internlm2", HfFamily::internlm2}, {"internlm3", HfFamily::internlm3},
      {"granitemoe", HfFamily::granite_moe}, {"granitemoeshared", HfFamily::granite_moe},
      {"arcee", HfFamily::arcee},          {"glm4v_text", HfFamily::glm4},     {"starcoder2", HfFamily::starcoder2},
      {"exaone", HfFamily::exaone},
      {"lfm2", HfFamily::lfm2},            {"lfm2_moe", HfFamily::lfm2_moe},
      // hf_moe_2026_families.cpp:
      {"mimo_v2", HfFamily::mimo_v2},      {"step3p5", HfFamily::step3p7},
      {"afmoe", HfFamily::afmoe},          {"exaone_moe", HfFamily::exaone_moe},
      {"deepseek", HfFamily::deepseek_moe}, {"dbrx", HfFamily::dbrx},
      {"bailing_moe", HfFamily::bailing_moe_v2},  // Ling v1's and Ling / Ring 2.0's published model_type
      {"grok-1", HfFamily::grok1},         {"hy_v3", HfFamily::hy_v3},
      // hf_legacy_families.cpp
      {"cwm", HfFamily::llama_alias},      {"solar", HfFamily::llama_alias},   {"internlm", HfFamily::llama_alias},
      // "glm": GlmForCausalLM's (GLM-10B's GLMModel configs share it but name num_layers, not
      // num_hidden_layers: refused as missing that field rather than misread)
      {"glm", HfFamily::glm},
      {"orion", HfFamily::orion},          {"telechat", HfFamily::telechat2},  {"telechat2", HfFamily::telechat2},
      {"hyperclovax", HfFamily::hyperclovax}, {"rnj1", HfFamily::rnj1},
      {"gpt2", HfFamily::gpt2},            {"gpt_bigcode", HfFamily::gpt_bigcode}, {"gptj", HfFamily::gptj},
      {"gpt_neox", HfFamily::gpt_neox},    {"falcon", HfFamily::falcon},       {"RefinedWeb", HfFamily::falcon},
      {"RefinedWebModel", HfFamily::falcon}, {"phi", HfFamily::phi},           {"stablelm", HfFamily::stablelm},
      {"stablelm_epoch", HfFamily::stablelm}, {"opt", HfFamily::opt},          {"bloom", HfFamily::bloom},
      {"mpt", HfFamily::mpt},              {"qwen", HfFamily::qwen1},          {"baichuan", HfFamily::baichuan},
      {"chatglm", HfFamily::chatglm},      {"olmo", HfFamily::olmo},           {"persimmon", HfFamily::persimmon},
      {"jais", HfFamily::jais},            {"teleflm", HfFamily::llama_alias}, {"jais2", HfFamily::jais2},
      {"plamo3", HfFamily::plamo3},
      // hf_hyb_families.cpp:
      {"minimax_text_01", HfFamily::minimax_text01}, {"minimax_m1", HfFamily::minimax_text01},
      {"minimax", HfFamily::minimax_text01},         {"nemotron_h_puzzle", HfFamily::nemotron_h_puzzle},
      {"olmo_hybrid", HfFamily::olmo_hybrid},
      // hf_rest_2026_families.cpp:
      {"cohere2_moe", HfFamily::cohere2_moe},  {"flex_olmo", HfFamily::olmoe},
      {"arctic", HfFamily::arctic},            {"pangu_ultra_moe", HfFamily::pangu_ultra_moe},
      {"sarvam_moe", HfFamily::sarvam_moe},    {"axk1", HfFamily::axk1},
      {"param2moe", HfFamily::param2_moe},
      // hf_laguna_family.cpp:
      {"laguna", HfFamily::laguna},
      // hf_longcat_family.cpp:
      {"longcat_flash", HfFamily::longcat_flash},
      {"longcat_flash_ngram", HfFamily::longcat_flash},
      // hf_ernie_vl_family.cpp:
      {"ernie4_5_moe_vl", HfFamily::ernie4_5_vl_moe},
      {"ernie4_5_vl_moe", HfFamily::ernie4_5_vl_moe},
      {"ernie4_5_vl_moe_text", HfFamily::ernie4_5_vl_moe},
      // hf_late_2026_families.cpp:
      {"mellum", HfFamily::qwen_moe},
      {"granite_swa", HfFamily::granite_swa},
      {"granitemoe_swa", HfFamily::granite_moe_swa},
      {"hy_v4", HfFamily::hy_v4},
      {"muse_glimmer", HfFamily::muse_glimmer},
      {"muse_glimmer_text", HfFamily::muse_glimmer},
      {"inkling_text", HfFamily::inkling},
      {"inkling_model", HfFamily::inkling},
      {"inkling_mm_model", HfFamily::inkling},
      // hf_glm5_next_family.cpp:
      {"glm5_next", HfFamily::glm5_next},
      {"glm5_next_text", HfFamily::glm5_next},
      // hf_qwen4_exp_family.cpp:
      {"qwen4_exp", HfFamily::qwen4_exp},
      {"qwen4_exp_text", HfFamily::qwen4_exp},
      {"qwen3_8_flash_next_text", HfFamily::qwen4_exp},
      {"mllama", HfFamily::mllama},
      {"mllama_text_model", HfFamily::mllama},
      {"ouro", HfFamily::ouro},
      {"iquestloopcoder", HfFamily::iquest_loop_coder},
      {"zamba2", HfFamily::zamba2},
      {"plamo2", HfFamily::plamo2},
      {"gemma3n", HfFamily::gemma3n},
      {"gemma3n_text", HfFamily::gemma3n},
      // hf_step3_family.cpp:
      {"step3_text", HfFamily::step3},
      {"step3_vl", HfFamily::step3},
  };
  return m;
}

}  // namespace

std::optional<HfFamily> family_of_architecture(const std::string& architecture) {
  if (const auto a = by_architecture().find(architecture); a != by_architecture().end()) return a->second;
  return std::nullopt;
}

std::optional<HfFamily> family_of_model_type(const std::string& model_type) {
  if (const auto t = by_model_type().find(model_type); t != by_model_type().end()) return t->second;
  return std::nullopt;
}

std::vector<std::string> supported_hf_architectures() {
  std::vector<std::string> names;
  for (const auto& [name, _] : by_architecture()) names.push_back(name);
  return names;
}

bool is_moe_family(HfFamily f) {
  return f == HfFamily::mixtral || f == HfFamily::qwen_moe || f == HfFamily::deepseek || f == HfFamily::llama4 ||
         f == HfFamily::gpt_oss || f == HfFamily::minimax_m2 || f == HfFamily::glm4_moe || f == HfFamily::step3p7 ||
         f == HfFamily::mimo_v2 || f == HfFamily::deepseek_v4 || f == HfFamily::kimi_linear ||
         f == HfFamily::minimax_m3 || f == HfFamily::ernie4_5_moe || f == HfFamily::olmoe ||
         f == HfFamily::hunyuan_moe || f == HfFamily::bailing_moe_v2 || f == HfFamily::dots1 ||
         f == HfFamily::phimoe || f == HfFamily::granite_moe ||
         f == HfFamily::lfm2_moe || f == HfFamily::afmoe || f == HfFamily::exaone_moe ||
         f == HfFamily::deepseek_moe || f == HfFamily::dbrx || f == HfFamily::grok1 ||
         f == HfFamily::hy_v3 ||
         // hf_rest_2026_families.cpp:
         f == HfFamily::cohere2_moe || f == HfFamily::arctic || f == HfFamily::pangu_pro_moe ||
         f == HfFamily::pangu_ultra_moe || f == HfFamily::sarvam_mla || f == HfFamily::sarvam_moe ||
         f == HfFamily::axk1 || f == HfFamily::param2_moe ||
         // hf_hyb_families.cpp (MiniMax-Text-01 is not here: its reader allows one expert, a dense MLP):
         f == HfFamily::nemotron_h_puzzle || f == HfFamily::bailing_moe_v2_5 || f == HfFamily::bailing_moe_v3 || f == HfFamily::inkling ||
         // hf_laguna_family.cpp:
         f == HfFamily::laguna ||
         // hf_longcat_family.cpp:
         f == HfFamily::longcat_flash ||
         // hf_ernie_vl_family.cpp:
         f == HfFamily::ernie4_5_vl_moe || f == HfFamily::granite_moe_swa ||
         f == HfFamily::hy_v4 || f == HfFamily::glm5_next ||
         // hf_step3_family.cpp:
         f == HfFamily::step3;
}

bool is_attention_free_family(HfFamily f) { return f == HfFamily::mamba2 || f == HfFamily::mamba; }

int count_layer_types(const JsonFields& f, const std::string& kind) {
  if (!f.has("layer_types")) return -1;
  int n = 0;
  for (const std::string& t : f.strings("layer_types"))
    if (t == kind) ++n;
  return n;
}

void read_mixtral(const JsonFields& f, ModelSpec& m) {
  // 0 experts would read as a dense model with Mixtral's expert-sized FFN: refuse it.
  m.moe.num_experts = static_cast<int>(f.integer("num_local_experts"));
  if (m.moe.num_experts < 1)
    throw Error(fmt::format("{}: num_local_experts must be at least 1 for {}, got {}", f.where(), m.architecture,
                            m.moe.num_experts));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
  m.moe.expert_ffn = m.ffn;
}

void read_qwen_moe(const JsonFields& f, ModelSpec& m) {
  if (!f.has("num_experts") || f.integer("num_experts") <= 0) return;  // refused by the caller
  m.moe.num_experts = static_cast<int>(f.integer("num_experts"));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
  m.moe.expert_ffn = f.integer("moe_intermediate_size");
  // Qwen2/3-MoE: layer i is MoE unless listed in mlp_only_layers, and only when (i + 1)
  // is a multiple of decoder_sparse_step (transformers' Qwen3MoeDecoderLayer). The dense
  // ones are counted as servesim's leading dense layers (the same weights and per-token
  // work; only their place in a pipeline stage split may differ).
  // Mellum lists the layers instead ("dense" / "sparse": mellum.py's mlp_layer_types).
  const bool listed = f.has("mlp_layer_types");
  const std::int64_t step = f.integer("decoder_sparse_step", 1);
  if (step < 1) throw Error(fmt::format("{}: decoder_sparse_step must be >= 1, got {}", f.where(), step));
  std::set<std::int64_t> mlp_only;
  for (const std::int64_t x : f.integers("mlp_only_layers")) mlp_only.insert(x);
  int dense = 0;
  for (int i = 0; i < m.layers; ++i)
    if (mlp_only.count(i) || (i + 1) % step != 0) ++dense;
  m.moe.dense_layers = dense;
  if (listed) read_mlp_layer_kinds(f, m, 0);
  const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
}

// Multi-head latent attention as DeepSeek-V2 names its fields (kv_lora_rank, q_lora_rank, absent
// or null: queries not compressed; qk_nope_head_dim, qk_rope_head_dim, v_head_dim); MiniCPM3
// names them alike (hf_more_2026_families.cpp), its v_head_dim defaulting to `v_head_dim_default`
// (> 0) where the config leaves it out.
void read_mla(const JsonFields& f, ModelSpec& m, std::int64_t v_head_dim_default) {
  m.mla.kv_lora_rank = static_cast<int>(f.integer("kv_lora_rank"));
  m.mla.q_lora_rank = static_cast<int>(f.integer("q_lora_rank", 0));
  m.mla.qk_nope_head_dim = static_cast<int>(f.integer("qk_nope_head_dim"));
  m.mla.qk_rope_head_dim = static_cast<int>(f.integer("qk_rope_head_dim"));
  m.mla.v_head_dim = static_cast<int>(v_head_dim_default > 0 ? f.integer("v_head_dim", v_head_dim_default)
                                                              : f.integer("v_head_dim"));
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
}

// DeepSeek-V2/V3 and the families built on them: MLA, shared experts, expert groups, dense
// leading layers, an MoE-layer frequency, MTP modules, and DeepSeek sparse attention (V3.2,
// GLM-5: index_n_heads, index_head_dim, index_topk).
void read_deepseek(const JsonFields& f, ModelSpec& m) {
  const std::string type = f.string("model_type", "");
  const bool glm = type.rfind("glm", 0) == 0;
  if (f.has("n_routed_experts") && f.integer("n_routed_experts") > 0) {
    m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    m.moe.shared_expert_ffn = m.moe.expert_ffn;
    m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
    m.moe.groups = static_cast<int>(f.integer("n_group", 0));
    m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
    // DeepseekV2DecoderLayer: MoE when layer_idx >= first_k_dense_replace and
    // layer_idx % moe_layer_freq == 0.
    const std::int64_t freq = f.integer("moe_layer_freq", 1);
    if (freq < 1) throw Error(fmt::format("{}: moe_layer_freq must be >= 1, got {}", f.where(), freq));
    if (freq > 1) {
      int moe = 0;
      for (int i = m.moe.dense_layers; i < m.layers; ++i)
        if (i % freq == 0) ++moe;
      m.moe.listed_layers = moe;
    }
  }
  m.mtp_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0));
  if (m.mtp_layers < 0)
    throw Error(fmt::format("{}: num_nextn_predict_layers must be >= 0, got {}", f.where(), m.mtp_layers));
  // DeepSeek-VL2-Tiny's language model sets use_mla false: plain multi-head attention
  // (vLLM's DeepseekV2 model then builds q/k/v/o projections, kv_lora_rank unused).
  if (f.has("kv_lora_rank") && f.boolean("use_mla", true)) read_mla(f, m);
  if (f.has("index_topk")) {  // DeepSeek sparse attention (DeepseekV32 / GlmMoeDsa): every layer
    m.indexer.heads = static_cast<int>(f.at_least("index_n_heads", 1));
    m.indexer.head_dim = static_cast<int>(f.at_least("index_head_dim", 1));
    m.indexer.topk = static_cast<int>(f.at_least("index_topk", 1));
    if (m.indexer.topk < m.max_context) {
      m.local.kind = LocalAttention::Kind::topk;
      m.local.span = m.indexer.topk;
      m.local.layers = m.layers;
    } else {
      m.indexer = SparseIndexer{};  // a top-k of the whole context is full attention
    }
  }
  // Publishers' active-parameter figures (model_spec.h ActiveCount): DeepSeek-V3's 37B and
  // Kimi-K2's 32B fit the LM head counted and the embedding not; GLM-5's 40B neither table.
  m.active_count = glm ? ModelSpec::ActiveCount::no_tables : ModelSpec::ActiveCount::lm_head_only;
}

// Llama 4's MoE: num_local_experts routed experts of intermediate_size plus one shared
// expert of the same size on every interleave_moe_layer_step-th layer (moe_layers, when
// listed), dense MLPs of intermediate_size_mlp on the others.
void read_llama4_moe(const JsonFields& f, ModelSpec& m) {
  m.moe.num_experts = static_cast<int>(f.at_least("num_local_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok", 1));
  m.moe.expert_ffn = f.integer("intermediate_size");
  m.moe.shared_experts = 1;
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.ffn = f.integer("intermediate_size_mlp", m.moe.expert_ffn);
  const std::int64_t step = f.integer("interleave_moe_layer_step", 1);
  if (step < 1) throw Error(fmt::format("{}: interleave_moe_layer_step must be >= 1, got {}", f.where(), step));
  m.moe.layer_step = static_cast<int>(step);
  const std::vector<std::int64_t> listed = f.integers("moe_layers");
  if (!listed.empty() && static_cast<int>(listed.size()) != m.layers / m.moe.layer_step)
    throw Error(fmt::format("{}: moe_layers lists {} MoE layers where interleave_moe_layer_step {} over {} layers "
                            "gives {}; servesim models MoE on every step-th layer only",
                            f.where(), listed.size(), step, m.layers, m.layers / m.moe.layer_step));
}

// gpt-oss (transformers' GptOssConfig; OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card",
// 2025): every layer MoE (num_local_experts of intermediate_size, top experts_per_token) with
// biases on the experts and the router; attention with biases on q/k/v/o and a learned sink
// logit per head; layer_types alternating sliding (window 128) and full attention.
void read_gpt_oss(const JsonFields& f, ModelSpec& m) {
  m.moe.num_experts = static_cast<int>(f.at_least("num_local_experts", 1));
  m.moe.experts_per_token =
      static_cast<int>(f.has("num_experts_per_tok") ? f.integer("num_experts_per_tok") : f.integer("experts_per_token"));
  m.moe.expert_ffn = f.integer("intermediate_size");
  m.moe.expert_bias = true;
  m.attention_o_bias = m.qkv_bias;
  m.attention_sinks = true;
  m.active_count = ModelSpec::ActiveCount::lm_head_only;  // the model card's Table 1
}

// MiniMax-M2 (its config: num_local_experts of intermediate_size, top num_experts_per_tok,
// sigmoid routing with a bias, no shared expert; per-layer q/k norms). Its MTP modules
// (use_mtp, num_mtp_modules) are not run or counted.
void read_minimax_m2(const JsonFields& f, ModelSpec& m) {
  m.moe.num_experts = static_cast<int>(f.at_least("num_local_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
  m.moe.expert_ffn = f.integer("intermediate_size");
  const std::int64_t shared = f.integer("shared_intermediate_size", 0);
  if (shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = shared;
  }
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// GLM-4.5/4.6/4.7 (transformers' Glm4MoeConfig): DeepSeek-style MoE (n_routed_experts of
// moe_intermediate_size, n_shared_experts, first_k_dense_replace dense layers of
// intermediate_size, grouped routing) with GQA attention (biases when attention_bias) and
// num_nextn_predict_layers MTP modules.
void read_glm4_moe(const JsonFields& f, ModelSpec& m) {
  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
  m.moe.expert_ffn = f.integer("moe_intermediate_size");
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
  m.mtp_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0));
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// Gemma 4 (transformers' Gemma4TextAttention / Gemma4TextDecoderLayer): sliding layers of
// head_dim with num_key_value_heads, global layers of global_head_dim with
// num_global_key_value_heads and, with attention_k_eq_v, no v_proj; with enable_moe_block a
// routed MoE (num_experts of moe_intermediate_size, top top_k_experts) runs beside the dense
// MLP in every layer, which servesim reads as an always-on shared expert.
// Its small models (E2B, E4B) add Gemma 3n's per-layer embeddings (hidden_size_per_layer_input:
// the table, its projection, a gate and a projection per layer; no AltUp or LAuReL) and KV
// shared by the last num_kv_shared_layers layers, which hold no k_proj / v_proj (transformers
// does not build them) and, with use_double_wide_mlp, an MLP twice intermediate_size wide.
void read_gemma4(const JsonFields& f, ModelSpec& m) {
  m.global_head_dim = static_cast<int>(f.integer("global_head_dim", 0));
  m.global_kv_heads = static_cast<int>(f.integer("num_global_key_value_heads", 0));
  m.global_k_eq_v = f.boolean("attention_k_eq_v", false);
  const std::int64_t ple = f.integer("hidden_size_per_layer_input", 0);
  if (ple < 0)
    throw Error(fmt::format("{}: hidden_size_per_layer_input must not be negative, got {}", f.where(), ple));
  if (ple > 0) {
    m.gemma3n.ple_width = ple;
    m.gemma3n.ple_rows = f.at_least("vocab_size_per_layer_input", 1);
  }
  read_kv_shared_layers(f, m);
  m.kv_shared_layers_hold_kv_proj = false;
  const int shared = m.kv_shared_global_layers + m.kv_shared_local_layers;
  if (f.boolean("use_double_wide_mlp", false) && shared > 0 && m.ffn > 0) {
    m.mlp_widths = {MlpWidthGroup{2 * m.ffn, shared, false}, MlpWidthGroup{m.ffn, m.layers - shared, false}};
    m.ffn *= 2;  // the widest
  }
  if (f.boolean("enable_moe_block", false)) {
    m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));
    m.moe.experts_per_token = static_cast<int>(f.has("top_k_experts") ? f.integer("top_k_experts")
                                                                       : f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = f.has("moe_intermediate_size") ? f.integer("moe_intermediate_size")
                                                      : f.integer("expert_intermediate_size");
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = m.ffn;
  }
}

// Step-3.7-Flash (StepFun; the fields of its config.json as AIConfigurator keeps it) and
// Step-3.5-Flash (Step3p5ForCausalLM, after alias_step3p5_fields; vLLM's step3p5.py:
// Step3p5Attention, Step3p5DecoderLayer): 45 layers, attention on layer_types (full on every 4th
// from 0, a 512-token sliding window on the others; read_local_attention), first_k_dense_replace
// dense layers of intermediate_size, then num_experts routed experts of moe_intermediate_size (top
// num_experts_per_tok, sigmoid scores with a router bias) and n_shared_experts shared experts of
// share_expert_dim on each later layer. Its num_nextn_predict_layers MTP modules are not
// counted: the config does not give their shapes, and DeepSeek-V3's accounting (an MoE block and
// both tables again in each module) would add 3 x 5.7B, which is not assumed.
// The sliding layers' own shape is attention_other_setting's (num_attention_heads,
// num_attention_groups, head_dim: 96 query heads there against 64 on the full layers in
// Step-3.5-Flash's config.json; vLLM's Step3p5DecoderLayer builds each sliding layer's attention
// from it): the sliding (local) layers take it and the full (global) layers keep the common
// fields, as ModelSpec's global_heads / global_kv_heads / global_head_dim describe. Step's
// layer_types also lists its MTP layers past num_hidden_layers (48 entries for 45 layers): only
// the first num_hidden_layers are the model's. Not counted: the per-head output gate
// (use_head_wise_attn_gate: g_proj hidden -> heads, 16.1M weights in Step-3.5-Flash, 0.15% of
// the active figure) and the per-head q/k norms (use_qk_norm), as before.
void read_step3p7(const JsonFields& f, ModelSpec& m) {
  if (f.has("layer_types") && m.local.enabled()) {
    const std::vector<std::string> types = f.strings("layer_types");
    if (static_cast<int>(types.size()) > m.layers) {
      int sliding = 0;
      for (int i = 0; i < m.layers; ++i) sliding += types[static_cast<std::size_t>(i)] == "sliding_attention";
      m.local.layers = sliding;
      if (sliding == 0) m.local = LocalAttention{};
    }
  }
  if (f.has("attention_other_setting")) {
    const nlohmann::json& o = f.doc()["attention_other_setting"];
    if (!o.is_object()) throw Error(fmt::format("{}: attention_other_setting must be an object", f.where()));
    const JsonFields other(o, f.where() + " (attention_other_setting)");
    const std::int64_t heads = other.integer("num_attention_heads", m.heads);
    const std::int64_t groups = other.integer("num_attention_groups", other.integer("num_key_value_heads", m.kv_heads));
    const std::int64_t dim = other.integer("head_dim", m.head_dim);
    if (heads < 1 || groups < 1 || dim < 1 || heads % groups != 0)
      throw Error(fmt::format("{}: attention_other_setting gives the sliding layers {} heads, {} KV heads (num_attention_"
                              "groups) of {}: they must be positive and the heads a multiple of the KV heads",
                              f.where(), heads, groups, dim));
    if (heads != m.heads || groups != m.kv_heads || dim != m.head_dim) {
      // A sliding layer of another shape needs the window to bind (model_spec.h LocalAttention):
      // else every layer is priced as a full one, of the full layers' shape.
      if (!m.local.enabled())
        throw Error(fmt::format("{}: attention_other_setting gives the sliding layers {} heads, {} KV heads of {} against "
                                "{}, {} of {} on the full layers, but layer_types / sliding_window ({}) leave no "
                                "sliding layer below max_position_embeddings ({}) for servesim to give that shape",
                                f.where(), heads, groups, dim, m.heads, m.kv_heads, m.head_dim,
                                f.integer("sliding_window", 0), m.max_context));
      if (heads != m.heads) m.global_heads = m.heads;
      if (groups != m.kv_heads) m.global_kv_heads = m.kv_heads;
      if (dim != m.head_dim) m.global_head_dim = m.head_dim;
      m.heads = static_cast<int>(heads);
      m.kv_heads = static_cast<int>(groups);
      m.head_dim = static_cast<int>(dim);
    }
  }
  m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_experts {}", f.where(), m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: n_shared_experts must be >= 0, got {}", f.where(), m.moe.shared_experts));
  m.moe.shared_expert_ffn = f.integer("share_expert_dim", m.moe.expert_ffn);
  m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  if (m.moe.dense_layers < 0 || m.moe.dense_layers >= m.layers)
    throw Error(fmt::format("{}: first_k_dense_replace {} must be within [0, num_hidden_layers = {})", f.where(),
                            m.moe.dense_layers, m.layers));
  if (m.moe.dense_layers > 0 && m.ffn <= 0)
    throw Error(fmt::format("{}: first_k_dense_replace {} dense layers need a positive intermediate_size", f.where(),
                            m.moe.dense_layers));
  if (f.integer("num_nextn_predict_layers", 0) < 0)
    throw Error(fmt::format("{}: num_nextn_predict_layers must be >= 0, got {}", f.where(),
                            f.integer("num_nextn_predict_layers")));
  // StepFun's "activates only 11B of its 196B parameters per token" (Step-3.5-Flash model card)
  // fits the count without either embedding table: with the sliding layers' 96 heads,
  // 10.92B (-0.8%); the LM head counted too gives 11.44B (+4.0%), both tables 11.97B (+8.8%)
  // (tests/unit/test_hf_layer_heads.cpp). AIConfigurator's trimmed Step-3.7 copy, without
  // attention_other_setting, reads 64 heads on every layer and so 9.81B: its figure is short by
  // the sliding layers' 1.1B of query and output weights, not by an accounting.
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// MiMo-V2-Flash (Xiaomi; its config.json, the MiMo-V2-Flash technical report, 2026): 48 layers
// whose hybrid_layer_pattern marks each full attention (0: num_key_value_heads KV heads) or
// sliding-window attention (1: sliding_window tokens, swa_num_key_value_heads; read by
// read_local_attention); queries and keys of head_dim, values of v_head_dim (narrower: 128
// against 192) in both kinds; a learned sink logit per head on the sliding layers
// (add_swa_attention_sink_bias; servesim counts the sinks, heads weights a layer, on every
// layer: 9 x 64 = 576 weights too many of 309B); moe_layer_freq lists which layers are MoE (n_routed_experts
// of moe_intermediate_size, top num_experts_per_tok, no shared expert), the others dense of
// intermediate_size. Its MTP modules are published apart (three layers, dense FFNs) and not
// named in this config: not counted.
void read_mimo_v2(const JsonFields& f, ModelSpec& m) {
  const std::int64_t full_kv = m.kv_heads, full_hd = m.head_dim;
  const std::int64_t swa_heads = f.integer("swa_num_attention_heads", m.heads);
  const std::int64_t swa_kv = f.integer("swa_num_key_value_heads", full_kv);
  const std::int64_t swa_hd = f.integer("swa_head_dim", full_hd);
  const std::int64_t v = f.integer("v_head_dim", full_hd);
  const std::int64_t swa_v = f.integer("swa_v_head_dim", v);
  if (swa_heads != m.heads)
    throw Error(fmt::format("{}: swa_num_attention_heads {} differs from num_attention_heads {}: servesim models one "
                            "query head count for every layer",
                            f.where(), swa_heads, m.heads));
  if (swa_v != v)
    throw Error(fmt::format("{}: value heads of {} (v_head_dim) and {} (swa_v_head_dim) with key heads of {} and {}: "
                            "servesim models one value head width for every layer",
                            f.where(), v, swa_v, full_hd, swa_hd));
  if (swa_kv < 1 || swa_hd < 1 || v < 1)
    throw Error(fmt::format("{}: swa_num_key_value_heads {}, swa_head_dim {} and v_head_dim {} must be positive",
                            f.where(), swa_kv, swa_hd, v));
  // The sliding (local) layers take the common fields, the full (global) layers their own, as
  // Gemma 4's do; the values' width is the same in both.
  m.kv_heads = static_cast<int>(swa_kv);
  m.head_dim = static_cast<int>(swa_hd);
  if (full_kv != swa_kv) m.global_kv_heads = static_cast<int>(full_kv);
  if (full_hd != swa_hd) m.global_head_dim = static_cast<int>(full_hd);
  if (v != swa_hd || full_hd != swa_hd) m.v_head_dim = static_cast<int>(v);  // stated whenever a kind differs
  m.attention_sinks = f.boolean("add_swa_attention_sink_bias", false) || f.boolean("add_full_attention_sink_bias", false);

  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds n_routed_experts {}", f.where(), m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));  // null: none
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: n_shared_experts must be >= 0, got {}", f.where(), m.moe.shared_experts));
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.groups = static_cast<int>(f.integer("n_group", 0));
  m.moe.topk_groups = static_cast<int>(f.integer("topk_group", 0));
  // moe_layer_freq: one 0 (dense) or 1 (MoE) per layer. Leading dense layers then MoE ones (MiMo's
  // layer 0 dense) are servesim's dense_layers; any other order is counted (listed_layers).
  if (!f.has("moe_layer_freq") || !f.doc()["moe_layer_freq"].is_array())
    throw Error(fmt::format("{}: moe_layer_freq must list 0 (dense) or 1 (MoE) for each of the {} layers", f.where(),
                            m.layers));
  const nlohmann::json& listed = f.doc()["moe_layer_freq"];
  if (static_cast<int>(listed.size()) != m.layers)
    throw Error(fmt::format("{}: moe_layer_freq lists {} layers, num_hidden_layers is {}", f.where(), listed.size(),
                            m.layers));
  int moe = 0, leading_dense = 0;
  bool seen_moe = false;
  for (const nlohmann::json& x : listed) {
    if (!x.is_number_integer() || (x.get<std::int64_t>() != 0 && x.get<std::int64_t>() != 1))
      throw Error(fmt::format("{}: moe_layer_freq entries must be 0 (dense) or 1 (MoE), got {}", f.where(),
                              excerpt(x.dump())));
    if (x.get<std::int64_t>() == 1) {
      ++moe;
      seen_moe = true;
    } else if (!seen_moe) {
      ++leading_dense;
    }
  }
  if (moe == 0)
    throw Error(fmt::format("{}: moe_layer_freq marks no MoE layer; servesim will not read {} as a dense model",
                            f.where(), m.architecture));
  if (moe + leading_dense == m.layers) m.moe.dense_layers = leading_dense;
  else m.moe.listed_layers = moe;
  if (m.layers - moe > 0 && m.ffn <= 0)
    throw Error(fmt::format("{}: {} dense layers need a positive intermediate_size", f.where(), m.layers - moe));
  // Xiaomi's 15B active (model card, technical report) fits the LM head counted and the embedding
  // not, as DeepSeek's figures do (model_spec.h ActiveCount; the test shows the three counts).
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

// DeepSeek-V4 (DeepseekV4ForCausalLM; deepseek-ai/DeepSeek-V4-Flash inference/model.py, read in
// the copy at Nicooo-Wang/DeepSeek-V4-Pro-code@0ec3a03c2fc34f29b2e72696ceaed9ae7a373aeb, and
// vLLM's vllm/model_executor/models/deepseek_v4.py at vllm-project/vllm@023da1fc):
//   attention  CompressedAttention (layer_kinds.h): head_dim wide queries (num_attention_heads)
//              over one KV head (num_key_value_heads must be 1), q_lora_rank, o_groups x
//              o_lora_rank, a sliding_window of raw KV, compress_ratios[i] in {0, 4, 128} for
//              layer i (the list may run on over the MTP layers: ModelArgs.compress_ratios
//              covers n_layers + n_mtp_layers, the MTP block being Block(n_layers + i)), the
//              indexer of the ratio-4 layers (index_n_heads, index_head_dim, index_topk);
//   MoE        every layer (MoE in Block, no dense layers): n_routed_experts of
//              moe_intermediate_size, top num_experts_per_tok, n_shared_experts (1, the code
//              asserts it); the first num_hash_layers route by Gate.tid2eid;
//   residual   hc_mult streams (hyper-connections, ModelSpec::hc_mult);
//   MTP        num_nextn_predict_layers MTPBlocks sharing the embedding and head.
// Active parameters, as DeepSeek counts V3's (the LM head, not the embedding lookup), with the
// hyper-connection weights (fp32 mixing matrices, 34M in Flash, 84M in Pro) that every token
// uses: Flash 13.27B against "13B activated" (+2.1%: the published figure is rounded to the
// billion, and no finer split is published), Pro 48.85B against "49B" (-0.3%). The total (284.33B against "284B", 1573.0B against "1.6T") counts both tables and
// leaves the MTP block out, as V3's 671B does.
void read_deepseek_v4(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  if (m.kv_heads != 1)
    throw Error(fmt::format("{}: DeepSeek-V4 attention has one KV head (num_key_value_heads 1); got {}", w, m.kv_heads));
  CompressedAttention& c = m.compressed;
  c.head_dim = m.head_dim;
  c.rope_dim = static_cast<int>(f.at_least("qk_rope_head_dim", 1));
  if (c.rope_dim >= c.head_dim)
    throw Error(fmt::format("{}: qk_rope_head_dim {} must be below head_dim {}", w, c.rope_dim, c.head_dim));
  c.q_lora_rank = static_cast<int>(f.at_least("q_lora_rank", 1));
  c.o_groups = static_cast<int>(f.at_least("o_groups", 1));
  c.o_lora_rank = static_cast<int>(f.at_least("o_lora_rank", 1));
  if (m.heads % c.o_groups != 0)
    throw Error(fmt::format("{}: num_attention_heads {} is not a multiple of o_groups {}", w, m.heads, c.o_groups));
  c.window = static_cast<int>(f.at_least("sliding_window", 1));
  const std::vector<std::int64_t> ratios = f.integers("compress_ratios");
  m.mtp_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0));
  if (m.mtp_layers < 0)
    throw Error(fmt::format("{}: num_nextn_predict_layers must be >= 0, got {}", w, m.mtp_layers));
  if (static_cast<int>(ratios.size()) < m.layers)
    throw Error(fmt::format("{}: compress_ratios lists {} layers, fewer than num_hidden_layers {}", w, ratios.size(),
                            m.layers));
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    const std::int64_t r = ratios[i];
    if (r != 0 && r != CompressedAttention::kIndexedRatio && r != CompressedAttention::kDenseRatio)
      throw Error(fmt::format("{}: compress_ratios[{}] is {}: servesim models DeepSeek-V4's ratios 0 (the window "
                              "only), 4 (compressed, with the indexer) and 128 (compressed, all read), no other",
                              w, i, r));
    if (static_cast<int>(i) >= m.layers) {
      // The MTP blocks' (counted in mtp_params with a window-only attention).
      if (static_cast<int>(i) < m.layers + m.mtp_layers && r != 0)
        throw Error(fmt::format("{}: compress_ratios[{}] (an MTP layer's) is {}: servesim counts the MTP layers with "
                                "the window-only attention (ratio 0)",
                                w, i, r));
      continue;
    }
    (r == 0 ? c.window_layers : r == CompressedAttention::kIndexedRatio ? c.indexed_layers : c.dense_layers)++;
  }
  if (c.indexed_layers > 0) {
    c.indexer.heads = static_cast<int>(f.at_least("index_n_heads", 1));
    c.indexer.head_dim = static_cast<int>(f.at_least("index_head_dim", 1));
    c.indexer.topk = static_cast<int>(f.at_least("index_topk", 1));
  }
  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.moe.hash_layers = static_cast<int>(f.integer("num_hash_layers", 0));
  if (m.moe.hash_layers < 0 || m.moe.hash_layers > m.layers)
    throw Error(fmt::format("{}: num_hash_layers {} must be in 0..{}", w, m.moe.hash_layers, m.layers));
  m.hc_mult = static_cast<int>(f.integer("hc_mult", 0));
  if (m.hc_mult < 0) throw Error(fmt::format("{}: hc_mult must be >= 0, got {}", w, m.hc_mult));
  if (m.hc_mult == 1) m.hc_mult = 0;  // one stream: a plain residual
  m.mtp_own_tables = false;  // MTPBlock.embed / .head are the model's (Transformer.__init__)
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

namespace {

// A per-layer list of 0 / 1 flags (MiniMax-M3's moe_layer_freq, sparse_attention_freq,
// sparse_disable_index_value): one entry per layer, each 0 or 1.
std::vector<bool> layer_flags(const nlohmann::json& list, const std::string& where, const std::string& name,
                              int layers) {
  if (!list.is_array())
    throw Error(fmt::format("{}: {} must list 0 or 1 for each of the {} layers", where, name, layers));
  if (static_cast<int>(list.size()) != layers)
    throw Error(fmt::format("{}: {} lists {} layers, num_hidden_layers is {}", where, name, list.size(), layers));
  std::vector<bool> flags;
  for (const nlohmann::json& x : list) {
    if (!x.is_number_integer() || (x.get<std::int64_t>() != 0 && x.get<std::int64_t>() != 1))
      throw Error(fmt::format("{}: {} entries must be 0 or 1, got {}", where, name, excerpt(x.dump())));
    flags.push_back(x.get<std::int64_t>() == 1);
  }
  return flags;
}

}  // namespace

// MiniMax-M3 (MiniMaxM3ForCausalLM; NVIDIA's NVFP4 re-export wraps the same text model as
// MiniMaxM3SparseForCausalLM). Shapes as TensorRT-LLM builds them
// (NVIDIA/TensorRT-LLM@016beb63206cd26a73d50844812b3b174a95f60e:
// tensorrt_llm/_torch/models/modeling_minimaxm3.py, MiniMaxM3MoE and MiniMaxM3Attention) and
// the MiniMax Sparse Attention kernels (MiniMax-AI/MSA@32877839e1331029a1a1222f4139d6daf5672ad8,
// README.en.md):
//   attention  GQA of num_attention_heads x head_dim over num_key_value_heads on every layer,
//              per-head q/k RMSNorms (head_dim weights each: not counted, as Qwen3's are not)
//              and partial RoPE (rotary_dim); attention_output_gate true is refused (its
//              shape is not published);
//   MSA        on the layers sparse_attention_config.sparse_attention_freq marks (layers
//              3-59): an index branch, index_q_proj (hidden -> sparse_num_index_heads x
//              sparse_index_dim), index_k_proj (hidden -> one sparse_index_dim key, cached per
//              token) and their two RMSNorms, scores every earlier token, a block is scored by
//              its best token (sparse_score_type "max") and each query reads the
//              sparse_topk_blocks best blocks of sparse_block_size tokens, its own (local)
//              block among them ("Valid TopK entries ... with the local block in the last
//              valid position", MSA README). servesim prices this with DSA's machinery
//              (LocalAttention topk, SparseIndexer): topk_blocks x block_size keys a query, and
//              min(p, that) at position p. Approximation: the local block is partly filled
//              (the query's own block holds (p - 1) mod block + 1 tokens), so past the first
//              16 blocks a query reads up to block - 1 = 127 keys fewer than servesim's 2048
//              (on average 63.5, 3.1%). sparse_disable_index_value 0 on a sparse layer (an
//              index value and output branch, whose shapes TensorRT-LLM does not build) and
//              sparse_init_block > 0 (always-kept leading blocks, not described) are refused;
//   MLP        moe_layer_freq per layer: dense layers of dense_intermediate_size, MoE layers
//              of num_local_experts routed experts of intermediate_size (MiniMaxM3MoE's
//              ffn_dim; moe_intermediate_size, where given, must agree), top
//              num_experts_per_tok, sigmoid scores with a routing bias, and n_shared_experts
//              shared experts of shared_intermediate_size; swigluoai is a gated (clamped
//              SwiGLU) activation: gate, up and down projections;
//   MTP        num_mtp_modules / num_nextn_predict_layers name MTP modules whose shapes the
//              config does not give: not counted (as MiniMax-M2's and Step-3.7's).
// MiniMax's "~23B activated" (model card) counts neither table, as its M2 figure does.
void read_minimax_m3(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  m.gated_mlp = true;  // hidden_act swigluoai: w1 (gate), w3 (up), w2 (down)
  if (f.boolean("attention_output_gate", false))
    throw Error(fmt::format("{}: attention_output_gate true: MiniMax-M3's output gate is not described (its shape "
                            "is not in the published code); servesim will not price it as Qwen3-Next's",
                            w));
  // MLP kinds per layer.
  if (!f.has("moe_layer_freq"))
    throw Error(fmt::format("{}: moe_layer_freq must list 0 (dense) or 1 (MoE) for each of the {} layers", w, m.layers));
  const std::vector<bool> moe_flags = layer_flags(f.doc()["moe_layer_freq"], w, "moe_layer_freq", m.layers);
  int moe = 0, leading_dense = 0;
  for (const bool x : moe_flags) {
    if (x) ++moe;
    else if (moe == 0) ++leading_dense;
  }
  if (moe == 0)
    throw Error(fmt::format("{}: moe_layer_freq marks no MoE layer; servesim will not read {} as a dense model", w,
                            m.architecture));
  if (moe + leading_dense == m.layers) m.moe.dense_layers = leading_dense;
  else m.moe.listed_layers = moe;
  if (f.has("first_k_dense_replace") && f.integer("first_k_dense_replace") != leading_dense)
    throw Error(fmt::format("{}: first_k_dense_replace {} disagrees with moe_layer_freq's {} leading dense layers", w,
                            f.integer("first_k_dense_replace"), leading_dense));
  if (m.layers - moe > 0) m.ffn = f.at_least("dense_intermediate_size", 1);
  m.moe.num_experts = static_cast<int>(f.at_least("num_local_experts", 1));
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: num_experts_per_tok {} exceeds num_local_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("intermediate_size", 1);
  if (f.has("moe_intermediate_size") && f.integer("moe_intermediate_size") != m.moe.expert_ffn)
    throw Error(fmt::format("{}: moe_intermediate_size {} differs from intermediate_size {}, which the published "
                            "code sizes the routed experts by: servesim will not guess which holds",
                            w, f.integer("moe_intermediate_size"), m.moe.expert_ffn));
  m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: n_shared_experts must be >= 0, got {}", w, m.moe.shared_experts));
  m.moe.shared_expert_ffn = f.integer("shared_intermediate_size", m.moe.expert_ffn);

  // MiniMax Sparse Attention.
  if (f.has("sparse_attention_config")) {
    const nlohmann::json& o = f.doc()["sparse_attention_config"];
    if (!o.is_object()) throw Error(fmt::format("{}: sparse_attention_config must be an object", w));
    const JsonFields s(o, w + " (sparse_attention_config)");
    if (s.boolean("use_sparse_attention", true)) {
      if (!s.has("sparse_attention_freq"))
        throw Error(fmt::format("{}: sparse_attention_freq must list 0 (full) or 1 (sparse) for each layer", s.where()));
      const std::vector<bool> sparse = layer_flags(o["sparse_attention_freq"], s.where(), "sparse_attention_freq", m.layers);
      std::vector<bool> no_value(m.layers, false);
      if (s.has("sparse_disable_index_value"))
        no_value = layer_flags(o["sparse_disable_index_value"], s.where(), "sparse_disable_index_value", m.layers);
      int layers = 0;
      for (int i = 0; i < m.layers; ++i) {
        if (!sparse[i]) continue;
        ++layers;
        if (!no_value[i])
          throw Error(fmt::format("{}: sparse layer {} keeps the index value branch (sparse_disable_index_value 0): "
                                  "its projections are not described, so servesim cannot count or price them",
                                  s.where(), i));
      }
      if (s.integer("sparse_init_block", 0) != 0)
        throw Error(fmt::format("{}: sparse_init_block {}: always-kept leading blocks are not modelled", s.where(),
                                s.integer("sparse_init_block")));
      const std::int64_t blocks = s.at_least("sparse_topk_blocks", 1), block = s.at_least("sparse_block_size", 1);
      const std::int64_t local = s.integer("sparse_local_block", 0);
      if (local < 0 || local > blocks)
        throw Error(fmt::format("{}: sparse_local_block {} must be within [0, sparse_topk_blocks = {}]", s.where(),
                                local, blocks));
      SparseIndexer ix;
      ix.heads = static_cast<int>(s.at_least("sparse_num_index_heads", 1));
      ix.head_dim = static_cast<int>(s.at_least("sparse_index_dim", 1));
      ix.block = static_cast<int>(block);
      ix.topk = static_cast<int>(blocks * block);
      ix.head_weights = false;
      ix.key_fp8 = false;
      // A top-k that covers the whole context is full attention (as read_deepseek does).
      if (layers > 0 && ix.topk < m.max_context) {
        m.indexer = ix;
        m.local.kind = LocalAttention::Kind::topk;
        m.local.span = ix.topk;
        m.local.layers = layers;
      }
    }
  }
  const std::int64_t mtp = std::max(f.integer("num_mtp_modules", 0), f.integer("num_nextn_predict_layers", 0));
  if (mtp < 0) throw Error(fmt::format("{}: num_mtp_modules must be >= 0, got {}", w, mtp));
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

// MiMo-7B (MiMoForCausalLM; XiaomiMiMo's modeling_mimo.py): a Qwen2 decoder (q/k/v biases,
// attention_bias) with num_nextn_predict_layers MTP layers (MiMoMTPLayers): a Qwen2 attention
// and MLP of the main layers' shapes, input_proj (2 hidden -> hidden, no bias) and five
// RMSNorms (input, post-attention, token, hidden, final), sharing the model's embedding and
// LM head. servesim's mtp_params() counts that module exactly (its 5 hidden of norms, no tables).
void read_mimo(const JsonFields& f, ModelSpec& m) {
  m.mtp_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0));
  if (m.mtp_layers < 0)
    throw Error(fmt::format("{}: num_nextn_predict_layers must be >= 0, got {}", f.where(), m.mtp_layers));
  m.mtp_own_tables = false;
}

}  // namespace servesim
