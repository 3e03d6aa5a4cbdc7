#include "model/model_catalog.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/parsed_file_cache.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

std::vector<std::string> model_catalog_names() { return list_catalog("models"); }

void validate_model(const ModelSpec& m, const std::string& where) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("{}: model '{}': {}", where, m.name, why)); };
  if (m.layers <= 0) fail("layers must be positive");
  if (m.hidden <= 0) fail("hidden_size must be positive");
  if (m.heads <= 0 || m.kv_heads <= 0) fail("heads and kv_heads must be positive");
  if (m.heads % m.kv_heads != 0)
    fail(fmt::format("{} attention heads are not a multiple of {} KV heads", m.heads, m.kv_heads));
  if (m.head_dim <= 0) fail("head_dim must be positive");
  if (m.vocab <= 0) fail("vocab_size must be positive");
  if (m.moe.enabled()) {
    if (m.moe.experts_per_token <= 0 || m.moe.experts_per_token > m.moe.num_experts)
      fail(fmt::format("experts_per_token {} must be in 1..{}", m.moe.experts_per_token, m.moe.num_experts));
    if (m.moe.expert_ffn <= 0) fail("moe.expert_intermediate_size must be positive");
    if (m.moe.dense_layers < 0 || m.moe.dense_layers > m.layers) fail("moe.dense_layers out of range");
  }
  if ((!m.moe.enabled() || m.moe.dense_layers > 0) && m.ffn <= 0) fail("mlp.intermediate_size must be positive");
}

ModelSpec parse_model(YamlMap& doc) {
  ModelSpec m;
  m.source_file = doc.file();
  doc.integer("schema_version", 1);
  m.name = doc.string("name");
  m.hf_id = doc.string("hf_id", "");
  m.architecture = doc.string("architecture", "");
  m.layers = static_cast<int>(doc.integer("layers"));
  m.hidden = doc.integer("hidden_size");
  YamlMap attn = doc.map("attention");
  m.heads = static_cast<int>(attn.integer("heads"));
  m.kv_heads = static_cast<int>(attn.integer("kv_heads", m.heads));
  m.head_dim = static_cast<int>(attn.integer("head_dim", m.heads > 0 ? m.hidden / m.heads : 0));
  m.qkv_bias = attn.boolean("qkv_bias", false);
  attn.allow({"qk_norm", "sliding_window"});
  attn.finish();
  YamlMap mlp = doc.map("mlp");
  m.ffn = mlp.integer("intermediate_size", 0);
  m.gated_mlp = mlp.boolean("gated", true);
  mlp.finish();
  m.vocab = doc.integer("vocab_size");
  m.tied_embeddings = doc.boolean("tie_word_embeddings", false);
  m.max_context = doc.integer("max_context", 4096);
  m.native_dtype = parse_dtype(doc.string("native_dtype", "bf16"), doc.where("native_dtype"));
  if (doc.has("moe")) {
    YamlMap moe = doc.map("moe");
    m.moe.num_experts = static_cast<int>(moe.integer("experts"));
    m.moe.experts_per_token = static_cast<int>(moe.integer("experts_per_token"));
    m.moe.shared_experts = static_cast<int>(moe.integer("shared_experts", 0));
    m.moe.expert_ffn = moe.integer("expert_intermediate_size");
    m.moe.shared_expert_ffn = moe.integer("shared_expert_intermediate_size", 0);
    m.moe.dense_layers = static_cast<int>(moe.integer("dense_layers", 0));
    moe.finish();
  }
  if (doc.has("mla")) {
    YamlMap mla = doc.map("mla");
    m.mla.q_lora_rank = static_cast<int>(mla.integer("q_lora_rank", 0));
    m.mla.kv_lora_rank = static_cast<int>(mla.integer("kv_lora_rank"));
    m.mla.qk_nope_head_dim = static_cast<int>(mla.integer("qk_nope_head_dim"));
    m.mla.qk_rope_head_dim = static_cast<int>(mla.integer("qk_rope_head_dim"));
    m.mla.v_head_dim = static_cast<int>(mla.integer("v_head_dim"));
    mla.finish();
  }
  doc.finish();
  validate_model(m, doc.file());
  return m;
}

ModelSpec load_model(const std::string& name_or_path) {
  if (ends_with(name_or_path, ".json")) return import_hf_config(name_or_path);
  std::string path = name_or_path;
  if (!looks_like_path(name_or_path)) {
    path = catalog_dir("models") + "/" + name_or_path + ".yaml";
    if (!file_exists(path)) {
      const auto names = model_catalog_names();
      throw Error(fmt::format(
          "unknown model '{}'{} (known models: {}; or give a path to a model YAML or a config.json)",
          name_or_path, did_you_mean(name_or_path, names), join(names)));
    }
  } else if (!file_exists(path)) {
    reject_directory(path);
    throw Error(fmt::format("{}: model file not found", path));
  }
  static ParsedFileCache<ModelSpec> cache;  // sweeps load the same file per point
  return cache.get(path, [&] {
    YamlMap doc(load_yaml_file(path), path);
    return parse_model(doc);
  });
}

}  // namespace servesim
