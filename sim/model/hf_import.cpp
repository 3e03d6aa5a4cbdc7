// Hugging Face config.json import. Field names follow transformers' configuration
// classes (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config,
// Qwen3MoeConfig, DeepseekV2Config, DeepseekV3Config, NemotronConfig, Gemma2Config,
// Gemma3TextConfig, Llama4TextConfig). Multimodal wrappers (Gemma 3, Llama 4) are read
// through their text_config: servesim serves the language model.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "model/hf_quantization.h"
#include "model/model_catalog.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {
namespace {

using nlohmann::json;

// Decoder-only families whose shapes the cost model describes faithfully.
const std::set<std::string>& supported_architectures() {
  static const std::set<std::string> s = {
      "LlamaForCausalLM",   "MistralForCausalLM",   "MixtralForCausalLM", "Qwen2ForCausalLM",
      "Qwen3ForCausalLM",   "Qwen2MoeForCausalLM",  "Qwen3MoeForCausalLM", "DeepseekV3ForCausalLM",
      "DeepseekV2ForCausalLM", "YiForCausalLM",     "GraniteForCausalLM", "NemotronForCausalLM",
      "Gemma2ForCausalLM",  "Gemma3ForCausalLM",    "Gemma3ForConditionalGeneration",
      "Llama4ForCausalLM",  "Llama4ForConditionalGeneration"};
  return s;
}

class JsonFields {
 public:
  JsonFields(const json& j, std::string file) : j_(j), file_(std::move(file)) {}
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::int64_t integer(const char* key) const {
    if (!has(key)) throw Error(fmt::format("{}: missing field '{}'", file_, key));
    if (!j_[key].is_number_integer())
      throw Error(fmt::format("{}: field '{}' must be an integer, got {}", file_, key, excerpt(j_[key].dump())));
    // Every integer field read here is a model dimension or count, several stored
    // in int: a value beyond int32 (no model comes near) is refused before any cast
    // could wrap it (2^32 + 32 heads would have become 32).
    const json& v = j_[key];
    constexpr auto kMax = static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max());
    const bool too_big = v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMax)
                                                : v.get<std::int64_t>() > kMax || v.get<std::int64_t>() < -kMax;
    if (too_big)
      throw Error(fmt::format("{}: field '{}' = {} is out of range (at most {}; no model comes near it)", file_, key,
                              excerpt(v.dump()), kMax));
    return v.get<std::int64_t>();
  }
  std::int64_t integer(const char* key, std::int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_boolean()) throw Error(fmt::format("{}: field '{}' must be true or false", file_, key));
    return j_[key].get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    return has(key) && j_[key].is_string() ? j_[key].get<std::string>() : fallback;
  }

 private:
  const json& j_;
  std::string file_;
};

std::string model_name_from_path(const std::string& path) {
  // ".../llama-3.1-8b-instruct/config.json" -> "llama-3.1-8b-instruct"; a folder -> its name
  auto parts = split(path, '/');
  while (parts.size() > 1 && (parts.back().empty() || parts.back() == ".")) parts.pop_back();
  if (parts.size() >= 2 && parts.back() == "config.json") return parts[parts.size() - 2];
  return parts.back();
}

}  // namespace

namespace {
ModelSpec import_parsed_config(const json& j, const std::string& path);
}  // namespace

ModelSpec import_hf_config(const std::string& given) {
  // A model folder as downloaded (huggingface-cli download, git clone): its config.json.
  const std::string path = is_directory(given) ? (std::filesystem::path(given) / "config.json").string() : given;
  if (!file_exists(path)) {
    if (is_directory(given))
      throw Error(fmt::format("{}: a folder without a config.json: not a Hugging Face model folder", given));
    throw Error(fmt::format("{}: cannot open config.json", path));
  }
  const json j = read_json_file(path);  // bad syntax, 1e999: Errors naming the file
  // The field readers check types before get<>(); this is the net for any they miss
  // (a nlohmann exception is not a servesim::Error).
  try {
    ModelSpec m = import_parsed_config(j, path);
    // ModelOpt checkpoints describe their quantization in hf_quant_config.json beside
    // config.json (older ones only there); config.json's own quantization_config wins.
    const std::string modelopt = (std::filesystem::path(path).parent_path() / "hf_quant_config.json").string();
    if (file_exists(modelopt) && !(j.contains("quantization_config") && !j["quantization_config"].is_null())) {
      const json q = read_json_file(modelopt);
      try {
        const CheckpointQuantization c = quantization_from_modelopt(q, modelopt);
        m.native_dtype = c.weights;
        m.weight_groups = c.groups;
      } catch (const json::exception& e) {
        throw Error(json_field_error(modelopt, "unexpected value", e));
      }
    }
    m.name = model_name_from_path(given);
    return m;
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected value", e));
  }
}

