// Hugging Face config.json import. Field names follow transformers' configuration
// classes (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config,
// Qwen3MoeConfig, Qwen3NextConfig, Qwen3_5TextConfig, DeepseekV2Config, DeepseekV3Config,
// NemotronConfig, NemotronHConfig, JambaConfig, GraniteMoeHybridConfig, GptOssConfig,
// Gemma2Config, Gemma3TextConfig, Gemma4TextConfig, Llama4TextConfig, Glm4MoeConfig,
// MiniMaxM2Config, KimiLinearConfig, Phi3Config, Qwen2_5_VLConfig, Ernie4_5Config, Olmo2Config,
// Olmo3Config, Glm4Config, Ernie4_5_MoeConfig, GemmaConfig, SmolLM3Config,
// SeedOssConfig, OlmoeConfig, Exaone4Config, HunYuanMoEV1Config, HunYuanDenseV1Config,
// BailingMoeV2Config, Cohere2Config, Dots1Config, ApertusConfig, FalconH1Config, Mamba2Config,
// MambaConfig, FalconMambaConfig, BambaConfig). A multimodal
// wrapper (Gemma 3/4, Llama 4, Qwen3-VL, Qwen3.5, Kimi-K2.5, Kimi K3, Mistral 3) is read through its
// text_config (Qwen2-VL and Qwen2.5-VL through their top-level fields, beside vision_config):
// servesim serves the language model, and says so of the vision encoder it leaves out.
//
// The common fields are read here; what a family adds (experts, state layers, sparse
// attention, sinks) by its reader (hf_families.cpp, hf_hybrid_families.cpp); the
// checkpoint's quantization by hf_quantization.cpp and hf_quant_groups.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "model/hf_config_fields.h"
#include "model/hf_families.h"
#include "model/hf_json.h"
#include "model/hf_quantization.h"
#include "model/mistral_params.h"
#include "model/model_catalog.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/warnings.h"

