#include "model/model_catalog.h"

#include <fmt/format.h>

#include <limits>
#include <string_view>

#include "config/yaml_text.h"
#include "util/error.h"
#include "util/parsed_file_cache.h"
#include "util/paths.h"
#include "util/text.h"
#include "config/config_ranges.h"

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

namespace {
// Model dimensions are read as int64 and stored partly in int: each is checked
// against a bound far above any published model before the cast, so that a huge
// value is an error rather than wrapped. The lower bound is left to
// validate_model, whose messages say what a non-positive value means.
constexpr std::int64_t kMaxLayers = 10'000;
constexpr std::int64_t kMaxHeads = 65'536;      // heads, KV heads, head_dim, experts
constexpr std::int64_t kMaxWidth = 1 << 24;     // hidden, FFN and vocabulary sizes (16.7M)
constexpr std::int64_t kMaxContext = 100'000'000;
constexpr IntRange kAnyBelow(std::int64_t max) { return {std::numeric_limits<std::int32_t>::min(), max}; }
constexpr std::string_view kWhy = "far beyond any published model";
}  // namespace

ModelSpec parse_model(ConfigMap& doc) {
  ModelSpec m;
  m.source_file = doc.file();
  check_schema_version(doc);
  m.name = doc.string("name");
  m.hf_id = doc.string("hf_id", "");
  m.architecture = doc.string("architecture", "");
  m.layers = static_cast<int>(integer_in(doc, "layers", kAnyBelow(kMaxLayers), kWhy));
  m.hidden = integer_in(doc, "hidden_size", kAnyBelow(kMaxWidth), kWhy);
  ConfigMap attn = doc.map("attention");
  m.heads = static_cast<int>(integer_in(attn, "heads", kAnyBelow(kMaxHeads), kWhy));
  m.kv_heads = static_cast<int>(integer_in(attn, "kv_heads", m.heads, kAnyBelow(kMaxHeads), kWhy));
  m.head_dim = static_cast<int>(integer_in(attn, "head_dim", m.heads > 0 ? m.hidden / m.heads : 0, kAnyBelow(kMaxHeads), kWhy));
  m.qkv_bias = attn.boolean("qkv_bias", false);
  attn.allow({"qk_norm", "sliding_window"});
  attn.finish();
  ConfigMap mlp = doc.map("mlp");
  m.ffn = integer_in(mlp, "intermediate_size", 0, kAnyBelow(kMaxWidth), kWhy);
  m.gated_mlp = mlp.boolean("gated", true);
  mlp.finish();
  m.vocab = integer_in(doc, "vocab_size", kAnyBelow(kMaxWidth), kWhy);
  m.tied_embeddings = doc.boolean("tie_word_embeddings", false);
  m.max_context = integer_in(doc, "max_context", 4096, {1, kMaxContext}, "tokens");
  m.native_dtype = parse_dtype(doc.string("native_dtype", "bf16"), doc.where("native_dtype"));
  if (doc.has("moe")) {
    ConfigMap moe = doc.map("moe");
    m.moe.num_experts = static_cast<int>(integer_in(moe, "experts", kAnyBelow(kMaxHeads), kWhy));
    m.moe.experts_per_token = static_cast<int>(integer_in(moe, "experts_per_token", kAnyBelow(kMaxHeads), kWhy));
    m.moe.shared_experts = static_cast<int>(integer_in(moe, "shared_experts", 0, kAnyBelow(kMaxHeads), kWhy));
    m.moe.expert_ffn = integer_in(moe, "expert_intermediate_size", kAnyBelow(kMaxWidth), kWhy);
    m.moe.shared_expert_ffn = integer_in(moe, "shared_expert_intermediate_size", 0, kAnyBelow(kMaxWidth), kWhy);
    m.moe.dense_layers = static_cast<int>(integer_in(moe, "dense_layers", 0, kAnyBelow(kMaxLayers), kWhy));
    moe.finish();
  }
  if (doc.has("mla")) {
    ConfigMap mla = doc.map("mla");
    m.mla.q_lora_rank = static_cast<int>(integer_in(mla, "q_lora_rank", 0, kAnyBelow(kMaxWidth), kWhy));
    m.mla.kv_lora_rank = static_cast<int>(integer_in(mla, "kv_lora_rank", kAnyBelow(kMaxWidth), kWhy));
    m.mla.qk_nope_head_dim = static_cast<int>(integer_in(mla, "qk_nope_head_dim", kAnyBelow(kMaxHeads), kWhy));
    m.mla.qk_rope_head_dim = static_cast<int>(integer_in(mla, "qk_rope_head_dim", kAnyBelow(kMaxHeads), kWhy));
    m.mla.v_head_dim = static_cast<int>(integer_in(mla, "v_head_dim", kAnyBelow(kMaxHeads), kWhy));
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
    const ConfigNode file = load_yaml_file(path);
    ConfigMap doc(file, path);
    return parse_model(doc);
  });
}

}  // namespace servesim
