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
//
// IQuestLab's IQuest-Loop-Coder (IQuestLoopCoderForCausalLM; model_type iquestloopcoder),
// read as vLLM serves it (vllm/model_executor/models/iquest_loopcoder.py):
//   layers   num_hidden_layers Llama decoder layers (q/k/v/o of heads x hidden / heads
//            without biases, a SiLU-gated MLP, two RMSNorms);
//   loops    the stack runs loop_num times a token (default 2). Loop 1 attends as Llama does
//            and caches its KV. Each later loop computes q, k and v again and mixes, per
//            head through a sigmoid gate, an attention over loop 1's cached keys of the same
//            layer (the whole context, written by loop 1, read again) with an attention over
//            its own keys in a sliding window of loop_window_size (default 64);
//   gates    one LoopGateProjection a stored layer: head_dim -> heads with a bias.
// Here: layer_passes = loop_num, and the later loops' layers are KV-sharing global layers
// (ModelSpec::kv_shared_global_layers: they attend over the whole context and store no KV),
// which holds the step's dominant attention (the read of loop 1's KV) and the KV cache. Left
// out, said in docs/limits.md: the window attention (at most loop_window_size keys a query)
// and its cache (loop_window_size tokens a layer a sequence), and the gates' work.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

namespace {

// Both families' stored layers: q/k/v/o of heads x (hidden / heads) without biases (the head
// width vLLM derives) and a SiLU-gated MLP (`mlp`, the vLLM class, refuses any other
// activation); `who` names the model in the errors.
void read_looped_layers(const JsonFields& f, ModelSpec& m, std::string_view who, std::string_view mlp) {
  const std::string& w = f.where();
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")
    throw Error(fmt::format("{}: {}'s MLP is SiLU-gated (vLLM's {} accepts no other); hidden_act '{}' is not", w, who,
                            mlp, act));
  if (m.heads < 1)
    throw Error(fmt::format("{}: num_attention_heads must be at least 1, got {}", w, m.heads));
  if (m.hidden % m.heads != 0)
    throw Error(fmt::format("{}: hidden_size {} must be a multiple of num_attention_heads {} ({}'s head width is "
                            "their quotient)",
                            w, m.hidden, m.heads, who));
  m.head_dim = static_cast<int>(m.hidden / m.heads);
  m.qkv_bias = m.attention_o_bias = m.mlp_bias = false;
  m.gated_mlp = true;
  m.moe = MoeSpec{};
}

// `passes` x the stored layers run (ModelSpec::layer_passes); returns the stored layers.
int unroll_passes(ModelSpec& m, std::int64_t passes) {
  const int unique = m.layers;
  m.layer_passes = static_cast<int>(passes);
  m.layers = unique * m.layer_passes;
  return unique;
}

}  // namespace

void read_ouro(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  const std::int64_t passes = f.integer("total_ut_steps", 4);
  if (passes < 1 || passes > 64)
    throw Error(fmt::format("{}: total_ut_steps must be a whole number of passes from 1 to 64, got {}", w, passes));
  read_looped_layers(f, m, "Ouro", "OuroMLP in ouro.py");
  // Unrolled: every pass's layers run, each with its own KV (a sliding window, where the
  // config sets one on every layer, binds on every pass's layers alike).
  unroll_passes(m, passes);
  if (m.local.enabled()) m.local.layers *= m.layer_passes;
}

void read_iquest_loop_coder(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  const std::int64_t loops = f.integer("loop_num", 2);
  if (loops < 1 || loops > 64)
    throw Error(fmt::format("{}: loop_num must be a whole number of loops from 1 to 64, got {}", w, loops));
  const std::int64_t window = f.integer("loop_window_size", 64);
  if (window < 1)
    throw Error(fmt::format("{}: loop_window_size must be at least 1 token, got {}", w, window));
  read_looped_layers(f, m, "IQuest-Loop-Coder", "LlamaMLP");
  if (m.local.enabled())
    throw Error(fmt::format("{}: a sliding window on the first loop's layers is not read: vLLM's "
                            "iquest_loopcoder.py attends over the whole context there",
                            w));
  const int unique = unroll_passes(m, loops);
  // The later loops read loop 1's KV of their layer and cache none of the whole context.
  m.kv_shared_global_layers = unique * (m.layer_passes - 1);
  m.kv_shared_layers_hold_kv_proj = true;  // the same qkv_proj: k and v are computed for the window
  m.loop_window = static_cast<int>(std::min<std::int64_t>(window, 1 << 30));
  if (m.layer_passes > 1)
    m.loop_gate_params = static_cast<std::int64_t>(unique) * (static_cast<std::int64_t>(m.head_dim) * m.heads + m.heads);
}

}  // namespace servesim