namespace servesim {
namespace {

using nlohmann::json;

std::string model_name_from_path(const std::string& path) {
  // ".../llama-3.1-8b-instruct/config.json" -> "llama-3.1-8b-instruct"; a folder -> its name
  auto parts = split(path, '/');
  while (parts.size() > 1 && (parts.back().empty() || parts.back() == ".")) parts.pop_back();
  if (parts.size() >= 2 && (parts.back() == "config.json" || parts.back() == "params.json")) return parts[parts.size() - 2];
  return parts.back();
}

std::string first_architecture(const json& j, const std::string& where) {
  if (!j.contains("architectures") || !j["architectures"].is_array() || j["architectures"].empty()) return "";
  // A non-string entry would make get<std::string>() throw nlohmann's type_error,
  // which is not a servesim::Error and would escape the CLI's error reporting.
  if (!j["architectures"][0].is_string())
    throw Error(fmt::format("{}: field 'architectures' must be a list of strings, got {}", where,
                            excerpt(j["architectures"].dump())));
  return j["architectures"][0].get<std::string>();
}

std::string model_type_of(const json& j) {
  return j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
}

// Local attention, as each family describes it (kept only where it binds below
// max_position_embeddings, model_spec.h).
void read_local_attention(const JsonFields& f, HfFamily family, const std::string& arch, ModelSpec& m) {
  LocalAttention local;
  if (family == HfFamily::llama4) {
    // Llama 4: chunked attention on the RoPE layers, global attention on the NoPE ones.
    // no_rope_layers lists 1 (RoPE) or 0 (NoPE) per layer; empty, it follows
    // no_rope_layer_interval (default 4): layer i is NoPE when (i + 1) % 4 == 0
    // (transformers' Llama4TextConfig).
    if (!f.has("attention_chunk_size")) return;
    local.kind = LocalAttention::Kind::chunked;
    local.span = f.integer("attention_chunk_size");
    if (local.span <= 0)
      throw Error(fmt::format("{}: attention_chunk_size {} must be a positive number of tokens (null: no chunking)",
                              f.where(), local.span));
    const std::vector<std::int64_t> listed = f.integers("no_rope_layers");
    int rope = 0;
    if (!listed.empty()) {
      for (const std::int64_t x : listed)
        if (x != 0) ++rope;
    } else {
      const std::int64_t every = f.integer("no_rope_layer_interval", 4);
      for (int i = 0; i < m.layers; ++i)
        if (every <= 0 || (i + 1) % every != 0) ++rope;
    }
    local.layers = rope;
  } else {
    // Qwen2/3 configs carry a window that is off unless use_sliding_window is true.
    if (!f.has("sliding_window") || !f.boolean("use_sliding_window", true)) return;
    local.kind = LocalAttention::Kind::sliding;
    local.span = f.integer("sliding_window");
    // No window is written as null (or use_sliding_window: false); a window of no
    // tokens cannot be run, and reading it as "no window" would price full attention.
    if (local.span <= 0)
      throw Error(fmt::format("{}: sliding_window {} must be a positive number of tokens (null: no window)",
                              f.where(), local.span));
    const int listed = count_layer_types(f, "sliding_attention");
    if (listed >= 0) {
      local.layers = listed;
    } else if (arch == "Gemma2ForCausalLM") {
      local.layers = (m.layers + 1) / 2;  // layers 0, 2, 4, ... (transformers' Gemma2 layer_types)
    } else if (arch.rfind("Gemma3", 0) == 0) {
      // Every sliding_window_pattern-th layer (1-based) is global, the others local.
      const std::int64_t p = f.integer("sliding_window_pattern");
      local.layers = p > 0 ? m.layers - static_cast<int>(m.layers / p) : m.layers;
    } else if (family == HfFamily::mimo_v2) {
      // MiMo-V2: hybrid_layer_pattern lists 0 (full attention) or 1 (sliding window) per layer.
      if (!f.has("hybrid_layer_pattern") || !f.doc()["hybrid_layer_pattern"].is_array())
        throw Error(fmt::format("{}: hybrid_layer_pattern must list 0 (full attention) or 1 (sliding window) for "
                                "each layer",
                                f.where()));
      const nlohmann::json& pattern = f.doc()["hybrid_layer_pattern"];
      if (static_cast<int>(pattern.size()) != m.layers)
        throw Error(fmt::format("{}: hybrid_layer_pattern lists {} layers, num_hidden_layers is {}", f.where(),
                                pattern.size(), m.layers));
      for (const nlohmann::json& x : pattern) {
        if (!x.is_number_integer() || (x.get<std::int64_t>() != 0 && x.get<std::int64_t>() != 1))
          throw Error(fmt::format("{}: hybrid_layer_pattern entries must be 0 (full) or 1 (sliding), got {}",
                                  f.where(), excerpt(x.dump())));
        if (x.get<std::int64_t>() == 1) ++local.layers;
      }
    } else if (family == HfFamily::gpt_oss) {
      local.layers = m.layers / 2;  // layers 0, 2, 4, ... (GptOssConfig's default layer_types)
    } else if (arch.rfind("Qwen", 0) == 0 || family == HfFamily::mimo) {  // MiMo-7B is a Qwen2 decoder
      // Qwen2/3: layers from max_window_layers on use the window (transformers' Qwen2Attention).
      const std::int64_t full = f.integer("max_window_layers", 28);
      if (full < 0 || full > m.layers)
        throw Error(fmt::format("{}: max_window_layers = {} must be within [0, num_hidden_layers = {}]: the layers "
                                "before it use full attention, the rest the sliding window",
                                f.where(), full, m.layers));
      local.layers = m.layers - static_cast<int>(full);
    } else {
      local.layers = m.layers;  // Mistral 7B v0.1: every layer
    }
  }
  if (local.span <= 0 || local.layers <= 0 || local.span >= m.max_context) return;
  m.local = local;
}

// A rough count of a wrapper's vision encoder weights from its vision_config, to say how much
// the language model's figures leave out: per block the attention (4 h^2) and the MLP (2 h i,
// 3 h i when gated: a silu vision MLP, Qwen2.5-VL's gate/up/down), and the patch embedding
// (3 p^2 h). Names differ by family (depth / num_hidden_layers, num_heads, vt_hidden_size ...);
// Qwen2-VL gives the tower's width as embed_dim (its hidden_size is the language model's) and
// its MLP as mlp_ratio x embed_dim. A config without them gives 0 (nothing said).
std::int64_t vision_params_estimate(const json& j) {
  // Ovis (2.5, 2.6) names it vit_config.
  const char* key = j.contains("vision_config") ? "vision_config" : "vit_config";
  if (!j.contains(key) || !j[key].is_object()) return 0;
  const json& v = j[key];
  auto num = [&](std::initializer_list<const char*> keys) -> std::int64_t {
    for (const char* k : keys)
      if (v.contains(k) && v[k].is_number_integer()) return v[k].get<std::int64_t>();
    return 0;
  };
  // Llama 3.2 Vision's encoder: num_hidden_layers local layers, then num_global_layers gated ones.
  const std::int64_t depth = num({"depth", "num_hidden_layers", "vt_num_hidden_layers", "n_layers"}) +
                             num({"num_global_layers"});
  const std::int64_t h = num({"embed_dim", "hidden_size", "vt_hidden_size", "width"});
  std::int64_t inter = num({"intermediate_size", "vt_intermediate_size"});
  const std::int64_t patch = num({"patch_size"});
  if (depth <= 0 || h <= 0) return 0;
  // In doubles: the sizes are the file's, unchecked, and a product of them may not fit 64 bits.
  const double hd = static_cast<double>(h);
  double inner = static_cast<double>(inter);
  if (inner <= 0 && v.contains("mlp_ratio") && v["mlp_ratio"].is_number() && v["mlp_ratio"].get<double>() > 0)
    inner = v["mlp_ratio"].get<double>() * hd;
  if (!(inner > 0)) inner = 4 * hd;
  const bool gated = v.contains("hidden_act") && v["hidden_act"].is_string() && v["hidden_act"].get<std::string>() == "silu";
  const double p = patch > 0 ? static_cast<double>(patch) : 0.0;
  const double estimate = static_cast<double>(depth) * (4 * hd * hd + (gated ? 3 : 2) * hd * inner) + 3 * p * p * hd;
  // Beyond any vision tower (the largest are a few billion): nothing said rather than a wrapped number.
  return estimate < 1e13 ? static_cast<std::int64_t>(estimate) : 0;
}

// What servesim lacks for an architecture it knows of and does not describe (said in its
// refusal). DeepSeek-V4, DeciLM, Falcon-H1 and StarCoder2, once here, have their readers
// (read_deepseek_v4, read_nemotron_nas, read_falcon_h1, read_starcoder2).
// LongCat-Flash, refused until its reader, has one too (hf_longcat_family.cpp), as has Step3
// (hf_step3_family.cpp).
// hf_hyb_families.cpp names those of its group it refuses (shared-block models, PLaMo 2's
// mixer; Llama 3.2 Vision, Ouro, IQuest-Loop-Coder and Gemma 3n, once here, are read:
// hf_mllama_family.cpp, hf_looped_family.cpp, hf_gemma3n_family.cpp).
// hf_late_2026_families.cpp names the late-2026 ones it lacks a part for.
std::string known_unsupported(const std::string& arch) {
  const std::string rest = rest2026_unsupported(arch);  // hf_rest_2026_families.cpp
  if (!rest.empty()) return rest;
  const std::string late = late2026_unsupported(arch);
  return late.empty() ? hyb_known_unsupported(arch) : late;
}

// Where a multimodal wrapper keeps its language model: the object and its key (null: the
// config is the language model), and the object holding the vision tower's config.
struct WrappedText {
  const json* text = nullptr;
  const char* key = nullptr;
  const json* towers = nullptr;
};
WrappedText wrapped_text_model(const json& j) {
  for (const char* key : {"text_config", "llm_config", "language_config"})
    if (j.contains(key) && j[key].is_object()) return {&j[key], key, &j};
  if (j.contains("thinker_config") && j["thinker_config"].is_object()) {
    const json& thinker = j["thinker_config"];
    if (thinker.contains("text_config") && thinker["text_config"].is_object())
      return {&thinker["text_config"], "thinker_config.text_config", &thinker};
  }
  return {};
}

// MiniCPM-V and MiniCPM-o keep their language model's fields at the top level and say which
// model it is only by `version` (vLLM minicpmv.py, MiniCPMV.__new__ and _SUPPORT_VERSION: 2.0 a
// MiniCPM, 2.5 Llama 3, 2.6 Qwen2, 4.0 Llama, 4.5 Qwen3; without a version, hidden_size 2304 with
// query_num 64 is 2.0, else 2.5; minicpmo.py: MiniCPM-o 2.6 is a Qwen2). The architecture that
// language model has; "" for any other config. A version servesim does not know is refused.
std::string implied_language_architecture(const json& j, const std::string& arch, const std::string& path) {
  if (arch != "MiniCPMV" && arch != "MiniCPMO") return "";
  if (arch == "MiniCPMO") return "Qwen2ForCausalLM";
  std::string version;
  if (j.contains("version") && j["version"].is_string()) version = j["version"].get<std::string>();
  if (j.contains("version") && j["version"].is_number()) version = fmt::format("{:.1f}", j["version"].get<double>());
  if (version.empty()) {
    const bool v2_0 = j.value("hidden_size", json(0)) == json(2304) && j.value("query_num", json(0)) == json(64);
    version = v2_0 ? "2.0" : "2.5";
  }
  if (version == "2.0" || version == "2") return "MiniCPMForCausalLM";
  if (version == "2.5" || version == "4.0" || version == "4") return "LlamaForCausalLM";
  if (version == "2.6") return "Qwen2ForCausalLM";
  if (version == "4.5") return "Qwen3ForCausalLM";
  throw Error(fmt::format("{}: {} version '{}' is not known (2.0, 2.5, 2.6, 4.0 and 4.5 are: each names the "
                          "language model inside)",
                          path, arch, version));
}

ModelSpec import_parsed_config(const json& j, const std::string& path) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected an object", path));

