// Reading a model file (models/*.yaml): the keys, each declared once, and the reader
// that fills ModelSpec through them. Hugging Face config.json files are
// model/hf_import.cpp's (JSON, not a configuration document).
#include <fmt/format.h>

#include <algorithm>
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
const Key kPositionRows = dim("position_table_rows",
                              "rows of a learned absolute position table, each hidden_size wide (GPT-2's wpe: "
                              "n_positions; OPT's embed_positions: max_position_embeddings + 2): counted in the "
                              "parameters and weights, a row lookup per token",
                              "ModelSpec::position_table_rows", kMaxContext, false, 0, "0: rotary, ALiBi or none");
const Key kEmbedProjDim = dim("embed_proj_dim",
                              "width of the token embedding and LM head where it differs from hidden_size (OPT-350m's "
                              "word_embed_proj_dim 512): tables of vocab_size x it, with project_in and project_out "
                              "(it x hidden_size each) between them and the layers",
                              "ModelSpec::embed_proj_dim", kMaxWidth, false, 0, "0: hidden_size");
const Key kFinalNorm{.name = "final_norm", .type = KeyType::boolean,
                     .doc = "a norm after the last layer (false: OPT-350m's post-LN layout)",
                     .spec = "ModelSpec::final_norm", .default_bool = true};
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
const Key kStateLayersSection{.name = "state_layers", .type = KeyType::section,
                              .doc = "recurrent layers in place of attention, with a constant per-sequence state "
                                     "(gated delta rule, Mamba-2, Mamba; absent: none)"};
const Key kSparseAttention{.name = "sparse_attention", .type = KeyType::section,
                           .doc = "DeepSeek sparse attention (DSA): an indexer picks the keys each query attends to "
                                  "(absent: none)"};
const Key kCheckpoint{.name = "checkpoint", .type = KeyType::section,
                      .doc = "how the published checkpoint stores and runs its tensors when native_dtype is quantized "
                             "(absent: every weight at native_dtype, nothing stated for activations and KV)"};
const Key kAttentionLayers = dim("attention_layers",
                                 "layers with softmax attention when not every layer has it (Nemotron-H's blocks are "
                                 "a single mixer or a single MLP each)",
                                 "ModelSpec::attention_layer_count", kMaxLayers, false, 0,
                                 "layers minus state_layers.layers");
const Key kMlpLayers = dim("mlp_layers", "layers with an MLP (dense or MoE) when not every layer has one",
                           "ModelSpec::mlp_layer_count", kMaxLayers, false, 0, "layers");
const Key kActiveCount{.name = "active_params_count", .type = KeyType::choice,
                       .doc = "which embedding tables the publisher's active-parameter figure counts (shown only; "
                              "weights and traffic count all)",
                       .spec = "ModelSpec::active_count", .default_text = "all_tables",
                       .choices = {"all_tables", "lm_head_only", "no_tables"}};

// --- (model file).attention ---
const Key kHeads = dim("heads", "query heads", "ModelSpec::heads", kMaxHeads, true);
const Key kKvHeads = dim("kv_heads", "key/value heads (GQA; equal to heads for MHA)", "ModelSpec::kv_heads",
                         kMaxHeads, false, 1, "heads");
const Key kHeadDim = dim("head_dim", "width of one head", "ModelSpec::head_dim", kMaxHeads, false, 1,
                         "hidden_size / heads");
const Key kVHeadDim = dim("v_head_dim",
                          "width of one value head where it differs from head_dim (MiMo-V2-Flash: 128 beside q/k "
                          "heads of 192): v_proj's output, the cached values and o_proj's input",
                          "ModelSpec::v_head_dim", kMaxHeads, false, 1, "head_dim");
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
const Key kSinks{.name = "sinks", .type = KeyType::boolean,
                 .doc = "a learned sink logit per head (gpt-oss): a few weights, no KV", .spec = "ModelSpec::attention_sinks"};
const Key kOutputGate{.name = "output_gate", .type = KeyType::boolean,
                      .doc = "q_proj also emits a sigmoid gate per query channel (Qwen3-Next, Qwen3.5)",
                      .spec = "ModelSpec::attention_output_gate"};
