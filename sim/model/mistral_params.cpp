// Mistral's own checkpoint format: a folder with params.json (and consolidated weights) in
// place of a Hugging Face config.json, as mistralai ships Mistral Large 3, Devstral, Magistral,
// Ministral and others. Read as vLLM reads it with --config-format mistral
// (vllm/transformers_utils/configs/mistral.py, adapt_config_dict): the names are mapped onto
// transformers' and the architecture chosen from what the file holds:
//   dim -> hidden_size, n_layers -> num_hidden_layers, n_heads -> num_attention_heads,
//   n_kv_heads -> num_key_value_heads, hidden_dim -> intermediate_size, norm_eps ->
//   rms_norm_eps, tied_embeddings -> tie_word_embeddings (default false), activation ->
//   hidden_act (default silu), max_position_embeddings / max_seq_len (default 128,000);
//   sliding_window as a list (one entry per layer of a repeating pattern, null = full) ->
//   layer_types; quantization {qformat_weight: fp8_e4m3} -> quant_method fp8, a
//   compressed-tensors quantization passed through;
//   a `moe` section with shared experts (Mistral Large 3) -> DeepSeek-V3's fields
//   (num_experts -> n_routed_experts, expert_hidden_dim -> moe_intermediate_size,
//   num_shared_experts -> n_shared_experts, first_k_dense_replace, route_every_n ->
//   moe_layer_freq, num_expert_groups -> n_group, num_expert_groups_per_tok -> topk_group),
//   architecture MistralLarge3ForCausalLM; a `moe` section without them -> Mixtral
//   (num_local_experts, num_experts_per_tok); MLA fields (qk_nope_head_dim, ...) kept as named;
//   model_type mamba -> Mamba2ForCausalLM; otherwise MistralForCausalLM;
//   a vision encoder (vision_encoder, or multimodal.vision_encoder_args) -> a Pixtral wrapper
//   with the language model as its text_config (the encoder left out, as for every wrapper).
#include "model/mistral_params.h"

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {
namespace {
using nlohmann::json;

void rename(json& j, const char* from, const char* to) {
  if (!j.contains(from)) return;
  j[to] = j[from];
  j.erase(from);
}

bool truthy(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return false;
  const json& v = j[key];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_object() || v.is_array()) return !v.empty();
  if (v.is_string()) return !v.get<std::string>().empty();
  return true;
}

void remap_sliding_window(json& c, const std::string& path) {
  if (!truthy(c, "sliding_window")) return;
  const json& w = c["sliding_window"];
  if (w.is_array()) {
    if (!c.contains("num_hidden_layers") || !c["num_hidden_layers"].is_number_integer())
      throw Error(fmt::format("{}: sliding_window is a per-layer pattern but n_layers is missing", path));
    const std::int64_t layers = c["num_hidden_layers"].get<std::int64_t>();
    const std::int64_t n = static_cast<std::int64_t>(w.size());
    if (layers <= 0 || layers % n != 0)
      throw Error(fmt::format("{}: sliding_window lists a pattern of {} layers, which does not divide n_layers = {}",
                              path, n, layers));
    json types = json::array();
    std::optional<std::int64_t> window;
    for (std::int64_t i = 0; i < layers; ++i) {
      const json& x = w[static_cast<std::size_t>(i % n)];
      if (x.is_null()) {
        types.push_back("full_attention");
        continue;
      }
      if (!x.is_number_integer() || x.get<std::int64_t>() <= 0)
        throw Error(fmt::format("{}: sliding_window entries are a window in tokens or null, got {}", path, x.dump()));
      if (window && *window != x.get<std::int64_t>())
        throw Error(fmt::format("{}: sliding_window lists two window sizes ({} and {}); one is read", path, *window,
                                x.get<std::int64_t>()));
      window = x.get<std::int64_t>();
      types.push_back("sliding_attention");
    }
    c["layer_types"] = types;
    c["sliding_window"] = window ? json(*window) : json(nullptr);
  } else if (w.is_number_integer()) {
    if (!c.contains("layer_types") && c.contains("num_hidden_layers") && c["num_hidden_layers"].is_number_integer())
      c["layer_types"] = json(std::vector<std::string>(c["num_hidden_layers"].get<std::size_t>(), "sliding_attention"));
  } else {
    throw Error(fmt::format("{}: sliding_window must be a number of tokens or a list of them, got {}", path, w.dump()));
  }
}

void remap_quantization(json& c, const std::string& path) {
  if (!truthy(c, "quantization")) return;
  json q = c["quantization"];
  c.erase("quantization");
  if (q.is_object() && q.value("qformat_weight", std::string()) == "fp8_e4m3") {
    const std::string act = q.contains("qscheme_act") && q["qscheme_act"].is_string() ? q["qscheme_act"].get<std::string>() : "";
    c["quantization_config"] = {{"quant_method", "fp8"}, {"activation_scheme", act == "NO_SCALES" ? "dynamic" : "static"}};
    return;
  }
  std::string method = q.is_object() && q.contains("quant_method") && q["quant_method"].is_string()
                           ? q["quant_method"].get<std::string>()
                           : "";
  for (char& ch : method) ch = ch == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (method == "compressed-tensors") {
    q["quant_method"] = "compressed-tensors";
    c["quantization_config"] = q;
    return;
  }
  throw Error(fmt::format("{}: quantization {} is not one Mistral's format defines (qformat_weight fp8_e4m3, or a "
                          "compressed-tensors config)",
                          path, q.dump().substr(0, 200)));
}

}  // namespace

