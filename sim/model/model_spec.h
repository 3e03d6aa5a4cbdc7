#pragma once
// Immutable description of a transformer's shapes, read once from models/*.yaml or
// imported from a Hugging Face config.json. Everything the cost model needs and
// nothing about weights' values.
#include <cstdint>
#include <string>

#include "model/dtype.h"

namespace servesim {

struct MoeSpec {
  int num_experts = 0;             // routed experts per MoE layer (0 = dense model)
  int experts_per_token = 0;       // top-k
  int shared_experts = 0;          // always-on experts (DeepSeek, Qwen-MoE)
  std::int64_t expert_ffn = 0;     // intermediate size of one routed expert
  std::int64_t shared_expert_ffn = 0;  // intermediate size of one shared expert (0 = expert_ffn)
  int dense_layers = 0;            // leading layers with a dense MLP instead of MoE
  // MoE on every layer_step-th of the remaining layers (Llama 4 Maverick's
  // interleave_moe_layer_step 2: layers 1, 3, 5, ...); the others dense. 1 = all.
  int layer_step = 1;
  bool enabled() const { return num_experts > 0; }
};

// Local attention: `layers` of the model's layers attend only to a recent span of
// keys, the others to the whole context. Sliding window (Mistral 7B v0.1, Gemma 2/3):
// a query at position p sees the last min(p, span) keys. Chunked (Llama 4): the
// sequence is cut into chunks of `span` tokens and a query sees the keys of its own
// chunk up to itself, ((p - 1) mod span) + 1 of them. Which layers are local matters
// only through their number (a pipeline stage split treats them as spread evenly).
struct LocalAttention {
  enum class Kind { none, sliding, chunked };
  Kind kind = Kind::none;
  std::int64_t span = 0;  // window or chunk, tokens
  int layers = 0;         // local layers (the others are global)
  bool enabled() const { return kind != Kind::none && layers > 0 && span > 0; }
  // Keys a query at 1-based position p attends to in a local layer.
  std::int64_t keys(std::int64_t p) const {
    return kind == Kind::chunked ? (p - 1) % span + 1 : (p < span ? p : span);
  }
  // keys(1) + ... + keys(p): the causal query-key pairs of the first p positions.
  double pairs_through(std::int64_t p) const;
  // Keys a prefill chunk of n queries after c cached tokens reads from the cache and
  // itself (positions c+1 .. c+n): from the first one's window (or chunk) start on.
  std::int64_t keys_read(std::int64_t c, std::int64_t n) const {
    const std::int64_t first = kind == Kind::chunked ? c / span * span : (c + 1 > span ? c + 1 - span : 0);
    return c + n - first;
  }
  std::string describe() const;  // "sliding window of 1024 tokens on 40 layers"
};

// Multi-head latent attention (DeepSeek-V2/V3): KV compressed to kv_lora_rank plus a
// shared rotary key of qk_rope_head_dim per token and layer.
struct MlaSpec {
  int q_lora_rank = 0;        // 0 = queries not compressed
  int kv_lora_rank = 0;       // 0 = not MLA
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  bool enabled() const { return kv_lora_rank > 0; }
};

// Group-wise quantization of an imported checkpoint: every `size` consecutive weights
// share `scale_bytes` of scale (and zero-point) data stored beside them, which weight
// reads and memory pay for. size 0: per-channel or per-tensor scales, a few bytes per
// thousands of weights, not counted. Catalog models (models/*.yaml) have none.
struct WeightGroups {
  std::string scheme;        // e.g. "awq 4-bit, groups of 128 (fp16 scale + 4-bit zero)"; "" = not quantized
  int size = 0;
  double scale_bytes = 0;
  bool enabled() const { return size > 0; }
};

struct ModelSpec {
  std::string name;          // catalog name, e.g. "llama-3.1-8b"
  std::string hf_id;         // "meta-llama/Llama-3.1-8B"
  std::string architecture;  // "LlamaForCausalLM"
  std::string source_file;

  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  std::int64_t ffn = 0;       // dense MLP intermediate size
  bool gated_mlp = true;      // SwiGLU/GeGLU: gate and up projections
  bool qkv_bias = false;
  std::int64_t vocab = 0;
  bool tied_embeddings = false;
  std::int64_t max_context = 0;
  DType native_dtype = DType::bf16;
  WeightGroups weight_groups;  // of native_dtype weights (quantized checkpoints)
  MoeSpec moe;
  MlaSpec mla;
  LocalAttention local;  // none unless a window or chunk binds below max_context
  // Multi-token-prediction modules the checkpoint ships beside the model (DeepSeek-V3's
  // num_nextn_predict_layers): counted in checkpoint_params(), not run or loaded (serving
  // engines load them only to draft speculative tokens).
  int mtp_layers = 0;

  // --- derived (pure functions of the fields above) ---
  // Bytes one weight of precision `weights` occupies: its element size, plus its share of
  // the group scales when `weights` is the checkpoint's own quantized precision.
  double weight_element_bytes(DType weights) const;
  std::int64_t q_dim() const;        // query width: heads * head_dim (MLA: heads * (nope+rope))
  std::int64_t kv_dim() const;       // K (or V) width: kv_heads * head_dim
  std::int64_t attention_params_per_layer() const;
  std::int64_t dense_mlp_params_per_layer() const;
  std::int64_t moe_params_per_layer() const;         // all experts + shared + router
  std::int64_t moe_active_params_per_layer() const;  // top-k + shared + router
  std::int64_t embedding_params() const;             // input embedding + LM head (once if tied)
  std::int64_t norm_params() const;
  std::int64_t total_params() const;
  std::int64_t active_params() const;  // touched per token (== total for dense)
  std::int64_t mtp_params() const;     // the MTP modules' weights (0 without)
  std::int64_t checkpoint_params() const { return total_params() + mtp_params(); }
  int moe_layers() const;
  // KV cache bytes per token over all layers (MLA: compressed latent + rope key).
  double kv_bytes_per_token(DType kv) const;
  // Elements of KV cache per token per layer (K and V together).
  std::int64_t kv_elements_per_token_layer() const;
};

}  // namespace servesim