const Key kOBias{.name = "o_bias", .type = KeyType::boolean, .doc = "o_proj has a bias (gpt-oss)",
                 .spec = "ModelSpec::attention_o_bias"};
const Key kKvHeadGroups{.name = "kv_head_groups",
                        .type = KeyType::list,
                        .doc = "attention layers with differing KV-head counts (Llama-3.1-Nemotron-51B's per-layer "
                               "n_heads_in_group): runs of layers, each with its own KV cache, k/v_proj weights and "
                               "KV traffic. Their layers must add up to the attention layers; kv_heads must be the "
                               "largest count",
                        .spec = "ModelSpec::kv_head_groups",
                        .default_note = "none: kv_heads on every attention layer",
                        .item = "mapping {kv_heads, layers}"};
const Key kGroupKvHeads = dim("kv_heads", "KV heads of this run's attention layers", "KvHeadGroup::kv_heads",
                              kMaxHeads, true);
const Key kKvGroupLayers = dim("layers", "attention layers in this run", "KvHeadGroup::layers", kMaxLayers, true);
const Key kLocalLayers = dim("local_layers",
                             "layers that use sliding_window or attention_chunk; the others attend to the whole "
                             "context (Gemma 2: half; Gemma 3: 5 of every 6; Llama 4: 3 of every 4)",
                             "LocalAttention::layers", kMaxLayers, false, 1, "all layers");

// --- (model file).mlp ---
const Key kFfn = dim("intermediate_size", "dense MLP width (required unless every layer is MoE)", "ModelSpec::ffn",
                     kMaxWidth, false, 0);
const Key kGated{.name = "gated", .type = KeyType::boolean, .doc = "SwiGLU/GeGLU: gate and up projections",
                 .spec = "ModelSpec::gated_mlp", .default_bool = true};
const Key kLayerWidths{.name = "layer_widths",
                       .type = KeyType::list,
                       .doc = "dense MLP layers of differing widths (NVIDIA's NAS-pruned Llama-Nemotron models): "
                              "runs of layers, each priced at its own GEMM shape; {linear: true, layers: n} is n "
                              "sublayers replaced by one hidden x hidden linear map. The widths' layers must add up "
                              "to the dense MLP layers; intermediate_size must be the widest",
                       .spec = "ModelSpec::mlp_widths",
                       .default_note = "none: every dense MLP layer is intermediate_size wide",
                       .item = "mapping {intermediate_size, layers} or {linear: true, layers}"};
const Key kGroupWidth = dim("intermediate_size", "width of this run's MLP layers", "MlpWidthGroup::ffn", kMaxWidth,
                            false, 1);
const Key kGroupLayers = dim("layers", "layers in this run", "MlpWidthGroup::layers", kMaxLayers, true);
const Key kGroupLinear{.name = "linear", .type = KeyType::boolean,
                       .doc = "these are sublayers replaced by one hidden x hidden linear map (no KV, no MLP)",
                       .spec = "MlpWidthGroup::linear", .default_bool = false};

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
const Key kExpertBias{.name = "expert_bias", .type = KeyType::boolean,
                      .doc = "biases on every expert's projections and on the router (gpt-oss)",
                      .spec = "MoeSpec::expert_bias"};
const Key kLatent = dim("latent", "the routed experts run at this width between two projections (Nemotron 3's latent MoE)",
                        "MoeSpec::latent", kMaxWidth, false, 0, "0: none");
const Key kMoeLayers = dim("moe_layers", "MoE layers, counted (Nemotron-H, Jamba); replaces dense_layers and layer_step",
                           "MoeSpec::listed_layers", kMaxLayers, false, 0, "from dense_layers and layer_step");
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

// --- (model file).state_layers ---
const Key kStateKind{.name = "kind", .type = KeyType::choice,
                     .doc = "gated_delta (Qwen3-Next, Qwen3.5), mamba2 (Nemotron-H, Granite 4.0-H), mamba1 (Jamba) or "
                            "short_conv (LFM2's gated short convolution)",
                     .spec = "StateLayers::kind", .required = true,
                     .choices = {"gated_delta", "mamba2", "mamba1", "short_conv"}};
const Key kStateCount = dim("layers", "layers whose mixer is this kind", "StateLayers::layers", kMaxLayers, true);
const Key kStateHeads = dim("heads", "gated delta: value heads; Mamba-2: SSM heads; Mamba and short_conv: 1",
                            "StateLayers::heads", kMaxHeads, true);
