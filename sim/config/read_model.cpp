// Reading a model file (models/*.yaml): the keys, each declared once, and the reader
// that fills ModelSpec through them. Hugging Face config.json files are
// model/hf_import.cpp's (JSON, not a configuration document).
#include <fmt/format.h>

#include <limits>
#include <optional>
#include <string>

#include "config/catalog_keys.h"
#include "config/catalog_reader.h"
#include "config/config_ranges.h"
#include "config/schema_version.h"
#include "config/yaml_text.h"
#include "util/error.h"
#include "util/parsed_file_cache.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/warnings.h"

namespace servesim {
namespace {

// Model dimensions are read as int64 and stored partly in int: each is checked
// against a bound far above any published model before the cast, so that a huge
// value is an error rather than wrapped. The lower bound (the declared min) is
// validate_model's, whose messages say what a non-positive value means, so the
// reader checks only down to INT32_MIN (what fits the int).
constexpr double kMaxLayers = 10'000;
constexpr double kMaxHeads = 65'536;    // heads, KV heads, head_dim, experts
constexpr double kMaxWidth = 1 << 24;   // hidden, FFN and vocabulary sizes (16.7M)
constexpr double kMaxContext = 100'000'000;
constexpr std::string_view kWhy = "far beyond any published model";

// A model dimension: `required`, or an optional one with its default (0 unless noted).
Key dim(std::string_view name, std::string_view doc, std::string_view spec, double max, bool required,
                  double min = 1, std::string_view default_note = {}) {
  Key k;
  k.name = name;
  k.type = KeyType::integer;
  k.doc = doc;
  k.spec = spec;
  k.required = required;
  k.default_note = default_note;
  k.min = min;
  k.max = max;
  k.why = kWhy;
  return k;
}

// --- (model file) ---
const Key kName{.name = "name", .type = KeyType::text, .doc = "catalog name, e.g. llama-3.1-8b",
                .spec = "ModelSpec::name", .required = true};
const Key kHfId{.name = "hf_id", .type = KeyType::text, .doc = "Hugging Face repository the shapes come from",
                .spec = "ModelSpec::hf_id"};
const Key kArchitecture{.name = "architecture", .type = KeyType::text,
                        .doc = "Hugging Face architectures[0], e.g. LlamaForCausalLM (shown only)",
                        .spec = "ModelSpec::architecture"};
const Key kLayers = dim("layers", "transformer layers (num_hidden_layers)", "ModelSpec::layers", kMaxLayers, true);
const Key kHidden = dim("hidden_size", "model width", "ModelSpec::hidden", kMaxWidth, true);
const Key kAttention{.name = "attention", .type = KeyType::section, .doc = "attention shapes"};
const Key kMlp{.name = "mlp", .type = KeyType::section, .doc = "dense MLP shapes"};
const Key kVocab = dim("vocab_size", "vocabulary size (embedding and LM head rows)", "ModelSpec::vocab", kMaxWidth, true);
const Key kTied{.name = "tie_word_embeddings", .type = KeyType::boolean,
                .doc = "LM head shares the input embedding's weights (counted once)", .spec = "ModelSpec::tied_embeddings"};
const Key kMaxContextKey{.name = "max_context", .type = KeyType::integer,
                         .doc = "longest sequence the model attends over (max_position_embeddings); "
                                "engine.max_model_len defaults to it",
                         .spec = "ModelSpec::max_context", .unit = "tokens", .default_number = 4096, .min = 1,
                         .max = kMaxContext, .why = "tokens"};
const Key kNativeDtype{.name = "native_dtype", .type = KeyType::text,
                       .doc = "precision the weights are published in (bf16, fp16, fp8, int4, ...); "
                              "model.weights defaults to it",
                       .spec = "ModelSpec::native_dtype", .unit = "precision", .default_text = "bf16"};
const Key kMtpLayers = dim("mtp_layers",
                           "multi-token-prediction modules shipped with the checkpoint (DeepSeek-V3's "
                           "num_nextn_predict_layers); engine.speculative.method mtp needs at least one",
                           "ModelSpec::mtp_layers", kMaxLayers, false, 0);
const Key kMoe{.name = "moe", .type = KeyType::section, .doc = "mixture of experts (absent: a dense model)"};
const Key kMla{.name = "mla", .type = KeyType::section,
               .doc = "multi-head latent attention, DeepSeek-V2/V3 (absent: standard attention)"};

// --- (model file).attention ---
const Key kHeads = dim("heads", "query heads", "ModelSpec::heads", kMaxHeads, true);
const Key kKvHeads = dim("kv_heads", "key/value heads (GQA; equal to heads for MHA)", "ModelSpec::kv_heads",
                         kMaxHeads, false, 1, "heads");
const Key kHeadDim = dim("head_dim", "width of one head", "ModelSpec::head_dim", kMaxHeads, false, 1,
                         "hidden_size / heads");
const Key kQkvBias{.name = "qkv_bias", .type = KeyType::boolean, .doc = "q/k/v projections have biases (Qwen2)",
                   .spec = "ModelSpec::qkv_bias"};
const Key kQkNorm{.name = "qk_norm", .type = KeyType::boolean,
                  .doc = "per-head RMSNorm on q and k (Qwen3). Read, NOT modelled: step times leave out these two "
                         "small elementwise kernels per layer (a warning says so when true); weights and KV are "
                         "unaffected",
                  .spec = "(not modelled)"};
const Key kSlidingWindow{.name = "sliding_window", .type = KeyType::integer,
                         .doc = "sliding-window attention: a local layer's query sees only the last this many "
                                "tokens (Mistral 7B v0.1, Gemma 2/3). Attention FLOPs and KV reads of the local "
                                "layers use min(context, window); with engine.free_window_kv their KV blocks stop "
                                "growing past the window (docs/configuration.md, \"Local attention\"). A window of "
                                "at least max_context never binds and changes nothing. null: none",
                         .spec = "LocalAttention::span", .unit = "tokens", .default_note = "none", .min = 1,
                         .max = kMaxContext};
const Key kAttentionChunk{.name = "attention_chunk", .type = KeyType::integer,
                          .doc = "chunked local attention (Llama 4's attention_chunk_size): the sequence is cut into "
                                 "chunks of this many tokens and a local layer's query sees its own chunk up to "
                                 "itself. Not with sliding_window. null: none",
                          .spec = "LocalAttention::span", .unit = "tokens", .default_note = "none", .min = 1,
                          .max = kMaxContext};
const Key kLocalLayers = dim("local_layers",
                             "layers that use sliding_window or attention_chunk; the others attend to the whole "
                             "context (Gemma 2: half; Gemma 3: 5 of every 6; Llama 4: 3 of every 4)",
                             "LocalAttention::layers", kMaxLayers, false, 1, "all layers");

// --- (model file).mlp ---
const Key kFfn = dim("intermediate_size", "dense MLP width (required unless every layer is MoE)", "ModelSpec::ffn",
                     kMaxWidth, false, 0);
const Key kGated{.name = "gated", .type = KeyType::boolean, .doc = "SwiGLU/GeGLU: gate and up projections",
                 .spec = "ModelSpec::gated_mlp", .default_bool = true};

// --- (model file).moe ---
const Key kExperts = dim("experts", "routed experts per MoE layer", "MoeSpec::num_experts", kMaxHeads, true);
const Key kTopK = dim("experts_per_token", "routed experts each token uses (top-k)", "MoeSpec::experts_per_token",
                      kMaxHeads, true);
const Key kSharedExperts = dim("shared_experts", "always-on experts (DeepSeek, Qwen-MoE)", "MoeSpec::shared_experts",
                               kMaxHeads, false, 0);
const Key kExpertFfn = dim("expert_intermediate_size", "width of one routed expert", "MoeSpec::expert_ffn",
                           kMaxWidth, true);
const Key kSharedFfn = dim("shared_expert_intermediate_size", "width of one shared expert",
                           "MoeSpec::shared_expert_ffn", kMaxWidth, false, 0, "0: expert_intermediate_size");
const Key kDenseLayers = dim("dense_layers", "leading layers with a dense MLP instead of MoE",
                             "MoeSpec::dense_layers", kMaxLayers, false, 0);
const Key kLayerStep = dim("layer_step",
                           "MoE on every layer_step-th layer after the dense ones, dense MLP (mlp.intermediate_size) "
                           "on the others (Llama 4 Maverick's interleave_moe_layer_step: 2)",
                           "MoeSpec::layer_step", kMaxLayers, false, 1, "1: every layer");

// --- (model file).mla ---
const Key kQLora = dim("q_lora_rank", "query compression rank (0: queries not compressed)", "MlaSpec::q_lora_rank",
                       kMaxWidth, false, 0);
const Key kKvLora = dim("kv_lora_rank", "KV latent width cached per token and layer", "MlaSpec::kv_lora_rank",
                        kMaxWidth, true);
const Key kNope = dim("qk_nope_head_dim", "per-head query/key width without rotary", "MlaSpec::qk_nope_head_dim",
                      kMaxHeads, true);
const Key kRope = dim("qk_rope_head_dim", "rotary key width, shared by all heads and cached", "MlaSpec::qk_rope_head_dim",
                      kMaxHeads, true);
const Key kVHead = dim("v_head_dim", "per-head value width", "MlaSpec::v_head_dim", kMaxHeads, true);

// A dimension through its declaration: the declared max, INT32_MIN below (see above).
std::int64_t read_dim(ConfigMap& m, const Key& k, std::int64_t fallback = 0) {
  const IntRange range{std::numeric_limits<std::int32_t>::min(), static_cast<std::int64_t>(k.max)};
  const std::string name(k.name);
  return k.required ? integer_in(m, name, range, k.why) : integer_in(m, name, fallback, range, k.why);
}
int read_int_dim(ConfigMap& m, const Key& k, std::int64_t fallback = 0) {
  return static_cast<int>(read_dim(m, k, fallback));
}

// The attention section; a local span (window or chunk), if any, is returned with
// its location for parse_model to check against max_context and the layer count
// (read later, in file order).
struct LocalSpan {
  LocalAttention local;
  std::string where;
};
std::optional<LocalSpan> read_attention(ConfigMap& attn, ModelSpec& m) {
  m.heads = read_int_dim(attn, kHeads);
  m.kv_heads = read_int_dim(attn, kKvHeads, m.heads);
  m.head_dim = read_int_dim(attn, kHeadDim, m.heads > 0 ? m.hidden / m.heads : 0);
  m.qkv_bias = read_boolean(attn, kQkvBias);
  if (read_boolean(attn, kQkNorm))
    warn(fmt::format("{}: true is read but not modelled: step times leave out the per-head RMSNorm of q and k (two "
                     "small elementwise kernels per layer, well under 1% of a step's memory traffic)",
                     attn.where("qk_norm")));
  std::optional<LocalSpan> span;
  const bool window = attn.get(std::string(kSlidingWindow.name)) != nullptr;  // null: no window
  const bool chunk = attn.get(std::string(kAttentionChunk.name)) != nullptr;
  if (window && chunk)
    throw Error(fmt::format("{}: give sliding_window or attention_chunk, not both (a local layer has one kind of "
                            "span)", attn.where("attention_chunk")));
  if (window || chunk) {
    const Key& k = window ? kSlidingWindow : kAttentionChunk;
    span = LocalSpan{};
    span->local.kind = window ? LocalAttention::Kind::sliding : LocalAttention::Kind::chunked;
    span->local.span = read_integer(attn, k);
    span->local.layers = read_int_dim(attn, kLocalLayers, m.layers);
    span->where = attn.where(std::string(k.name));
  } else if (attn.get(std::string(kLocalLayers.name))) {
    throw Error(fmt::format("{}: local_layers without sliding_window or attention_chunk (which span would they use?)",
                            attn.where("local_layers")));
  }
  attn.finish();
  return span;
}

// A window of at least max_context never binds (every query sees its whole
// context): the model is read as full attention, bit for bit the same numbers. A
// chunk always binds past its length, so it is kept whenever it is below max_context.
void apply_local(const std::optional<LocalSpan>& s, ModelSpec& m) {
  if (!s || s->local.span >= m.max_context) return;
  m.local = s->local;
}

void read_moe(ConfigMap& moe, MoeSpec& s) {
  s.num_experts = read_int_dim(moe, kExperts);
  s.experts_per_token = read_int_dim(moe, kTopK);
  s.shared_experts = read_int_dim(moe, kSharedExperts);
  s.expert_ffn = read_dim(moe, kExpertFfn);
  s.shared_expert_ffn = read_dim(moe, kSharedFfn);
  s.dense_layers = read_int_dim(moe, kDenseLayers);
  s.layer_step = read_int_dim(moe, kLayerStep, 1);
  moe.finish();
}

void read_mla(ConfigMap& mla, MlaSpec& s) {
  s.q_lora_rank = read_int_dim(mla, kQLora);
  s.kv_lora_rank = read_int_dim(mla, kKvLora);
  s.qk_nope_head_dim = read_int_dim(mla, kNope);
  s.qk_rope_head_dim = read_int_dim(mla, kRope);
  s.v_head_dim = read_int_dim(mla, kVHead);
  mla.finish();
}

}  // namespace

ModelSpec parse_model(ConfigMap& doc) {
  ModelSpec m;
  m.source_file = doc.file();
  check_schema_version(doc);
  m.name = read_text(doc, kName);
  m.hf_id = read_text(doc, kHfId);
  m.architecture = read_text(doc, kArchitecture);
  m.layers = read_int_dim(doc, kLayers);
  m.hidden = read_dim(doc, kHidden);
  ConfigMap attn = doc.map("attention");
  const std::optional<LocalSpan> local = read_attention(attn, m);
  ConfigMap mlp = doc.map("mlp");
  m.ffn = read_dim(mlp, kFfn);
  m.gated_mlp = read_boolean(mlp, kGated);
  mlp.finish();
  m.vocab = read_dim(doc, kVocab);
  m.tied_embeddings = read_boolean(doc, kTied);
  m.max_context = read_integer(doc, kMaxContextKey);
  apply_local(local, m);
  m.native_dtype = parse_dtype(read_text(doc, kNativeDtype), doc.where("native_dtype"));
  m.mtp_layers = static_cast<int>(read_dim(doc, kMtpLayers));
  if (has_key(doc, kMoe)) {
    ConfigMap moe = doc.map("moe");
    read_moe(moe, m.moe);
  }
  if (has_key(doc, kMla)) {
    ConfigMap mla = doc.map("mla");
    read_mla(mla, m.mla);
  }
  doc.finish();
  validate_model(m, doc.file());
  return m;
}

ModelSpec load_model(const std::string& name_or_path) {
  // A config.json, or a Hugging Face model folder (its config.json and hf_quant_config.json).
  if (ends_with(name_or_path, ".json") || is_directory(name_or_path)) return import_hf_config(name_or_path);
  std::string path = name_or_path;
  if (!looks_like_path(name_or_path)) {
    path = catalog_dir("models") + "/" + name_or_path + ".yaml";
    if (!file_exists(path)) {
      const auto names = model_catalog_names();
      throw Error(fmt::format(
          "unknown model '{}'{} (known models: {}; or give a path to a model YAML, a config.json or a Hugging Face model folder)",
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

std::vector<const KeySection*> model_file_key_sections() {
  static const KeySection top{"(model file)", "a model file (models/*.yaml, or any path given as model.name)", {}, {},
                              {&schema_version_key(), &kName, &kHfId, &kArchitecture, &kLayers, &kHidden, &kAttention, &kMlp, &kVocab,
                               &kTied, &kMaxContextKey, &kNativeDtype, &kMtpLayers, &kMoe, &kMla}};
  static const KeySection attention{"(model file).attention", "attention shapes", {}, {},
                                    {&kHeads, &kKvHeads, &kHeadDim, &kQkvBias, &kQkNorm, &kSlidingWindow,
                                     &kAttentionChunk, &kLocalLayers}};
  static const KeySection mlp{"(model file).mlp", "dense MLP", {}, {}, {&kFfn, &kGated}};
  static const KeySection moe{"(model file).moe", "mixture of experts", {}, {},
                              {&kExperts, &kTopK, &kSharedExperts, &kExpertFfn, &kSharedFfn, &kDenseLayers,
                               &kLayerStep}};
  static const KeySection mla{"(model file).mla", "multi-head latent attention", {}, {},
                              {&kQLora, &kKvLora, &kNope, &kRope, &kVHead}};
  return {&top, &attention, &mlp, &moe, &mla};
}

}  // namespace servesim