json mistral_params_to_hf(const json& params, const std::string& path) {
  if (!params.is_object()) throw Error(fmt::format("{}: expected an object", path));
  json c = params;
  rename(c, "dim", "hidden_size");
  rename(c, "norm_eps", "rms_norm_eps");
  rename(c, "n_kv_heads", "num_key_value_heads");
  rename(c, "n_layers", "num_hidden_layers");
  rename(c, "n_heads", "num_attention_heads");
  rename(c, "hidden_dim", "intermediate_size");
  auto take = [&](const char* hf, const char* mistral, const json& fallback) {
    json v = c.contains(mistral) ? c[mistral] : fallback;
    if (std::string(hf) != mistral) c.erase(mistral);
    c[hf] = v;
  };
  take("model_type", "model_type", "transformer");
  take("hidden_act", "activation", "silu");
  take("tie_word_embeddings", "tied_embeddings", false);
  take("max_position_embeddings", "max_position_embeddings", c.value("max_seq_len", json(128000)));
  if (!c.contains("torch_dtype") && !c.contains("dtype")) c["torch_dtype"] = "bfloat16";
  remap_sliding_window(c, path);
  remap_quantization(c, path);

  const bool moe = truthy(c, "moe");
  const bool shared = moe && c["moe"].is_object() && c["moe"].value("num_shared_experts", json(0)).is_number() &&
                      c["moe"].value("num_shared_experts", json(0)).get<double>() > 0;
  const bool mla = truthy(c, "qk_nope_head_dim");
  if (c["model_type"] == "mamba") {
    c["architectures"] = {"Mamba2ForCausalLM"};
  } else if (shared || (mla && !moe)) {
    // Mistral Large 3: DeepSeek-V3's layers (an MLA model without a moe section is read
    // as one of dense layers only, as vLLM's _remap_mistral_mla_args does).
    if (moe) {
      json m = c["moe"];
      c.erase("moe");
      const std::pair<const char*, const char*> names[] = {
          {"route_every_n", "moe_layer_freq"},        {"first_k_dense_replace", "first_k_dense_replace"},
          {"num_experts_per_tok", "num_experts_per_tok"}, {"num_experts", "n_routed_experts"},
          {"expert_hidden_dim", "moe_intermediate_size"}, {"routed_scale", "routed_scaling_factor"},
          {"num_shared_experts", "n_shared_experts"},  {"num_expert_groups", "n_group"},
          {"num_expert_groups_per_tok", "topk_group"}};
      for (const auto& [from, to] : names)
        if (m.contains(from)) c[to] = m[from];
    } else {
      c["n_routed_experts"] = 1;
      c["num_experts_per_tok"] = 1;
      c["n_shared_experts"] = 1;
      c["first_k_dense_replace"] = c.value("num_hidden_layers", json(0));
      c["moe_layer_freq"] = 1;
      c["moe_intermediate_size"] = c.value("intermediate_size", json(0));
    }
    c["model_type"] = "deepseek_v3";
    c["architectures"] = {"MistralLarge3ForCausalLM"};
  } else if (moe) {
    const json& m = c["moe"];
    if (m.is_object()) {
      if (m.contains("num_experts")) c["num_local_experts"] = m["num_experts"];
      if (m.contains("num_experts_per_tok")) c["num_experts_per_tok"] = m["num_experts_per_tok"];
    }
    c.erase("moe");
    c["architectures"] = {"MixtralForCausalLM"};
  } else {
    c["architectures"] = {"MistralForCausalLM"};
  }

  const json* vision = nullptr;
  if (c.contains("multimodal") && c["multimodal"].is_object() && truthy(c["multimodal"], "vision_encoder_args"))
    vision = &c["multimodal"]["vision_encoder_args"];
  else if (truthy(c, "vision_encoder"))
    vision = &c["vision_encoder"];
  if (c.contains("multimodal") && c["multimodal"].is_object() && truthy(c["multimodal"], "whisper_model_args"))
    throw Error(fmt::format("{}: an audio encoder (multimodal.whisper_model_args: Voxtral) is not read from Mistral's "
                            "format; use the checkpoint's config.json",
                            path));
  if (vision) {
    json v = *vision;
    json text = c;
    text.erase("multimodal");
    text.erase("vision_encoder");
    json w = {{"model_type", "pixtral"}, {"architectures", {"PixtralForConditionalGeneration"}}, {"vision_config", v}};
    if (text.contains("quantization_config")) w["quantization_config"] = text["quantization_config"];
    w["text_config"] = std::move(text);
    return w;
  }
  return c;
}

}  // namespace servesim
