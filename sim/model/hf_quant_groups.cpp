// What a checkpoint's quantization scheme means for each tensor group of the model
// (ModelSpec::checkpoint): the modules its config leaves unquantized (modules_to_not_convert,
// ignore, exclude_modules) and, for ModelOpt MIXED_PRECISION, the scheme of each module.
//
// Module names are matched by what they contain, as the families name them (transformers
// and ModelOpt's checkpoints): "shared_expert" -> shared experts; "linear_attn", "mamba" and a
// Nemotron-H mixer's in_proj / out_proj / conv1d -> state layers (and Kimi Linear's
// "self_attn", its KDA mixers' name too); "self_attn", "attn",
// q/k/v/o projections and DSA's "indexer" -> attention; "experts" -> routed experts; "mlp",
// "feed_forward", gate/up/down projections -> dense MLP. The router ("gate", "router"),
// norms, embeddings, the LM head (16-bit in servesim anyway), vision towers and MTP modules
// are not among servesim's groups and are passed over. A name with a layer index
// ("model.layers.7.self_attn*") covers that layer of the group; a wildcard or a regex
// without one ("re:.*self_attn.*", "model.layers.*.self_attn") the whole group; a whole
// layer ("model.layers.0*") every group of that layer.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <regex>
#include <set>

#include "model/hf_quantization.h"
#include "util/text.h"