const Key kStateHeadDim = dim("head_dim",
                              "gated delta: value head width; Mamba-2: head_dim; Mamba: d_inner; short_conv: its "
                              "channels (hidden_size)",
                              "StateLayers::head_dim", kMaxWidth, true);
const Key kStateKeyHeads = dim("key_heads", "gated delta: query/key heads; Mamba-2: groups (n_groups); Mamba: 0",
                               "StateLayers::key_heads", kMaxHeads, false, 0);
// Required by every kind but short_conv, which has no recurrent state (validate_model says so).
const Key kStateKeyDim = dim("key_dim", "gated delta: query/key head width; Mamba-2 and Mamba: d_state; short_conv: 0",
                             "StateLayers::key_dim", kMaxWidth, false, 0);
const Key kConvKernel = dim("conv_kernel", "the short causal convolution's width", "StateLayers::conv_kernel", 64,
                            false, 1, "4");
const Key kDtRank = dim("dt_rank", "Mamba: rank of the time-step projection", "StateLayers::dt_rank", kMaxWidth, false,
                        0);
const Key kConvBias{.name = "conv_bias", .type = KeyType::boolean,
                    .doc = "the convolution has a bias (short_conv: its in_proj and out_proj too)",
                    .spec = "StateLayers::conv_bias"};
const Key kChunk = dim("chunk", "prefill scan chunk (gated delta 64; Mamba-2 chunk_size; Mamba 1)", "StateLayers::chunk",
                       65536, false, 1, "64");
const Key kStateDtype{.name = "state_dtype", .type = KeyType::text,
                      .doc = "the recurrent state's precision (mamba_ssm_cache_dtype, e.g. fp32)",
                      .spec = "StateLayers::state_dtype", .unit = "precision", .default_text = "bf16"};

// --- (model file).sparse_attention ---
const Key kTopk = dim("topk", "keys each query attends to (index_topk)", "SparseIndexer::topk", kMaxContext, true);
const Key kIndexHeads = dim("index_heads", "the indexer's heads (index_n_heads)", "SparseIndexer::heads", kMaxHeads, true);
const Key kIndexHeadDim = dim("index_head_dim", "the indexer's head width (index_head_dim)", "SparseIndexer::head_dim",
                              kMaxWidth, true);

// --- (model file).checkpoint ---
const Key kGroupSize = dim("group_size", "weights sharing one scale (MXFP4 32, NVFP4 16, AWQ 128)",
                           "WeightGroups::size", kMaxWidth, false, 0, "0: per-channel or per-tensor scales");
const Key kScaleBytes{.name = "scale_bytes", .type = KeyType::number, .doc = "bytes of scale (and zero point) per group",
                      .spec = "WeightGroups::scale_bytes", .unit = "bytes", .min = 0, .max = 64, .why = "bytes a group"};
const Key kScheme{.name = "scheme", .type = KeyType::text, .doc = "the quantization scheme, shown (e.g. \"mxfp4\")",
                  .spec = "CheckpointPrecision::source"};
const Key kCkptActivations{.name = "activations", .type = KeyType::text,
                           .doc = "what its quantized GEMMs compute in (fp8 for W8A8, fp4 for W4A4); model.activations "
                                  "defaults to it on GPUs with those tensor cores",
                           .spec = "CheckpointPrecision::activations", .unit = "precision",
                           .default_note = "none stated"};
const Key kCkptKv{.name = "kv_cache", .type = KeyType::text, .doc = "its KV cache precision; model.kv_cache defaults to it",
                  .spec = "CheckpointPrecision::kv_cache", .unit = "precision", .default_note = "none stated"};
const Key kUnquantized{.name = "unquantized", .type = KeyType::text,
                       .doc = "tensor groups kept at 16 bits, comma-separated: attention, dense_mlp, experts, "
                              "shared_experts, state_layers (gpt-oss: \"attention\")",
                       .spec = "CheckpointPrecision::group_bytes", .default_note = "none"};

