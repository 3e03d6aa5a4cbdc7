// Meta's Llama 3.2 Vision (MllamaForConditionalGeneration; its text model alone
// MllamaForCausalLM; model_type mllama, text_config mllama_text_model), read as transformers
// builds it (src/transformers/models/mllama/modeling_mllama.py: MllamaTextModel) and as vLLM
// and SGLang serve it (mllama.py):
//   layers     text_config.num_hidden_layers counts both kinds: the indices listed in
//              cross_attention_layers are cross-attention layers (MllamaCrossAttentionDecoderLayer:
//              q/k/v/o, per-head q/k RMSNorms, an attention and an MLP tanh gate, a gated MLP,
//              two norms), the others Llama 3.1 self-attention layers (GQA, SwiGLU);
//   tables     embed_tokens of vocab_size + 8 rows (the image tokens), an untied LM head.
// The cross-attention layers attend to the image encoder's states, and the engines skip them
// for a request without an image (vLLM, SGLang: skip_cross_attention). servesim serves text:
// they are counted and held in memory (ModelSpec::cross_attention_layers), no step runs them,
// and they hold no KV; the 8 image-token rows of the embedding (8 x hidden) are not counted.
// The vision encoder is estimated and said, not counted, as for other multimodal wrappers.
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

void read_mllama(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")  // MllamaTextMLP: gate, up, down with ACT2FN[hidden_act]; every release is SiLU
    throw Error(fmt::format("{}: Llama 3.2 Vision's MLP is read SiLU-gated; hidden_act '{}' is not", w, act));
  if (!f.has("cross_attention_layers"))
    throw Error(fmt::format("{}: missing field 'cross_attention_layers': Llama 3.2 Vision's text model lists which "
                            "of its num_hidden_layers layers attend to the image",
                            w));
  const std::vector<std::int64_t> cross = f.integers("cross_attention_layers");
  std::set<std::int64_t> seen;
  for (const std::int64_t i : cross) {
    if (i < 0 || i >= m.layers)
      throw Error(fmt::format("{}: cross_attention_layers names layer {}, outside the {} layers of num_hidden_layers",
                              w, i, m.layers));
    if (!seen.insert(i).second)
      throw Error(fmt::format("{}: cross_attention_layers names layer {} twice", w, i));
  }
  if (static_cast<std::int64_t>(cross.size()) >= m.layers)
    throw Error(fmt::format("{}: every one of the {} layers is a cross-attention layer: no text layer is left", w,
                            m.layers));
  m.cross_attention_layers = static_cast<int>(cross.size());
  m.layers -= m.cross_attention_layers;
}

}  // namespace servesim