  const std::string arch = first_architecture(j, path);
  if (arch.empty()) throw Error(fmt::format("{}: missing field 'architectures'", path));
  // A multimodal wrapper's language model is its text_config (its dtype, name and
  // embedding tying default to the wrapper's); the text model's own architecture or
  // model_type says which family it is.
  // InternVL 2 / 2.5 / 3 / 3.5 (InternVLChatModel, remote code) name it llm_config, DeepSeek-VL2
  // language_config, and Qwen2.5-Omni / Qwen3-Omni keep it in their thinker (thinker_config's
  // text_config, with the vision and audio towers beside it; the talker that speaks is not
  // served: vLLM serves the thinker's text output).
  const WrappedText wrapped = wrapped_text_model(j);
  const char* text_key = wrapped.key;
  const bool nested = text_key != nullptr;
  json text = nested ? *wrapped.text : j;
  for (const char* k : {"torch_dtype", "dtype", "_name_or_path", "tie_word_embeddings"})
    if (!text.contains(k) && j.contains(k)) text[k] = j[k];
  const std::string where = nested ? fmt::format("{} ({})", path, text_key) : path;
  const std::string implied = nested ? "" : implied_language_architecture(j, arch, path);
  const std::string text_arch = nested ? first_architecture(text, where) : implied.empty() ? arch : implied;
  // The language model's own architecture where the wrapper's text model names one (an
  // InternVL around a Qwen2ForCausalLM has Qwen2's q/k/v biases; MiniCPM-V 2.6's version says
  // Qwen2), else the config's.
  const std::string& lm_arch = (nested && !text_arch.empty()) || !implied.empty() ? text_arch : arch;
  const std::string model_type = model_type_of(text).empty() ? model_type_of(j) : model_type_of(text);
  // The text model's own architecture first; a wrapper's text_config without one by its
  // model_type (Mistral 3's "ministral3", Qwen3-VL-MoE's "qwen3_vl_moe_text"), then by the
  // wrapper's architecture; a plain config by its architecture, then its model_type.
  std::optional<HfFamily> family;
  if (nested) {
    if (!text_arch.empty()) family = family_of_architecture(text_arch);
    if (!family) family = family_of_model_type(model_type);
    if (!family) family = family_of_architecture(arch);
  } else {
    family = family_of_architecture(lm_arch);
    if (!family) family = family_of_model_type(model_type);
  }
  if (!family) {
    const std::vector<std::string> names = supported_hf_architectures();
    const std::string kind = model_type.empty() ? "" : fmt::format(" (model_type '{}')", model_type);
    const std::string inner = nested && !text_arch.empty() && text_arch != arch
                                  ? fmt::format(" around a '{}' text model", text_arch)
                                  : "";
    throw Error(fmt::format("{}: architecture '{}'{}{} is not supported: servesim has no description of its "
                            "layers (their kinds, shapes and per-sequence state), so it cannot size or price "
                            "it{}{}. Supported: {}. Describe the model in a models/*.yaml file instead.",
                            path, arch, kind, inner, known_unsupported(arch),
                            // a near name is no help for an architecture known to be missing
                            known_unsupported(arch).empty() ? did_you_mean(arch, names) : "", join(names)));
  }