// A dimension through its declaration: the declared max, INT32_MIN below (see above).
std::int64_t read_dim(ConfigMap& m, const Key& k, std::int64_t fallback = 0) {
  const IntRange range{std::numeric_limits<std::int32_t>::min(), static_cast<std::int64_t>(k.max)};
  const std::string name(k.name);
  return k.required ? integer_in(m, name, range, k.why) : integer_in(m, name, fallback, range, k.why);
}
int read_int_dim(ConfigMap& m, const Key& k, std::int64_t fallback = 0) {
  return static_cast<int>(read_dim(m, k, fallback));
}

// attention.kv_head_groups: [{kv_heads: 8, layers: 30}, {kv_heads: 1, layers: 20}].
void read_kv_head_groups(ConfigMap& attn, ModelSpec& m) {
  const std::string key(kKvHeadGroups.name);
  if (!attn.has(key)) return;
  const ConfigNode* node = attn.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: a non-empty list of runs, e.g. [{{kv_heads: 8, layers: 30}}, {{kv_heads: 1, layers: 20}}]",
                            attn.where(key)));
  if (node->items().size() > static_cast<std::size_t>(kMaxLayers))
    throw Error(fmt::format("{}: {} runs; at most one per layer", attn.where(key), node->items().size()));
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap g(node->items()[i], attn.file(), fmt::format("{}[{}]", attn.key_path(key), i));
    KvHeadGroup k;
    k.kv_heads = read_int_dim(g, kGroupKvHeads);
    k.layers = read_int_dim(g, kKvGroupLayers);
    g.finish();
    m.kv_head_groups.push_back(k);
  }
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
  m.v_head_dim = read_int_dim(attn, kVHeadDim, 0);  // 0: as wide as head_dim
  m.qkv_bias = read_boolean(attn, kQkvBias);
  if (read_boolean(attn, kQkNorm))
    warn(fmt::format("{}: true is read but not modelled: step times leave out the per-head RMSNorm of q and k (two "
                     "small elementwise kernels per layer, well under 1% of a step's memory traffic)",
                     attn.where("qk_norm")));
  m.attention_sinks = read_boolean(attn, kSinks);
  m.attention_output_gate = read_boolean(attn, kOutputGate);
  m.attention_o_bias = read_boolean(attn, kOBias);
  read_kv_head_groups(attn, m);
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
  s.expert_bias = read_boolean(moe, kExpertBias);
  s.latent = read_dim(moe, kLatent);
  if (moe.get(std::string(kMoeLayers.name))) s.listed_layers = read_int_dim(moe, kMoeLayers);
  moe.finish();
}

void read_state_layers(ConfigMap& st, StateLayers& s) {
  const std::string kind = read_choice(st, kStateKind);
  s.kind = kind == "gated_delta" ? StateLayers::Kind::gated_delta
           : kind == "mamba2"    ? StateLayers::Kind::mamba2
           : kind == "short_conv" ? StateLayers::Kind::short_conv
                                 : StateLayers::Kind::mamba1;
  s.layers = read_int_dim(st, kStateCount);
  s.heads = read_int_dim(st, kStateHeads);
  s.head_dim = read_int_dim(st, kStateHeadDim);
  s.key_heads = read_int_dim(st, kStateKeyHeads);
  s.key_dim = read_int_dim(st, kStateKeyDim);
  s.conv_kernel = read_int_dim(st, kConvKernel, 4);
  s.dt_rank = read_int_dim(st, kDtRank);
  s.conv_bias = read_boolean(st, kConvBias);
  s.chunk = read_int_dim(st, kChunk, 64);
  s.state_dtype = parse_dtype(read_text(st, kStateDtype), st.where(std::string(kStateDtype.name)));
  st.finish();
}

void read_sparse_attention(ConfigMap& sa, ModelSpec& m, std::string& where) {
  m.indexer.topk = read_int_dim(sa, kTopk);
  m.indexer.heads = read_int_dim(sa, kIndexHeads);
  m.indexer.head_dim = read_int_dim(sa, kIndexHeadDim);
  where = sa.where(std::string(kTopk.name));
  sa.finish();
}

