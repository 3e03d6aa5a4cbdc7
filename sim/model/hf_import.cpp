// Hugging Face config.json import. Field names follow transformers' configuration
// classes (LlamaConfig, MixtralConfig, Qwen2Config, Qwen3Config, DeepseekV3Config).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

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
      "DeepseekV2ForCausalLM", "YiForCausalLM",     "GraniteForCausalLM"};
  return s;
}

class JsonFields {
 public:
  JsonFields(const json& j, std::string file) : j_(j), file_(std::move(file)) {}
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::int64_t integer(const char* key) const {
    if (!has(key)) throw Error(fmt::format("{}: missing field '{}'", file_, key));
    if (!j_[key].is_number_integer())
      throw Error(fmt::format("{}: field '{}' must be an integer, got {}", file_, key, j_[key].dump()));
    return j_[key].get<std::int64_t>();
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
  // ".../llama-3.1-8b-instruct/config.json" -> "llama-3.1-8b-instruct"
  const auto parts = split(path, '/');
  if (parts.size() >= 2 && parts.back() == "config.json") return parts[parts.size() - 2];
  return parts.back();
}

}  // namespace

namespace {
ModelSpec import_parsed_config(const json& j, const std::string& path);
}  // namespace

ModelSpec import_hf_config(const std::string& path) {
  if (!file_exists(path) && !std::filesystem::is_directory(path))
    throw Error(fmt::format("{}: cannot open config.json", path));
  const json j = read_json_file(path);  // a directory, bad syntax, 1e999: Errors naming the file
  // The field readers check types before get<>(); this is the net for any they miss
  // (a nlohmann exception is not a servesim::Error).
  try {
    return import_parsed_config(j, path);
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
                              j["architectures"].dump()));
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

  // MoE, as each family names it.
  if (f.has("num_local_experts")) {  // Mixtral
    m.moe.num_experts = static_cast<int>(f.integer("num_local_experts"));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = m.ffn;
  } else if (f.has("n_routed_experts")) {  // DeepSeek V2/V3
    m.moe.num_experts = static_cast<int>(f.integer("n_routed_experts"));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.shared_experts = static_cast<int>(f.integer("n_shared_experts", 0));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    m.moe.shared_expert_ffn = m.moe.expert_ffn;
    m.moe.dense_layers = static_cast<int>(f.integer("first_k_dense_replace", 0));
  } else if (f.has("num_experts") && f.integer("num_experts") > 0) {  // Qwen MoE
    m.moe.num_experts = static_cast<int>(f.integer("num_experts"));
    m.moe.experts_per_token = static_cast<int>(f.integer("num_experts_per_tok"));
    m.moe.expert_ffn = f.integer("moe_intermediate_size");
    const std::int64_t shared = f.integer("shared_expert_intermediate_size", 0);
    if (shared > 0) {
      m.moe.shared_experts = 1;
      m.moe.shared_expert_ffn = shared;
    }
  }
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