  // Gemma 3's published text_config leaves out what equals transformers'
  // Gemma3TextConfig defaults (the 12B's gives no head_dim or vocab_size): those
  // defaults fill the gaps.
  const bool gemma3 = arch.rfind("Gemma3", 0) == 0;
  if (gemma3) {
    const json defaults = {{"head_dim", 256},         {"vocab_size", 262208},        {"max_position_embeddings", 131072},
                           {"sliding_window", 4096},  {"sliding_window_pattern", 6}, {"tie_word_embeddings", true},
                           {"hidden_activation", "gelu_pytorch_tanh"}};
    for (auto it = defaults.begin(); it != defaults.end(); ++it)
      if (!text.contains(it.key()) || text[it.key()].is_null()) text[it.key()] = it.value();
  }
  if (*family == HfFamily::exaone) alias_exaone_fields(text);
  if (*family == HfFamily::step3p7) alias_step3p5_fields(text, where);
  if (*family == HfFamily::dbrx) alias_dbrx_fields(text, where);
  if (*family == HfFamily::longcat_flash) alias_longcat_fields(text, where);
  if (*family == HfFamily::step3) alias_step3_fields(text);
  alias_rest2026_fields(text, *family);
  if (*family == HfFamily::gemma3n) alias_gemma3n_fields(text, where);
  alias_legacy_fields(text, *family);
  JsonFields f(text, where);
  ModelSpec m;
  m.source_file = path;
  m.architecture = arch;
  m.name = model_name_from_path(path);
  m.hf_id = f.string("_name_or_path", "");
  // Nemotron 3 Ultra's config lists its blocks (layers_block_type) without num_hidden_layers;
  // a Nemotron-H Puzzle's may give only block_configs (num_hidden_layers null).
  const bool blocks_listed = f.has("block_configs") && f.doc()["block_configs"].is_array();
  m.layers = static_cast<int>(!f.has("num_hidden_layers") && f.has("layers_block_type")
                                  ? static_cast<std::int64_t>(f.strings("layers_block_type").size())
                              : !f.has("num_hidden_layers") && blocks_listed
                                  ? static_cast<std::int64_t>(f.doc()["block_configs"].size())
                                  : f.integer("num_hidden_layers"));
  m.hidden = f.integer("hidden_size");
  // A pure SSM (Mamba, Mamba-2) has no attention heads: its reader sets the mixer's.
  const bool attention_free = is_attention_free_family(*family);
  m.heads = attention_free ? 0 : static_cast<int>(f.integer("num_attention_heads"));
  m.kv_heads = static_cast<int>(f.integer("num_key_value_heads", m.heads));
  // Without head_dim (Nemotron-H: attention_head_dim), transformers takes hidden_size /
  // num_attention_heads: a remainder means the config is not what it claims (and the
  // division would drop it silently).
  const bool head_dim_given = f.has("head_dim") || f.has("attention_head_dim");
  if (!head_dim_given && !f.has("kv_lora_rank") && m.heads > 0 && m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {} and no head_dim is given",
                            where, m.hidden, m.heads));
  m.head_dim = attention_free ? 0
                              : static_cast<int>(f.integer(
                                    "head_dim", f.integer("attention_head_dim", m.heads > 0 ? m.hidden / m.heads : 0)));
  m.ffn = f.integer("intermediate_size", 0);
  m.vocab = f.integer("vocab_size");
  const bool gemma = arch.rfind("Gemma", 0) == 0;
  m.tied_embeddings = f.boolean("tie_word_embeddings", gemma);  // Gemma configs default to tied
  m.max_context = f.integer("max_position_embeddings", 4096);
  // Qwen2 puts biases on q/k/v by design; Llama-family configs say so in attention_bias.
  m.qkv_bias = f.boolean("attention_bias", lm_arch == "Qwen2ForCausalLM" || lm_arch == "Qwen2MoeForCausalLM");
  const std::string act = f.string("hidden_act", f.string("hidden_activation", "silu"));
  m.gated_mlp = act == "silu" || act == "swiglu" || act == "gelu_pytorch_tanh" || act == "geglu";
  const std::string dtype = f.string("torch_dtype", f.string("dtype", "bfloat16"));
  m.native_dtype = parse_dtype(dtype, path + ": torch_dtype");
  // A wrapper's vision tower, whether its text fields are nested (Qwen3-VL) or at the top level
  // beside vision_config (Qwen2-VL, Qwen2.5-VL).
  m.vision_params_estimate = vision_params_estimate(wrapped.towers ? *wrapped.towers : j);