// The checkpoint's own precision (model_spec.h CheckpointPrecision): its group scales and the
// tensor groups it keeps at 16 bits.
void read_checkpoint(ConfigMap& c, ModelSpec& m) {
  const std::int64_t size = read_dim(c, kGroupSize);
  m.weight_groups.scheme = read_text(c, kScheme);
  if (size > 0) {
    m.weight_groups.size = static_cast<int>(size);
    m.weight_groups.scale_bytes = read_number(c, kScaleBytes);
  } else if (c.get(std::string(kScaleBytes.name))) {
    c.fail(std::string(kScaleBytes.name), "scale_bytes without a group_size (the scale of how many weights?)");
  }
  CheckpointPrecision& p = m.checkpoint;
  p.present = true;
  p.source = fmt::format("the model file's checkpoint section: {}",
                         m.weight_groups.scheme.empty() ? dtype_name(m.native_dtype) : m.weight_groups.scheme);
  if (c.get(std::string(kCkptActivations.name))) {
    p.has_activations = true;
    p.activations = parse_dtype(read_text(c, kCkptActivations), c.where(std::string(kCkptActivations.name)));
  }
  if (c.get(std::string(kCkptKv.name))) {
    p.has_kv_cache = true;
    p.kv_cache = parse_dtype(read_text(c, kCkptKv), c.where(std::string(kCkptKv.name)));
  }
  const std::vector<std::string> names = {"attention", "dense_mlp", "experts", "shared_experts", "state_layers"};
  for (const std::string& raw : split(read_text(c, kUnquantized), ',')) {
    const std::string g = trim(raw);
    if (g.empty()) continue;
    const auto at = std::find(names.begin(), names.end(), g);
    if (at == names.end())
      c.fail(std::string(kUnquantized.name), fmt::format("unknown tensor group '{}'{} (valid: {})", g,
                                                         did_you_mean(g, names), join(names)));
    const auto i = static_cast<std::size_t>(at - names.begin());
    p.group_bytes[i] = 2.0;
    p.group_note[i] = "bf16 (not quantized)";
  }
  c.finish();
}

void read_mla(ConfigMap& mla, MlaSpec& s) {
  s.q_lora_rank = read_int_dim(mla, kQLora);
  s.kv_lora_rank = read_int_dim(mla, kKvLora);
  s.qk_nope_head_dim = read_int_dim(mla, kNope);
  s.qk_rope_head_dim = read_int_dim(mla, kRope);
  s.v_head_dim = read_int_dim(mla, kVHead);
  mla.finish();
}

