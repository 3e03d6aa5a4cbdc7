// Google's Gemma 3n (Gemma3nForConditionalGeneration around its gemma3n_text model;
// Gemma3nForCausalLM alone), read as transformers builds it (models/gemma3n/modeling_gemma3n.py,
// configuration_gemma3n.py) and vLLM serves it (gemma3n.py):
//   layers   Gemma 3's decoder layer: q/k/v/o without biases, per-head q and k RMSNorms (v_norm
//            has no weight), a GeGLU MLP of intermediate_size (a list, one width a layer: equal
//            in the releases, differing in MatFormer slices), four RMSNorms (two
//            counted, the pre/post-feedforward pair as Gemma 2's and 3's not); layer_types
//            (default: every 5th layer full attention, the others a sliding_window);
//   AltUp    altup_num_inputs streams, LAuReL of laurel_rank, per-layer embeddings
//            (vocab_size_per_layer_input x layers x hidden_size_per_layer_input) and their
//            projections: ModelSpec::gemma3n (layer_kinds.h has each weight);
//   KV       the last num_kv_shared_layers layers read the KV of the last earlier layer of
//            their kind (transformers' kv_sharing_roles "consumer"): they store none;
//   tables   the token table tied to the LM head (Gemma's default).
// The per-layer embedding table is a lookup: counted in the total, not in the active figure,
// which leaves out the token table as well, as Google's "effective" parameters do (the
// google/gemma3n-slicing-configs dataset: E4B 3.98B, E2B 1.91B). activation_sparsity_pattern's top-k of the first layers'
// MLP activations is computed densely and then masked: no work saved, priced as dense. The
// audio and vision encoders are not counted, as other multimodal wrappers' are not.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {
// Where alias_gemma3n_fields keeps a per-layer width list for read_gemma3n (the common reader
// takes intermediate_size as one integer: the widest).
constexpr const char* kWidthsKey = "_servesim_gemma3n_layer_widths";
}  // namespace

// Before the common fields are read: intermediate_size as one integer (the widest; a MatFormer
// slice, Google's "Mix-and-Match" submodels, gives its layers differing widths, kept aside for
// read_gemma3n), and the default layer_types written out (Gemma3nTextConfig.__post_init__).
void alias_gemma3n_fields(nlohmann::json& text, const std::string& where) {
  if (text.contains("intermediate_size") && text["intermediate_size"].is_array()) {
    const nlohmann::json list = text["intermediate_size"];
    std::int64_t widest = 0;
    for (const nlohmann::json& x : list) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 1)
        throw Error(fmt::format("{}: intermediate_size must be a positive whole number or a list of them, one a "
                                "layer; got {}",
                                where, x.dump()));
      widest = std::max(widest, x.get<std::int64_t>());
    }
    if (list.empty()) throw Error(fmt::format("{}: intermediate_size is an empty list", where));
    if (text.contains("num_hidden_layers") && text["num_hidden_layers"].is_number_integer() &&
        static_cast<std::int64_t>(list.size()) != text["num_hidden_layers"].get<std::int64_t>())
      throw Error(fmt::format("{}: intermediate_size lists {} widths for {} layers (num_hidden_layers)", where,
                              list.size(), text["num_hidden_layers"].dump()));
    text["intermediate_size"] = widest;
    text[kWidthsKey] = list;  // read_gemma3n groups them
  }
  if (!text.contains("layer_types") && text.contains("num_hidden_layers") && text["num_hidden_layers"].is_number_integer()) {
    std::vector<std::string> types;
    for (std::int64_t i = 0; i < text["num_hidden_layers"].get<std::int64_t>(); ++i)
      types.push_back((i + 1) % 5 == 0 ? "full_attention" : "sliding_attention");
    text["layer_types"] = types;
  }
}