namespace {
// How many of the layers `layer_types` (transformers' per-layer list, newer configs)
// marks `kind`; -1 when the config has no such list.
int count_layer_types(const json& text, const std::string& kind) {
  if (!text.contains("layer_types") || !text["layer_types"].is_array()) return -1;
  int n = 0;
  for (const json& t : text["layer_types"])
    if (t.is_string() && t.get<std::string>() == kind) ++n;
  return n;
}

// Local attention, as each family describes it (kept only where it binds below
// max_position_embeddings, model_spec.h).
void read_local_attention(const json& text, const JsonFields& f, const std::string& arch, ModelSpec& m) {
  LocalAttention local;
  if (arch.rfind("Llama4", 0) == 0) {
    // Llama 4: chunked attention on the RoPE layers, global attention on the NoPE ones.
    // no_rope_layers lists 1 (RoPE) or 0 (NoPE) per layer; empty, it follows
    // no_rope_layer_interval (default 4): layer i is NoPE when (i + 1) % 4 == 0
    // (transformers' Llama4TextConfig).
    if (!f.has("attention_chunk_size")) return;
    local.kind = LocalAttention::Kind::chunked;
    local.span = f.integer("attention_chunk_size");
    int rope = 0;
    const bool listed = text.contains("no_rope_layers") && text["no_rope_layers"].is_array() &&
                        !text["no_rope_layers"].empty();
    if (listed) {
      for (const json& x : text["no_rope_layers"])
        if (x.is_number_integer() && x.get<int>() != 0) ++rope;
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
    const int listed = count_layer_types(text, "sliding_attention");
    if (listed >= 0) {
      local.layers = listed;
    } else if (arch == "Gemma2ForCausalLM") {
      local.layers = (m.layers + 1) / 2;  // layers 0, 2, 4, ... (transformers' Gemma2 layer_types)
    } else if (arch.rfind("Gemma3", 0) == 0) {
      // Every sliding_window_pattern-th layer (1-based) is global, the others local.
      const std::int64_t p = f.integer("sliding_window_pattern");
      local.layers = p > 0 ? m.layers - static_cast<int>(m.layers / p) : m.layers;
    } else if (arch.rfind("Qwen", 0) == 0) {
      // Qwen2/3: layers from max_window_layers on use the window (transformers' Qwen2Attention).
      local.layers = std::max(0, m.layers - static_cast<int>(f.integer("max_window_layers", 28)));
    } else {
      local.layers = m.layers;  // Mistral 7B v0.1: every layer
    }
  }
  if (local.span <= 0 || local.layers <= 0 || local.span >= m.max_context) return;
  m.local = local;
}

// Llama 4's MoE: num_local_experts routed experts of intermediate_size plus one shared
// expert of the same size on every interleave_moe_layer_step-th layer (moe_layers, when
// listed), dense MLPs of intermediate_size_mlp on the others.
void read_llama4_moe(const json& text, const JsonFields& f, ModelSpec& m, const std::string& where) {
  m.moe.num_experts = static_cast<int>(f.integer("num_local_experts"));
  if (m.moe.num_experts < 1)
    throw Error(fmt::format("{}: num_local_experts must be at least 1, got {}", where, m.moe.num_experts));
  m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok", 1));
  m.moe.expert_ffn = f.integer("intermediate_size");
  m.moe.shared_experts = 1;
  m.moe.shared_expert_ffn = m.moe.expert_ffn;
  m.ffn = f.integer("intermediate_size_mlp", m.moe.expert_ffn);
  const std::int64_t step = f.integer("interleave_moe_layer_step", 1);
  if (step < 1) throw Error(fmt::format("{}: interleave_moe_layer_step must be >= 1, got {}", where, step));
  m.moe.layer_step = static_cast<int>(step);
  if (text.contains("moe_layers") && text["moe_layers"].is_array() && !text["moe_layers"].empty()) {
    // An explicit list: servesim needs the count only; it must be the step's pattern's.
    const auto listed = static_cast<int>(text["moe_layers"].size());
    if (listed != m.layers / m.moe.layer_step)
      throw Error(fmt::format("{}: moe_layers lists {} MoE layers where interleave_moe_layer_step {} over {} layers "
                              "gives {}; servesim models MoE on every step-th layer only",
                              where, listed, step, m.layers, m.layers / m.moe.layer_step));
  }
}

ModelSpec import_parsed_config(const json& j, const std::string& path) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", path));

  std::string arch;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()) {
    // A non-string entry would make get<std::string>() throw nlohmann's type_error,
    // which is not a servesim::Error and would escape the CLI's error reporting.
    if (!j["architectures"][0].is_string())
      throw Error(fmt::format("{}: field 'architectures' must be a list of strings, got {}", path,
                              excerpt(j["architectures"].dump())));
    arch = j["architectures"][0].get<std::string>();
  }
  if (arch.empty()) throw Error(fmt::format("{}: missing field 'architectures'", path));
  if (!supported_architectures().count(arch)) {
    std::vector<std::string> names(supported_architectures().begin(), supported_architectures().end());
    std::string why;
    if (j.contains("text_config") || j.contains("vision_config"))
      why = " (a multimodal wrapper: its text model would need interleaved dense/MoE layers and vision encoders, which servesim does not model yet)";
    throw Error(fmt::format("{}: architecture '{}' is not supported{}. Supported: {}. Describe the model in a "
                            "models/*.yaml file instead.",
                            path, arch, why, join(names)));
  }

