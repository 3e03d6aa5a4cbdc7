// ByteDance's Ouro (OuroForCausalLM; model_type ouro), a looped language model, read as
// vLLM serves it (vllm/model_executor/models/ouro.py):
//   layers   num_hidden_layers decoder layers of Qwen2's shape without biases: q/k/v/o of
//            heads x (hidden / heads) (vLLM derives the head width so), a SiLU-gated MLP of
//            intermediate_size, and four RMSNorms (input_layernorm and _2,
//            post_attention_layernorm and _2: two counted as servesim's, the other two,
//            2 x hidden a layer, NOT counted, as PLaMo 3's and Gemma 2's);
//   passes   the whole stack runs total_ut_steps times per token (default 4, as vLLM's
//            getattr), each pass with its own KV cache (an Attention per ut step:
//            num_hidden_layers x total_ut_steps cache layers), the final norm after each;
//            vLLM runs every pass (the model card: "vLLM does not currently support the
//            adaptive exit feature"), so the early-exit gate (hidden -> 1 with a bias,
//            hidden + 1 weights, NOT counted) never ends one early;
//   tables   embed_tokens and an LM head, tied when tie_word_embeddings says so.
// ModelSpec::layer_passes carries the loop: the layers run (and their KV, compute and the
// weights each pass streams) are passes x num_hidden_layers, the weights held once.
// IQuest-Loop-Coder, also looped, stays refused: its later loops mix a sliding-window
// attention with an attention over the first loop's keys (hf_hyb_families.cpp says so).
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

void read_ouro(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")  // OuroMLP raises on any other activation
    throw Error(fmt::format("{}: Ouro's MLP is SiLU-gated (vLLM's ouro.py accepts no other); hidden_act '{}' is not",
                            w, act));
  const std::int64_t passes = f.integer("total_ut_steps", 4);
  if (passes < 1 || passes > 64)
    throw Error(fmt::format("{}: total_ut_steps must be a whole number of passes from 1 to 64, got {}", w, passes));
  if (m.heads < 1)
    throw Error(fmt::format("{}: num_attention_heads must be at least 1, got {}", w, m.heads));
  if (m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} must be a multiple of num_attention_heads {} (Ouro's head width is "
                            "their quotient)",
                            w, m.hidden, m.heads));
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  m.qkv_bias = m.attention_o_bias = m.mlp_bias = false;
  m.gated_mlp = true;
  m.moe = MoeSpec{};
  // Unrolled: every pass's layers run, each with its own KV (a sliding window, where the
  // config sets one on every layer, binds on every pass's layers alike).
  const int unique = m.layers;
  m.layer_passes = static_cast<int>(passes);
  m.layers = unique * m.layer_passes;
  if (m.local.enabled()) m.local.layers *= m.layer_passes;
}

}  // namespace servesim