  // DeepSeek-V4's sliding_window is its compressed attention's raw window (read_deepseek_v4).
  if (*family != HfFamily::deepseek_v4) read_local_attention(f, *family, implied.empty() ? arch : implied, m);

  switch (*family) {
    case HfFamily::dense: break;
    case HfFamily::mixtral: read_mixtral(f, m); break;
    case HfFamily::qwen_moe: read_qwen_moe(f, m); break;
    case HfFamily::deepseek: read_deepseek(f, m); break;
    case HfFamily::llama4: read_llama4_moe(f, m); break;
    case HfFamily::gpt_oss: read_gpt_oss(f, m); break;
    case HfFamily::qwen_hybrid: read_qwen_hybrid(f, m); break;
    case HfFamily::nemotron_h: read_nemotron_h(f, m); break;
    case HfFamily::jamba: read_jamba(f, m); break;
    case HfFamily::granite_hybrid: read_granite_hybrid(f, m); break;
    case HfFamily::minimax_m2: read_minimax_m2(f, m); break;
    case HfFamily::glm4_moe: read_glm4_moe(f, m); break;
    case HfFamily::gemma4: read_gemma4(f, m); break;
    case HfFamily::step3p7: read_step3p7(f, m); break;
    case HfFamily::mimo_v2: read_mimo_v2(f, m); break;
    case HfFamily::deepseek_v4: read_deepseek_v4(f, m); break;
    case HfFamily::kimi_linear: read_kimi_linear(f, m); break;
    case HfFamily::minimax_m3: read_minimax_m3(f, m); break;
    case HfFamily::mimo: read_mimo(f, m); break;
    case HfFamily::nemotron_nas: read_nemotron_nas(f, m); break;
    case HfFamily::phi3: read_phi3(f, m); break;
    case HfFamily::qwen2_vl: read_qwen2_vl(f, m); break;
    case HfFamily::ernie4_5: read_ernie4_5(f, m); break;
    case HfFamily::olmo2: read_olmo2(f, m); break;
    case HfFamily::glm4: read_glm4(f, m); break;
    case HfFamily::ernie4_5_moe: read_ernie4_5_moe(f, m); break;
    case HfFamily::gemma: read_gemma(f, m); break;
    case HfFamily::smollm3: read_smollm3(f, m); break;
    case HfFamily::seed_oss: read_seed_oss(f, m); break;
    case HfFamily::olmoe: read_olmoe(f, m); break;
    case HfFamily::exaone4: read_exaone4(f, m); break;
    case HfFamily::hunyuan_moe:
    case HfFamily::hunyuan_dense: read_hunyuan(f, m); break;
    case HfFamily::bailing_moe_v2: read_bailing_moe_v2(f, m); break;
    case HfFamily::cohere2: read_cohere2(f, m); break;
    case HfFamily::dots1: read_dots1(f, m); break;
    case HfFamily::apertus: read_apertus(f, m); break;
    case HfFamily::falcon_h1: read_falcon_h1(f, m); break;
    case HfFamily::mamba2: read_mamba2(f, m); break;
    case HfFamily::mamba: read_mamba(f, m); break;
    case HfFamily::bamba: read_bamba(f, m); break;
    case HfFamily::cohere: read_cohere(f, m); break;
    case HfFamily::phimoe: read_phimoe(f, m); break;
    case HfFamily::minicpm:
    case HfFamily::minicpm3: read_minicpm(f, m); break;
    case HfFamily::internlm2:
    case HfFamily::internlm3: read_internlm(f, m); break;
    case HfFamily::granite_moe: read_granite_moe(f, m); break;
    case HfFamily::arcee: read_arcee(f, m); break;
    case HfFamily::starcoder2: read_starcoder2(f, m); break;
    case HfFamily::exaone: read_exaone(f, m); break;
    case HfFamily::lfm2: read_lfm2(f, m); break;
    case HfFamily::lfm2_moe: read_lfm2_moe(f, m); break;
    case HfFamily::afmoe: read_afmoe(f, m); break;
    case HfFamily::exaone_moe: read_exaone_moe(f, m); break;
    case HfFamily::deepseek_moe: read_deepseek_moe(f, m); break;
    case HfFamily::dbrx: read_dbrx(f, m); break;
    case HfFamily::grok1: read_grok1(f, m); break;
    case HfFamily::hy_v3: read_hy_v3(f, m); break;
    case HfFamily::llama_alias:
    case HfFamily::glm:
    case HfFamily::orion:
    case HfFamily::telechat2:
    case HfFamily::hyperclovax:
    case HfFamily::rnj1:
    case HfFamily::gpt2:
    case HfFamily::gpt_bigcode:
    case HfFamily::gptj:
    case HfFamily::gpt_neox:
    case HfFamily::falcon:
    case HfFamily::phi:
    case HfFamily::stablelm:
    case HfFamily::opt:
    case HfFamily::bloom:
    case HfFamily::mpt:
    case HfFamily::qwen1:
    case HfFamily::baichuan:
    case HfFamily::chatglm:
    case HfFamily::olmo:
    case HfFamily::persimmon:
    case HfFamily::jais:
    case HfFamily::internlm2_ve:
    case HfFamily::jais2:
    case HfFamily::step1:
    case HfFamily::plamo3: read_legacy(*family, f, m); break;
    case HfFamily::minimax_text01: read_minimax_text01(f, m); break;
    case HfFamily::nemotron_h_puzzle: read_nemotron_h_puzzle(f, m); break;
    case HfFamily::bailing_moe_v2_5: read_bailing_moe_v2_5(f, m); break;
    case HfFamily::olmo_hybrid: read_olmo_hybrid(f, m); break;
    case HfFamily::cohere2_moe: read_cohere2_moe(f, m); break;
    case HfFamily::arctic: read_arctic(f, m); break;
    case HfFamily::pangu_pro_moe: read_pangu_pro_moe(f, m); break;
    case HfFamily::pangu_ultra_moe: read_pangu_ultra_moe(f, m); break;
    case HfFamily::sarvam_mla: read_sarvam_mla(f, m); break;
    case HfFamily::sarvam_moe: read_sarvam_moe(f, m); break;
    case HfFamily::axk1: read_axk1(f, m); break;
    case HfFamily::param2_moe: read_param2_moe(f, m); break;
    case HfFamily::laguna: read_laguna(f, m); break;
    case HfFamily::longcat_flash: read_longcat_flash(f, m); break;
    case HfFamily::ernie4_5_vl_moe: read_ernie4_5_vl_moe(f, m); break;
    case HfFamily::granite_swa: read_granite_swa(f, m); break;
    case HfFamily::granite_moe_swa: read_granite_moe_swa(f, m); break;
    case HfFamily::hy_v4: read_hy_v4(f, m); break;
    case HfFamily::muse_glimmer: read_muse_glimmer(f, m); break;
    case HfFamily::bailing_moe_v3: read_bailing_moe_v3(f, m); break;
    case HfFamily::inkling: read_inkling(f, m); break;
    case HfFamily::glm5_next: read_glm5_next(f, m); break;
    case HfFamily::qwen4_exp: read_qwen4_exp(f, m); break;
    case HfFamily::mllama: read_mllama(f, m); break;
    case HfFamily::ouro: read_ouro(f, m); break;
    case HfFamily::iquest_loop_coder: read_iquest_loop_coder(f, m); break;
    case HfFamily::zamba2: read_zamba2(f, m); break;
    case HfFamily::plamo2: read_plamo2(f, m); break;
    case HfFamily::gemma3n: read_gemma3n(f, m); break;
    case HfFamily::step3: read_step3(f, m); break;
  }
  // A mixture-of-experts family whose config names no experts (num_experts: 0, or the
  // field missing) would be priced as a dense model with the expert-sized FFN.
  if (is_moe_family(*family) && !m.moe.enabled())
    throw Error(fmt::format("{}: {} is a mixture-of-experts architecture but the config gives no experts "
                            "(num_local_experts, num_experts or n_routed_experts missing or 0); servesim will not "
                            "read it as a dense model",
                            path, arch));
  return m;
}