void read_gemma3n(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  if (f.boolean("attention_bias", false))
    throw Error(fmt::format("{}: attention_bias true: Gemma 3n's q/k/v and o projections have no biases", w));
  const std::string act = f.string("hidden_activation", f.string("hidden_act", "gelu_pytorch_tanh"));
  if (act != "gelu_pytorch_tanh" && act != "gelu")
    throw Error(fmt::format("{}: Gemma 3n's MLP is GeGLU (gelu_pytorch_tanh); hidden_activation '{}' is not", w, act));
  m.qkv_bias = m.attention_o_bias = false;
  m.gated_mlp = true;
  m.qk_head_norms = true;
  // Google's "effective" parameters leave out both tables, the token embedding and the
  // per-layer one (its slicing configs: E4B 3.98B, E2B 1.91B).
  m.active_count = ModelSpec::ActiveCount::no_tables;
  if (f.has(kWidthsKey)) {
    std::map<std::int64_t, int, std::greater<>> layers_of;  // widest first
    for (const std::int64_t width : f.integers(kWidthsKey)) ++layers_of[width];
    if (layers_of.size() > 1)
      for (const auto& [width, n] : layers_of) m.mlp_widths.push_back(MlpWidthGroup{width, n, false});
  }
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);
  Gemma3nParts& g = m.gemma3n;
  g.altup_streams = static_cast<int>(f.integer("altup_num_inputs", 4));
  g.laurel_rank = static_cast<int>(f.integer("laurel_rank", 64));
  g.ple_rows = f.integer("vocab_size_per_layer_input", 262144);
  g.ple_width = f.integer("hidden_size_per_layer_input", 256);
  if (g.altup_streams < 1 || g.altup_streams > 64)
    throw Error(fmt::format("{}: altup_num_inputs must be 1 to 64 streams, got {}", w, g.altup_streams));
  if (g.laurel_rank < 0 || g.ple_rows < 0 || g.ple_width < 0)
    throw Error(fmt::format("{}: laurel_rank, vocab_size_per_layer_input and hidden_size_per_layer_input must not "
                            "be negative",
                            w));
  read_kv_shared_layers(f, m);
}

// The last num_kv_shared_layers layers store no KV: each reads the last earlier layer's of its
// kind (sliding or full). Gemma 3n's default is 15; Gemma 4's configs give it where they share.
void read_kv_shared_layers(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  const std::int64_t shared = f.integer("num_kv_shared_layers", m.gemma3n.altup_streams > 0 ? 15 : 0);
  if (shared < 0 || shared >= m.layers)
    throw Error(fmt::format("{}: num_kv_shared_layers {} must be within [0, num_hidden_layers = {}): the first layer "
                            "must write the KV the others read",
                            w, shared, m.layers));
  if (shared == 0) return;
  const std::vector<std::string> types = f.has("layer_types") ? f.strings("layer_types") : std::vector<std::string>{};
  if (static_cast<int>(types.size()) < m.layers)
    throw Error(fmt::format("{}: num_kv_shared_layers {} needs layer_types, one a layer, to know which layers of "
                            "each kind share",
                            w, shared));
  int sliding = 0, full = 0, sliding_before = 0, full_before = 0;
  for (int i = 0; i < m.layers; ++i) {
    const bool is_sliding = types[static_cast<std::size_t>(i)] == "sliding_attention";
    if (i >= m.layers - shared) {
      (is_sliding ? sliding : full) += 1;
    } else {
      (is_sliding ? sliding_before : full_before) += 1;
    }
  }
  if ((sliding > 0 && sliding_before == 0) || (full > 0 && full_before == 0))
    throw Error(fmt::format("{}: the last {} layers (num_kv_shared_layers) share KV, but no earlier {} layer writes "
                            "it",
                            w, shared, sliding > 0 && sliding_before == 0 ? "sliding-attention" : "full-attention"));
  // Without a binding window (sliding_window >= the context) every layer is a global one.
  if (m.local.enabled()) {
    m.kv_shared_local_layers = sliding;
    m.kv_shared_global_layers = full;
  } else {
    m.kv_shared_global_layers = sliding + full;
  }
}

}  // namespace servesim
