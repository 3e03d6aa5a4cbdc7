// Baidu's ERNIE-4.5-VL (Ernie4_5_VLMoeForConditionalGeneration: ERNIE-4.5-VL-28B-A3B and
// -424B-A47B, their -Thinking and -PT checkpoints), whose language model is ERNIE 4.5's MoE decoder
// with a second set of experts for image and video tokens. Two config layouts name it:
//   Baidu's remote code (model_type "ernie4_5_moe_vl", fields at the top level): moe_num_experts,
//     moe_intermediate_size, moe_layer_start_index and moe_layer_end_index as [text, vision]
//     pairs, moe_k and moe_layer_interval shared (vLLM's ernie45_vl_moe.py,
//     vllm-project/vllm@01dbb08195ca9c70ac9044786a906a353e07fcdf: Ernie4_5_VLMoeMoE builds
//     text_experts on layers start[0]..end[0] and vision_experts on start[1]..end[1], each of
//     moe_num_experts[i] experts of moe_intermediate_size[i] with its own gate, plus shared
//     experts of moe_num_shared_experts x moe_intermediate_size[0]; a layer is MoE when
//     min(start) <= i <= max(end) and (i + 1) % moe_layer_interval == 0, else a dense MLP of
//     intermediate_size);
//   transformers' native layout (model_type "ernie4_5_vl_moe", a text_config of
//     "ernie4_5_vl_moe_text"; huggingface/transformers@020a37d2264e60dc7beb9634c3e87ad870073e2c:
//     src/transformers/models/ernie4_5_vl_moe/configuration_ernie4_5_vl_moe.py): one
//     moe_num_experts for both sets, moe_intermediate_size [text, vision], mlp_layer_types
//     ("dense" / "sparse" a layer; default one dense layer, then sparse).
// Attention, norms and the tied table are ERNIE 4.5's (read_ernie4_5_moe's, hf_recent_families.cpp).
// servesim serves text: the text experts are the routed experts; the vision experts and their
// gate are MoeSpec::vision_experts (weights only). The vision tower is said, not counted, as for
// every wrapper (ModelSpec::vision_params_estimate).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

// A [text, vision] pair of positive integers, or one integer for both (the native layout's
// moe_num_experts, Baidu's moe_k).
std::pair<std::int64_t, std::int64_t> pair_of(const JsonFields& f, const char* key, std::int64_t least) {
  const nlohmann::json& v = f.doc()[key];
  auto ok = [&](const nlohmann::json& x) { return x.is_number_integer() && x.get<std::int64_t>() >= least; };
  if (ok(v)) return {v.get<std::int64_t>(), v.get<std::int64_t>()};
  if (v.is_array() && v.size() == 2 && ok(v[0]) && ok(v[1])) return {v[0].get<std::int64_t>(), v[1].get<std::int64_t>()};
  throw Error(fmt::format("{}: {} must be an integer >= {} or a [text, vision] pair of them, got {}", f.where(), key,
                          least, f.has(key) ? excerpt(v.dump()) : std::string("nothing")));
}

// Baidu's layout: the MoE layers from the [text, vision] start and end indices and the interval.
// An end past the last layer means through the last (the 28B's [29, 28] over 28 layers, vLLM's
// `layer_idx <= end`). A layer with vision experts but no text experts (or the reverse) would need
// a dense MLP for one modality beside the other's experts: refused.
std::vector<bool> moe_layers_from_indices(const JsonFields& f, int layers) {
  if (!f.has("moe_layer_start_index"))
    throw Error(fmt::format("{}: moe_layer_start_index is missing: transformers defaults it to 1 and vLLM to 0, so "
                            "servesim will not guess where the experts begin",
                            f.where()));
  const auto [text_start, vision_start] = pair_of(f, "moe_layer_start_index", 0);
  auto [text_end, vision_end] = f.has("moe_layer_end_index") ? pair_of(f, "moe_layer_end_index", 0)
                                                             : std::pair<std::int64_t, std::int64_t>{layers - 1, layers - 1};
  text_end = std::min<std::int64_t>(text_end, layers - 1);
  vision_end = std::min<std::int64_t>(vision_end, layers - 1);
  const std::int64_t interval = f.integer("moe_layer_interval", 1);
  if (interval < 1) throw Error(fmt::format("{}: moe_layer_interval must be >= 1, got {}", f.where(), interval));
  if (text_start != vision_start || text_end != vision_end)
    throw Error(fmt::format("{}: the text experts span layers {}-{} and the vision experts {}-{} "
                            "(moe_layer_start_index, moe_layer_end_index); servesim models them on the same layers",
                            f.where(), text_start, text_end, vision_start, vision_end));
  std::vector<bool> moe(static_cast<std::size_t>(layers), false);
  for (int i = 0; i < layers; ++i) moe[static_cast<std::size_t>(i)] = i >= text_start && i <= text_end && (i + 1) % interval == 0;
  return moe;
}

}  // namespace

void read_ernie4_5_vl_moe(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  read_ernie4_5_moe_common(f, m);  // Ernie4_5_VLMoeTextConfig ties the table by default too
  const auto [text_experts, vision_experts] = pair_of(f, "moe_num_experts", 1);
  const auto [text_ffn, vision_ffn] = pair_of(f, "moe_intermediate_size", 1);
  const auto [text_k, vision_k] = pair_of(f, "moe_k", 1);
  if (text_k > text_experts || vision_k > vision_experts)
    throw Error(fmt::format("{}: moe_k exceeds moe_num_experts", w));
  m.moe.num_experts = static_cast<int>(text_experts);
  m.moe.experts_per_token = static_cast<int>(text_k);
  m.moe.expert_ffn = text_ffn;
  m.moe.vision_experts = static_cast<int>(vision_experts);
  m.moe.vision_expert_ffn = vision_ffn;
  // One shared MLP of moe_num_shared_experts x moe_intermediate_size[0]: that many shared experts
  // of the text experts' width (the same weights).
  m.moe.shared_experts = static_cast<int>(f.integer("moe_num_shared_experts", 0));
  if (m.moe.shared_experts < 0)
    throw Error(fmt::format("{}: moe_num_shared_experts must be >= 0, got {}", w, m.moe.shared_experts));
  m.moe.shared_expert_ffn = text_ffn;
  // The native layout lists the layers (its class defaults to one dense layer, then sparse);
  // Baidu's gives the indices.
  const bool native = f.string("model_type", "") != "ernie4_5_moe_vl";
  if (f.has("mlp_layer_types") || (native && !f.has("moe_layer_start_index"))) read_mlp_layer_kinds(f, m, 1);
  else set_moe_layers(moe_layers_from_indices(f, m.layers), m);
  if (m.moe_layers() == 0)
    throw Error(fmt::format("{}: no layer is MoE; servesim will not read {} as a dense model", w, m.architecture));
  if (m.moe_layers() < m.layers) m.ffn = f.at_least("intermediate_size", 1);
  // As the text models' (read_ernie4_5_moe): Baidu's "A3B" / "A47B" fit both tables left out.
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

}  // namespace servesim