// The quantization config of a checkpoint: config.json's quantization_config (or its text
// model's) when it names a quant_method, else ModelOpt's hf_quant_config.json beside it.
std::optional<CheckpointQuantization> checkpoint_quantization(const json& j, const std::string& path) {
  const json* holder = &j;
  const WrappedText wrapped = wrapped_text_model(j);
  if (wrapped.text && !j.contains("quantization_config") && wrapped.text->contains("quantization_config"))
    holder = wrapped.text;
  const std::string modelopt = (std::filesystem::path(path).parent_path() / "hf_quant_config.json").string();
  if (!quantization_config_names_method(*holder) && file_exists(modelopt)) {
    const json q = read_hf_json_file(modelopt);
    try {
      return quantization_from_modelopt(q, modelopt);
    } catch (const json::exception& e) {
      throw Error(json_field_error(modelopt, "unexpected value", e));
    }
  }
  auto c = quantization_from_config(*holder, path);
  // Some ModelOpt exports write the scheme into config.json without its KV cache and keep
  // kv_cache_quant_algo only in hf_quant_config.json beside it (NVIDIA's Qwen3.6-35B-A3B-NVFP4:
  // "kv_cache_quant_algo": "FP8" there, no kv_cache_scheme in config.json). TensorRT-LLM reads
  // that file; the checkpoint's KV scales are FP8. A config that says nothing of its KV cache
  // takes the file's, and the source says so.
  if (c && !c->has_kv_cache && file_exists(modelopt)) {
    const json q = read_hf_json_file(modelopt);
    try {
      const CheckpointQuantization beside = quantization_from_modelopt(q, modelopt);
      if (beside.has_kv_cache) {
        c->has_kv_cache = true;
        c->kv_cache = beside.kv_cache;
        c->source += fmt::format("; KV cache {} from hf_quant_config.json beside it", dtype_name(beside.kv_cache));
      }
    } catch (const json::exception& e) {
      throw Error(json_field_error(modelopt, "unexpected value", e));
    }
  }
  return c;
}

}  // namespace