namespace servesim {
namespace {

constexpr std::array<TensorGroup, kTensorGroups> kGroups = {TensorGroup::attention, TensorGroup::dense_mlp,
                                                            TensorGroup::experts, TensorGroup::shared_experts,
                                                            TensorGroup::state_layers};

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Module names are short ("model.language_model.layers.12.self_attn.q_proj"); a longer one
// is not a module name, and std::regex (recursive in libstdc++) is kept away from it.
constexpr std::size_t kMaxModuleName = 512;

// The group a module name belongs to; nullopt: none of servesim's (router, norm, head, ...).
std::optional<TensorGroup> group_of(const std::string& raw) {
  if (raw.size() > kMaxModuleName) return std::nullopt;
  const std::string n = to_lower(raw);
  if (has(n, "lm_head") || has(n, "embed") || has(n, "vision") || has(n, "visual") || has(n, "mm_projector") ||
      has(n, "multi_modal") || has(n, "patch_merge") || has(n, "mtp") || has(n, "norm") || has(n, "router") ||
      has(n, "e_score") || has(n, "eh_proj") || has(n, "shared_expert_gate"))  // a 1-wide gate, not the expert
    return std::nullopt;
  if (has(n, "shared_expert")) return TensorGroup::shared_experts;
  if (has(n, "linear_attn") || has(n, "mamba") || has(n, "mixer.in_proj") || has(n, "mixer.out_proj") ||
      has(n, "mixer.conv1d") || has(n, "conv1d"))
    return TensorGroup::state_layers;
  if (has(n, "attn") || has(n, "attention") || has(n, "q_proj") || has(n, "k_proj") || has(n, "v_proj") ||
      has(n, "o_proj") || has(n, "qkv") || has(n, "kv_a_proj") || has(n, "kv_b_proj") || has(n, "q_a_proj") ||
      has(n, "q_b_proj") || has(n, "indexer"))
    return TensorGroup::attention;
  if (has(n, "experts")) return TensorGroup::experts;
  // A bare router ("gate", "mlp.gate", "block_sparse_moe.gate") is not a gate projection.
  static const std::regex router(R"((^|\.)gate\*?$|\.gate\.)");
  if (std::regex_search(n, router)) return std::nullopt;
  if (has(n, "mlp") || has(n, "feed_forward") || has(n, "ffn") || has(n, "gate_proj") || has(n, "up_proj") ||
      has(n, "down_proj") || has(n, "gate_up_proj"))
    return TensorGroup::dense_mlp;
  return std::nullopt;
}

// The layer index a module name names ("layers.12."), if any.
std::optional<int> layer_of(const std::string& n) {
  if (n.size() > kMaxModuleName) return std::nullopt;
  static const std::regex layer(R"(layers\.(\d{1,9})(\.|\*|$))");  // at most 9 digits: std::stoi cannot overflow
  std::smatch m;
  if (!std::regex_search(n, m, layer)) return std::nullopt;
  return std::stoi(m[1].str());
}

// "model.layers.0*", "model.layers.3.*": a whole layer.
bool whole_layer(const std::string& n) {
  if (n.size() > kMaxModuleName) return false;
  static const std::regex whole(R"(layers\.\d{1,9}(\*|\.\*)$)");
  return std::regex_search(n, whole);
}

int group_layers(const ModelSpec& m, TensorGroup g) {
  switch (g) {
    case TensorGroup::attention: return m.attention_layers() + m.compressed.layers();
    case TensorGroup::dense_mlp: return m.dense_mlp_layers();
    case TensorGroup::experts: return m.moe_layers();
    case TensorGroup::shared_experts: return m.moe.shared_experts > 0 ? m.moe_layers() : 0;
    case TensorGroup::state_layers: return m.state.enabled() ? m.state.layers : 0;
  }
  return 0;
}

// Weights of each group over the model: the largest group's scheme stands for a checkpoint
// whose modules differ (ModelOpt MIXED_PRECISION).
double group_weights(const ModelSpec& m, TensorGroup g) {
  switch (g) {
    case TensorGroup::attention: return static_cast<double>(m.attention_params());
    case TensorGroup::dense_mlp: return static_cast<double>(m.dense_mlp_params());
    case TensorGroup::experts:
    case TensorGroup::shared_experts: return static_cast<double>(m.moe_layers()) * m.moe_params_per_layer();
    case TensorGroup::state_layers:
      return m.state.enabled() ? static_cast<double>(m.state.layers) * m.state.params_per_layer(m.hidden) : 0.0;
  }
  return 0.0;
}

// Which layers of each group a list of module names covers: all of them, or a set of indices.
struct Coverage {
  std::array<bool, kTensorGroups> all{};
  std::array<std::set<int>, kTensorGroups> layers;
  void add(const ModelSpec& m, const std::string& name) {
    const std::optional<int> layer = layer_of(name);
    if (layer && *layer >= m.layers) return;  // an MTP layer past the model's (DeepSeek's layer 61)
    if (layer && whole_layer(name)) {
      // Every group of one layer: dense leading layers have no experts and vice versa.
      const bool dense_layer = m.moe.enabled() && m.moe.listed_layers < 0 && *layer < m.moe.dense_layers;
      for (TensorGroup g : kGroups) {
        if ((g == TensorGroup::experts || g == TensorGroup::shared_experts) && dense_layer) continue;
        if (g == TensorGroup::dense_mlp && m.moe.enabled() && !dense_layer && m.moe.listed_layers < 0 &&
            m.moe.layer_step == 1)
          continue;
        layers[static_cast<int>(g)].insert(*layer);
      }
      return;
    }
    const std::optional<TensorGroup> g = group_of(name);
    if (!g) return;
    mark(*g, layer);
    // Kimi Linear names its KDA mixers self_attn too (vLLM's KimiDecoderLayer.self_attn): such a
    // name covers the state layers as well. Which numbered layer is KDA is not kept, so a
    // layer-numbered name counts towards both groups' shares.
    if (*g == TensorGroup::attention && m.state.kind == StateLayers::Kind::kda && has(to_lower(name), "self_attn"))
      mark(TensorGroup::state_layers, layer);
  }
  void mark(TensorGroup g, std::optional<int> layer) {
    if (layer) {
      layers[static_cast<int>(g)].insert(*layer);
    } else {
      all[static_cast<int>(g)] = true;
    }
  }
  // The share of group g's layers covered.
  double share(const ModelSpec& m, TensorGroup g) const {
    const int i = static_cast<int>(g);
    const int n = group_layers(m, g);
    if (n <= 0) return 0.0;
    if (all[i]) return 1.0;
    return std::min(1.0, static_cast<double>(layers[i].size()) / n);
  }
};

}  // namespace

std::optional<TensorGroup> tensor_group_of_module(const std::string& name) { return group_of(name); }

void apply_checkpoint_quantization(const CheckpointQuantization& q, ModelSpec& m) {
  m.native_dtype = q.weights;
  m.weight_groups = q.groups;
  CheckpointPrecision& c = m.checkpoint;
  const DType base = DType::bf16;  // the unquantized parts keep the 16-bit torch_dtype (fp16 checkpoints: the same size)
  c = CheckpointPrecision{};
  c.present = true;
  c.source = q.source;
  c.has_activations = q.has_activations;
  c.activations = q.activations;
  c.has_kv_cache = q.has_kv_cache;
  c.kv_cache = q.kv_cache;
  const double quantized = m.weight_element_bytes(q.weights);
  const double sixteen = dtype_bytes(base);

  // Per-module schemes (MIXED_PRECISION): each group at the mean bytes of its listed modules
  // over the share of its layers they cover, 16-bit elsewhere; the scheme of the group with
  // the most weights stands for the checkpoint (native_dtype, its activations).
  if (!q.modules.empty()) {
    std::array<double, kTensorGroups> sum{};
    std::array<int, kTensorGroups> count{};
    std::array<const ModuleQuantization*, kTensorGroups> first{};
    Coverage listed;
    for (const ModuleQuantization& mq : q.modules) {
      const std::optional<TensorGroup> g = group_of(mq.module);
      if (!g) continue;
      const std::optional<int> layer = layer_of(mq.module);
      if (layer && *layer >= m.layers) continue;
      listed.add(m, mq.module);
      if (!first[static_cast<int>(*g)]) first[static_cast<int>(*g)] = &mq;
      ModelSpec probe;
      probe.native_dtype = mq.weights;
      probe.weight_groups = mq.groups;
      sum[static_cast<int>(*g)] += probe.weight_element_bytes(mq.weights);
      ++count[static_cast<int>(*g)];
    }
    const ModuleQuantization* stands = nullptr;
    double most = -1.0;
    for (TensorGroup g : kGroups)
      if (first[static_cast<int>(g)] && group_weights(m, g) > most) {
        most = group_weights(m, g);
        stands = first[static_cast<int>(g)];
      }
    if (stands) {
      m.native_dtype = stands->weights;
      m.weight_groups = stands->groups;
      c.has_activations = stands->has_activations;
      c.activations = stands->activations;
    }
    for (TensorGroup g : kGroups) {
      const int i = static_cast<int>(g);
      if (group_layers(m, g) <= 0) continue;
      const double share = count[i] > 0 ? listed.share(m, g) : 0.0;
      const double bytes = count[i] > 0 ? sum[i] / count[i] : sixteen;
      c.group_bytes[i] = share * bytes + (1.0 - share) * sixteen;
      c.group_note[i] = count[i] == 0 ? fmt::format("{} (not quantized)", dtype_name(base))
                                      : fmt::format("{:.3f} bytes per weight ({:.0f}% of layers quantized)",
                                                    c.group_bytes[i], 100.0 * share);
    }
    return;
  }

  // One scheme, with some modules left at 16 bits.
  Coverage skipped;
  for (const std::string& name : q.skipped) skipped.add(m, name);
  for (TensorGroup g : kGroups) {
    const int i = static_cast<int>(g);
    if (group_layers(m, g) <= 0) continue;
    double share = skipped.share(m, g);
    if (q.experts_only && g != TensorGroup::experts) share = 1.0;
    if (share <= 0.0) continue;
    c.group_bytes[i] = share * sixteen + (1.0 - share) * quantized;
    c.group_note[i] = share >= 1.0 ? fmt::format("{} (not quantized)", dtype_name(base))
                                   : fmt::format("{} on {:.0f}% of its layers (the rest not quantized)",
                                                 dtype_name(q.weights), 100.0 * (1.0 - share));
  }
}

}  // namespace servesim
