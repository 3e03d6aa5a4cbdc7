// Hugging Face config.json import. Field names follow transformers' configuration
// classes (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config,
// Qwen3MoeConfig, DeepseekV2Config, DeepseekV3Config, NemotronConfig).
#include <fmt/format.h>

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
      "DeepseekV2ForCausalLM", "YiForCausalLM",     "GraniteForCausalLM", "NemotronForCausalLM"};
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

  JsonFields f(j, path);
  ModelSpec m;
  m.source_file = path;
  m.architecture = arch;
  m.name = model_name_from_path(path);
  m.hf_id = f.string("_name_or_path", "");
  m.layers = static_cast<int>(f.integer("num_hidden_layers"));
  m.hidden = f.integer("hidden_size");
  m.heads = static_cast<int>(f.integer("num_attention_heads"));
  m.kv_heads = static_cast<int>(f.integer("num_key_value_heads", m.heads));
  m.head_dim = static_cast<int>(f.integer("head_dim", m.heads > 0 ? m.hidden / m.heads : 0));
  m.ffn = f.integer("intermediate_size", 0);
  m.vocab = f.integer("vocab_size");
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  m.max_context = f.integer("max_position_embeddings", 4096);
  // Qwen2 puts biases on q/k/v by design; Llama-family configs say so in attention_bias.
  m.qkv_bias = f.boolean("attention_bias", arch == "Qwen2ForCausalLM" || arch == "Qwen2MoeForCausalLM");
  const std::string act = f.string("hidden_act", "silu");
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

  // Sliding-window attention keeps only the last W tokens of K/V per layer; servesim's
  // KV and attention cost are full-context. Up to W tokens the two are the same, beyond
  // it they are not, so a config whose window binds is refused rather than mis-sized.
  // Qwen2/3 configs carry a window that is off unless use_sliding_window is true.
  if (f.has("sliding_window") && f.boolean("use_sliding_window", true)) {
    const std::int64_t window = f.integer("sliding_window");
    if (window > 0 && window < m.max_context) {
      throw Error(fmt::format(
          "{}: sliding_window {} is smaller than max_position_embeddings {}: servesim does not model "
          "sliding-window attention (its KV cache and attention would be sized for the full context, "
          "too large past {} tokens). To simulate requests of up to {} tokens, where both are the same, "
          "describe the model in a models/*.yaml file with max_context: {}",
          path, window, m.max_context, window, window, window));
    }
  }

  // MoE, as each family names it.
  if (f.has("num_local_experts")) {  // Mixtral
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
                          arch == "DeepseekV2ForCausalLM";
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