// DeepSeek-V4's expert_dtype: its quantization_config (fp8, blocks of 128 x 128) covers the
// linear layers, while expert_dtype "fp4" stores the routed experts in MXFP4 (4-bit E2M1
// values, one E8M0 scale per 32: inference/model.py's Linear with fp4_block_size 32 and
// float8_e8m0fnu scales; vLLM's DeepseekV4FP8Config: "expert_dtype=fp4 (e.g.
// DeepSeek-V4-Flash): MXFP4 experts"); "fp8" leaves them with the rest. The shared expert is
// an Expert without expert_dtype (MoE.__init__): fp8 with the rest. A ModelOpt re-export
// (NVIDIA's DeepSeek-V4-*-NVFP4: quant_method fp8 beside quant_algo MIXED_PRECISION) keeps
// the original expert_dtype but lists the modules it re-quantized (quantized_layers:
// "layers.N.ffn.experts" in NVFP4, groups of 16 with an fp8 E4M3 scale): those decide.
static void apply_expert_dtype(const json& j, const std::string& path, ModelSpec& m) {
  if (!j.contains("expert_dtype") || j["expert_dtype"].is_null()) return;
  const json& e = j["expert_dtype"];
  const std::string v = e.is_string() ? e.get<std::string>() : e.dump();
  if (v != "fp4" && v != "fp8")
    throw Error(fmt::format("{}: expert_dtype '{}' is not one servesim reads (fp4: MXFP4 experts, fp8)", path, v));
  const int i = static_cast<int>(TensorGroup::experts);
  const json* q = j.contains("quantization_config") && j["quantization_config"].is_object() ? &j["quantization_config"]
                                                                                           : nullptr;
  if (q && q->contains("quantized_layers") && (*q)["quantized_layers"].is_object()) {
    int listed = 0;
    std::int64_t group = 0;
    for (auto it = (*q)["quantized_layers"].begin(); it != (*q)["quantized_layers"].end(); ++it) {
      const std::string& name = it.key();
      if (name.find("experts") == std::string::npos || name.find("shared") != std::string::npos) continue;
      const json& l = it.value();
      const std::string algo = l.is_object() && l.contains("quant_algo") && l["quant_algo"].is_string()
                                   ? l["quant_algo"].get<std::string>()
                                   : "";
      if (algo != "NVFP4")
        throw Error(fmt::format("{}: quantization_config.quantized_layers.{}: quant_algo '{}' for DeepSeek-V4's "
                                "experts is not one servesim reads (NVFP4)",
                                path, name, algo));
      const std::int64_t g = l.contains("group_size") && l["group_size"].is_number_integer()
                                 ? l["group_size"].get<std::int64_t>()
                                 : 16;
      if (g <= 0 || (group > 0 && g != group))
        throw Error(fmt::format("{}: quantization_config.quantized_layers: the experts' group_size {} must be one "
                                "positive size",
                                path, g));
      group = g;
      ++listed;
    }
    if (listed == 0) return;
    const double share = std::min(1.0, static_cast<double>(listed) / std::max(1, m.moe_layers()));
    const double nvfp4 = 0.5 + 1.0 / static_cast<double>(group);  // an E2M1 value and its share of an E4M3 scale
    const double rest = m.weight_element_bytes(m.native_dtype, TensorGroup::experts);
    m.checkpoint.group_bytes[i] = share * nvfp4 + (1.0 - share) * rest;
    m.checkpoint.group_note[i] = fmt::format("nvfp4 (quantized_layers), groups of {} (fp8 scale), {} of {} layers",
                                             group, listed, m.moe_layers());
    m.checkpoint.source += ", quantized_layers NVFP4 experts";
    return;
  }
  if (v == "fp8") return;
  if (!m.checkpoint.present || !m.moe.enabled())
    throw Error(fmt::format("{}: expert_dtype fp4 needs a quantization_config and routed experts (the other weights' "
                            "precision and the experts it applies to)",
                            path));
  m.checkpoint.group_bytes[i] = 0.5 + 1.0 / 32.0;  // an E2M1 value and its share of an E8M0 scale per 32
  m.checkpoint.group_note[i] = "mxfp4 (expert_dtype fp4), blocks of 32 (e8m0 scale)";
  m.checkpoint.source += ", expert_dtype fp4";
}