  // A multimodal wrapper's language model is its text_config (dtype and quantization
  // stay the wrapper's). Gemma 3's published text_config leaves out what equals
  // transformers' Gemma3TextConfig defaults (the 12B's gives no head_dim or
  // vocab_size): those defaults fill the gaps.
  const bool gemma3 = arch.rfind("Gemma3", 0) == 0;
  const bool llama4 = arch.rfind("Llama4", 0) == 0;
  const bool nested = j.contains("text_config") && j["text_config"].is_object();
  json text = nested ? j["text_config"] : j;
  if (gemma3) {
    const json defaults = {{"head_dim", 256},         {"vocab_size", 262208},        {"max_position_embeddings", 131072},
                           {"sliding_window", 4096},  {"sliding_window_pattern", 6}, {"tie_word_embeddings", true},
                           {"hidden_activation", "gelu_pytorch_tanh"}};
    for (auto it = defaults.begin(); it != defaults.end(); ++it)
      if (!text.contains(it.key()) || text[it.key()].is_null()) text[it.key()] = it.value();
  }
  for (const char* k : {"torch_dtype", "dtype", "_name_or_path", "tie_word_embeddings"})
    if (!text.contains(k) && j.contains(k)) text[k] = j[k];
  const std::string where = nested ? path + " (text_config)" : path;
  JsonFields f(text, where);
  ModelSpec m;
  m.source_file = path;
  m.architecture = arch;
  m.name = model_name_from_path(path);
  m.hf_id = f.string("_name_or_path", "");
  m.layers = static_cast<int>(f.integer("num_hidden_layers"));
  m.hidden = f.integer("hidden_size");
  m.heads = static_cast<int>(f.integer("num_attention_heads"));
  m.kv_heads = static_cast<int>(f.integer("num_key_value_heads", m.heads));
  // Without head_dim, transformers takes hidden_size / num_attention_heads: a remainder
  // means the config is not what it claims (and the division would drop it silently).
  if (!f.has("head_dim") && !f.has("kv_lora_rank") && m.heads > 0 && m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {} and no head_dim is given",
                            where, m.hidden, m.heads));
  m.head_dim = static_cast<int>(f.integer("head_dim", m.heads > 0 ? m.hidden / m.heads : 0));
  m.ffn = f.integer("intermediate_size", 0);
  m.vocab = f.integer("vocab_size");
  m.tied_embeddings = f.boolean("tie_word_embeddings", arch.rfind("Gemma", 0) == 0);  // Gemma configs default to tied
  m.max_context = f.integer("max_position_embeddings", 4096);
  // Qwen2 puts biases on q/k/v by design; Llama-family configs say so in attention_bias.
  m.qkv_bias = f.boolean("attention_bias", arch == "Qwen2ForCausalLM" || arch == "Qwen2MoeForCausalLM");
  const std::string act = f.string("hidden_act", f.string("hidden_activation", "silu"));
  m.gated_mlp = act == "silu" || act == "swiglu" || act == "gelu_pytorch_tanh" || act == "geglu";
  const std::string dtype = f.string("torch_dtype", f.string("dtype", "bfloat16"));
  m.native_dtype = parse_dtype(dtype, path + ": torch_dtype");
  // A quantized checkpoint stores its weights at the quantized precision, whatever
  // torch_dtype (the dtype of the unquantized parts) says: that is the default the
  // scenario's model.weights falls back to (an explicit model.weights still wins).
  if (const auto q = quantization_from_config(j, path)) {
    m.native_dtype = q->weights;
    m.weight_groups = q->groups;
  }

  read_local_attention(text, f, arch, m);

  // MoE, as each family names it.
  if (llama4) {
    read_llama4_moe(text, f, m, where);
  } else if (f.has("num_local_experts")) {  // Mixtral
    m.moe.num_experts = static_cast<int>(f.integer("num_local_experts"));
    // 0 experts would read as a dense model with Mixtral's expert-sized FFN: refuse it.
    if (m.moe.num_experts < 1)
      throw Error(fmt::format("{}: num_local_experts must be at least 1 for {}, got {}", path, arch,
                              m.moe.num_experts));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = m.ffn;
  } else if (f.has("n_routed_experts")) {  // DeepSeek V2/V3
    m.moe.num_experts = static_cast<int>(f.integer("n_routed_experts"));
    if (m.moe.num_experts < 1)
      throw Error(fmt::format("{}: n_routed_experts must be at least 1, got {}", path, m.moe.num_experts));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    m.moe.shared_expert_ffn = m.moe.expert_ffn;
    m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
    m.mtp_layers = static_cast<int>(f.integer("num_nextn_predict_layers", 0));
    if (m.mtp_layers < 0)
      throw Error(fmt::format("{}: num_nextn_predict_layers must be >= 0, got {}", path, m.mtp_layers));
    if (f.integer("moe_layer_freq", 1) != 1)
      throw Error(fmt::format("{}: moe_layer_freq {} (MoE on every n-th layer) is not modelled; servesim reads "
                              "DeepSeek layers as first_k_dense_replace dense layers then MoE on every layer",
                              path, f.integer("moe_layer_freq", 1)));
  } else if (f.has("num_experts") && f.integer("num_experts") > 0) {  // Qwen MoE
    m.moe.num_experts = static_cast<int>(f.integer("num_experts"));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    // Qwen2/3-MoE: layer i is MoE unless listed in mlp_only_layers, and only when (i + 1)
    // is a multiple of decoder_sparse_step (transformers' Qwen3MoeDecoderLayer). The dense
    // ones are counted as servesim's leading dense layers (the same weights and per-token
    // work; only their place in a pipeline stage split may differ).
    const std::int64_t step = f.integer("decoder_sparse_step", 1);
    if (step < 1) throw Error(fmt::format("{}: decoder_sparse_step must be >= 1, got {}", path, step));
    std::set<std::int64_t> mlp_only;
    if (j.contains("mlp_only_layers") && j["mlp_only_layers"].is_array())
      for (const json& x : j["mlp_only_layers"])
        if (x.is_number_integer()) mlp_only.insert(x.get<std::int64_t>());
    int dense = 0;
    for (int i = 0; i < m.layers; ++i)
      if (mlp_only.count(i) || (i + 1) % step != 0) ++dense;
    m.moe.dense_layers = dense;
    const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
    if (shared > 0) {
      m.moe.shared_experts = 1;
      m.moe.shared_expert_ffn = shared;
    }
  }
  // A mixture-of-experts family whose config names no experts (num_experts: 0, or the
  // field missing) would be priced as a dense model with the expert-sized FFN.
  const bool moe_family = arch == "MixtralForCausalLM" || arch == "Qwen2MoeForCausalLM" ||
                          arch == "Qwen3MoeForCausalLM" || arch == "DeepseekV3ForCausalLM" ||
                          arch == "DeepseekV2ForCausalLM" || llama4;
  if (moe_family && !m.moe.enabled())
    throw Error(fmt::format("{}: {} is a mixture-of-experts architecture but the config gives no experts "
                            "(num_local_experts, num_experts or n_routed_experts missing or 0); servesim will not "
                            "read it as a dense model",
                            path, arch));
  if (f.has("kv_lora_rank")) {  // MLA
    m.mla.kv_lora_rank = static_cast<int>(f.integer("kv_lora_rank"));
    m.mla.q_lora_rank = static_cast<int>(f.integer("q_lora_rank", 0));
    m.mla.qk_nope_head_dim = static_cast<int>(f.integer("qk_nope_head_dim"));
    m.mla.qk_rope_head_dim = static_cast<int>(f.integer("qk_rope_head_dim"));
    m.mla.v_head_dim = static_cast<int>(f.integer("v_head_dim"));
    m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  }
  validate_model(m, path);
  return m;
}
}  // namespace

}  // namespace servesim
