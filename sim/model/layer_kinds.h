#pragma once
// Layer kinds beyond softmax attention over the cached context, each a declared part of
// ModelSpec with its weights, its per-sequence state and its work per token:
//
//   StateLayers    recurrent mixers in place of attention, whose per-sequence state is
//                  constant in the context length:
//                    gated delta rule (linear attention): Qwen3-Next, Qwen3.5, Kimi Linear;
//                    Mamba-2 (SSD): Nemotron-H, Nemotron 3, Granite 4.0-H;
//                    Mamba (selective scan): Jamba.
//                  A sequence holds one state per layer (its recurrent matrix and the last
//                  conv_kernel - 1 inputs of its short convolution); prefill runs the
//                  sequence through a chunked scan, a decode step updates the state once.
//   SparseIndexer  DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5):
//                  a few small heads score every earlier token in fp8 and the main
//                  attention reads only the index_topk best (LocalAttention::Kind::topk).
//
// Shapes follow transformers' modules (Qwen3NextGatedDeltaNet, NemotronHMamba2Mixer,
// JambaMambaMixer, DeepseekV32 Indexer); FLOP counts are per token and layer, derived in
// layer_kinds.cpp.
#include <cstdint>
#include <string>

#include "model/dtype.h"

namespace servesim {

struct StateLayers {
  enum class Kind { none, gated_delta, mamba2, mamba1 };
  Kind kind = Kind::none;
  int layers = 0;      // layers whose mixer is this kind
  // gated delta: value heads and width; Mamba-2: SSM heads and head_dim; Mamba: 1 and d_inner
  int heads = 0;
  int head_dim = 0;
  // gated delta: query/key heads and width; Mamba-2: groups (n_groups) and d_state; Mamba: 0 and d_state
  int key_heads = 0;
  int key_dim = 0;
  int conv_kernel = 4;
  int dt_rank = 0;      // Mamba: rank of the time-step projection
  bool conv_bias = false;
  int chunk = 64;       // prefill scan chunk (gated delta: FLA's 64; Mamba-2: chunk_size)
  DType state_dtype = DType::bf16;  // the recurrent state's (mamba_ssm_cache_dtype); the conv state follows activations

  bool enabled() const { return kind != Kind::none && layers > 0; }
  std::int64_t inner() const { return static_cast<std::int64_t>(heads) * head_dim; }  // out_proj input
  std::int64_t in_proj_width() const;   // input projection outputs (from hidden)
  std::int64_t mid_params() const;      // Mamba's x_proj + dt_proj (from inner); 0 otherwise
  std::int64_t conv_channels() const;
  std::int64_t params_per_layer(std::int64_t hidden) const;  // projections, conv, small vectors (not the layer norm)
  std::int64_t state_elements() const;       // recurrent state per sequence and layer
  std::int64_t conv_state_elements() const;  // the short convolution's last inputs
  // FLOPs of the scan (or state update) per token and layer; projections are GEMMs, apart.
  double prefill_flops_per_token() const;
  double decode_flops_per_token() const;
  std::string kind_name() const;  // "gated delta rule", "Mamba-2", "Mamba"
  std::string describe() const;   // "gated delta rule on 36 layers (32 heads of 128 x 128 state)"
};

struct SparseIndexer {
  int heads = 0;     // index_n_heads
  int head_dim = 0;  // index_head_dim
  int topk = 0;      // index_topk: keys the main attention reads per query
  bool enabled() const { return heads > 0 && head_dim > 0 && topk > 0; }
  // Weights per layer: its query up-projection from the compressed query (q_lora_rank; hidden
  // without), the key projection, the key LayerNorm (weight and bias) and the head weights.
  std::int64_t params_per_layer(std::int64_t hidden, std::int64_t q_lora_rank) const;
  // Its cached key per token and layer: head_dim fp8 values and one fp32 scale per 128
  // (vLLM's DeepseekV32IndexerCache), whatever the KV cache precision.
  double key_bytes() const { return head_dim + 4.0 * ((head_dim + 127) / 128); }
};

}  // namespace servesim