ModelSpec import_hf_config(const std::string& given) {
  // A model folder as downloaded (huggingface-cli download, git clone): its config.json, else
  // Mistral's params.json (a folder in Mistral's own format, or the file named).
  std::string path = is_directory(given) ? (std::filesystem::path(given) / "config.json").string() : given;
  const std::string params = is_directory(given) ? (std::filesystem::path(given) / "params.json").string() : given;
  const bool mistral_format = (is_directory(given) && !file_exists(path) && file_exists(params)) ||
                              (!is_directory(given) && std::filesystem::path(given).filename() == "params.json");
  if (mistral_format) path = params;
  if (!file_exists(path)) {
    if (is_directory(given))
      throw Error(fmt::format("{}: a folder without a config.json (or Mistral's params.json): not a Hugging Face "
                              "model folder",
                              given));
    throw Error(fmt::format("{}: cannot open config.json", path));
  }
  // Bad syntax, 1e999: Errors naming the file; bare Infinity / NaN as transformers writes them: read.
  const json j = mistral_format ? mistral_params_to_hf(read_hf_json_file(path), path) : read_hf_json_file(path);
  // The field readers check types before get<>(); this is the net for any they miss
  // (a nlohmann exception is not a servesim::Error).
  try {
    ModelSpec m = import_parsed_config(j, path);
    // A quantized checkpoint stores its weights at the quantized precision, whatever
    // torch_dtype (the dtype of the unquantized parts) says: that is the default the
    // scenario's model.weights falls back to, with the groups it leaves unquantized.
    if (const std::optional<CheckpointQuantization> q = checkpoint_quantization(j, path)) apply_checkpoint_quantization(*q, m);
    apply_ple_table_quantization(j, m);
    apply_expert_dtype(j, path, m);
    m.name = model_name_from_path(given);
    validate_model(m, path);
    return m;
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}

}  // namespace servesim