// mlp.layer_widths: [{intermediate_size: 28672, layers: 49}, ..., {linear: true, layers: 2}].
void read_layer_widths(ConfigMap& mlp, ModelSpec& m) {
  const std::string key(kLayerWidths.name);
  if (!mlp.has(key)) return;
  const ConfigNode* node = mlp.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: a non-empty list of runs, e.g. [{{intermediate_size: 28672, layers: 49}}, "
                            "{{intermediate_size: 5632, layers: 8}}]",
                            mlp.where(key)));
  if (node->items().size() > static_cast<std::size_t>(kMaxLayers))
    throw Error(fmt::format("{}: {} runs; at most one per layer", mlp.where(key), node->items().size()));
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap g(node->items()[i], mlp.file(), fmt::format("{}[{}]", mlp.key_path(key), i));
    MlpWidthGroup w;
    w.linear = read_boolean(g, kGroupLinear);
    w.layers = read_int_dim(g, kGroupLayers);
    if (!w.linear) {
      if (!g.has(std::string(kGroupWidth.name)))
        throw Error(fmt::format("{}: needs intermediate_size (or linear: true)", g.where(std::string(kGroupWidth.name))));
      w.ffn = read_dim(g, kGroupWidth);
    } else if (g.has(std::string(kGroupWidth.name))) {
      throw Error(fmt::format("{}: a linear run has no intermediate_size", g.where(std::string(kGroupWidth.name))));
    }
    g.finish();
    m.mlp_widths.push_back(w);
  }
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
  read_layer_widths(mlp, m);
  mlp.finish();
  m.vocab = read_dim(doc, kVocab);
  m.tied_embeddings = read_boolean(doc, kTied);
  m.position_table_rows = read_dim(doc, kPositionRows);
  m.embed_proj_dim = read_dim(doc, kEmbedProjDim);
  m.final_norm = read_boolean(doc, kFinalNorm);
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
  if (has_key(doc, kStateLayersSection)) {
    ConfigMap st = doc.map(std::string(kStateLayersSection.name));
    read_state_layers(st, m.state);
  }
  if (doc.get(std::string(kAttentionLayers.name))) m.attention_layer_count = read_int_dim(doc, kAttentionLayers);
  if (doc.get(std::string(kMlpLayers.name))) m.mlp_layer_count = read_int_dim(doc, kMlpLayers);
  const std::string count = read_choice(doc, kActiveCount);
  m.active_count = count == "lm_head_only" ? ModelSpec::ActiveCount::lm_head_only
                   : count == "no_tables"  ? ModelSpec::ActiveCount::no_tables
                                           : ModelSpec::ActiveCount::all_tables;
  if (has_key(doc, kSparseAttention)) {  // every attention layer attends to its indexer's top k
    ConfigMap sa = doc.map(std::string(kSparseAttention.name));
    std::string where;
    read_sparse_attention(sa, m, where);
    if (m.local.kind != LocalAttention::Kind::none)
      throw Error(fmt::format("{}: sparse_attention with a sliding window or chunked attention is not modelled", where));
    if (m.indexer.topk < m.max_context) {
      m.local.kind = LocalAttention::Kind::topk;
      m.local.span = m.indexer.topk;
      m.local.layers = m.attention_layers();
    } else {
      m.indexer = SparseIndexer{};  // a top k of the whole context is full attention
    }
  }
  if (has_key(doc, kCheckpoint)) {
    ConfigMap c = doc.map(std::string(kCheckpoint.name));
    read_checkpoint(c, m);
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
                               &kTied, &kPositionRows, &kEmbedProjDim, &kFinalNorm, &kMaxContextKey, &kNativeDtype, &kMtpLayers, &kMoe, &kMla, &kStateLayersSection,
                               &kSparseAttention, &kCheckpoint, &kAttentionLayers, &kMlpLayers, &kActiveCount}};
  static const KeySection attention{"(model file).attention", "attention shapes", {}, {},
                                    {&kHeads, &kKvHeads, &kHeadDim, &kVHeadDim, &kQkvBias, &kQkNorm, &kSinks, &kOutputGate,
                                     &kOBias, &kSlidingWindow, &kAttentionChunk, &kLocalLayers, &kKvHeadGroups}};
  static const KeySection kv_groups{"(model file).attention.kv_head_groups",
                                    "one run of attention layers with one KV-head count (a list item)", {}, {},
                                    {&kGroupKvHeads, &kKvGroupLayers}};
  static const KeySection mlp{"(model file).mlp", "dense MLP", {}, {}, {&kFfn, &kGated, &kLayerWidths}};
  static const KeySection widths{"(model file).mlp.layer_widths", "one run of dense MLP layers of one width (a list item)",
                                 {}, {}, {&kGroupWidth, &kGroupLayers, &kGroupLinear}};
  static const KeySection moe{"(model file).moe", "mixture of experts", {}, {},
                              {&kExperts, &kTopK, &kSharedExperts, &kExpertFfn, &kSharedFfn, &kDenseLayers,
                               &kLayerStep, &kExpertBias, &kLatent, &kMoeLayers}};
  static const KeySection mla{"(model file).mla", "multi-head latent attention", {}, {},
                              {&kQLora, &kKvLora, &kNope, &kRope, &kVHead}};
  static const KeySection state{"(model file).state_layers", "recurrent state layers", {}, {},
                                {&kStateKind, &kStateCount, &kStateHeads, &kStateHeadDim, &kStateKeyHeads,
                                 &kStateKeyDim, &kConvKernel, &kDtRank, &kConvBias, &kChunk, &kStateDtype}};
  static const KeySection sparse{"(model file).sparse_attention", "DeepSeek sparse attention", {}, {},
                                 {&kTopk, &kIndexHeads, &kIndexHeadDim}};
  static const KeySection checkpoint{"(model file).checkpoint", "the published checkpoint's precision", {}, {},
                                     {&kScheme, &kGroupSize, &kScaleBytes, &kCkptActivations, &kCkptKv, &kUnquantized}};
  return {&top, &attention, &kv_groups, &mlp, &widths, &moe, &mla, &state, &sparse, &checkpoint};
}

}  // namespace servesim
