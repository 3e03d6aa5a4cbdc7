#pragma once
// Layer kinds beyond softmax attention over the cached context, each a declared part of
// ModelSpec with its weights, its per-sequence state and its work per token:
//
//   StateLayers    recurrent mixers in place of attention, whose per-sequence state is
//                  constant in the context length:
//                    gated delta rule (linear attention): Qwen3-Next, Qwen3.5;
//                    Kimi delta attention (KDA, a gated delta rule with a per-channel decay):
//                    Kimi Linear, Kimi K3;
//                    Mamba-2 (SSD): Nemotron-H, Nemotron 3, Granite 4.0-H;
//                    Mamba (selective scan): Jamba;
//                    gated short convolution (no recurrent matrix): LFM2, LFM2-MoE;
//                    lightning attention (linear attention with a fixed per-head decay, no
//                    convolution): MiniMax-Text-01, MiniMax-M1.
//                  A sequence holds one state per layer (its recurrent matrix and the last
//                  conv_kernel - 1 inputs of its short convolution; the short convolution
//                  keeps only the latter); prefill runs the sequence through a chunked
//                  scan, a decode step updates the state once.
//   SparseIndexer  DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5):
//                  a few small heads score every earlier token in fp8 and the main
//                  attention reads only the index_topk best (LocalAttention::Kind::topk).
//   CompressedAttention  DeepSeek-V4's hybrid attention, in place of the usual attention on
//                  every layer: one KV head read by every query head, a window of raw KV
//                  beside KV compressed 4x (with an indexer choosing the top index_topk
//                  compressed entries) or 128x (all read), per layer (compress_ratios).
//
// Shapes follow transformers' modules (Qwen3NextGatedDeltaNet, NemotronHMamba2Mixer,
// JambaMambaMixer, Lfm2ShortConv, DeepseekV32 Indexer); FLOP counts are per token and layer, derived in
// layer_kinds.cpp.
#include <cstdint>
#include <string>

#include "model/dtype.h"

namespace servesim {

struct StateLayers {
  // mamba2_bcdt: PLaMo 2's Mamba (Mamba-2's SSD scan, one group, with Mamba's projections: B, C
  // and dt from the convolution's output, layer_kinds.cpp).
  enum class Kind { none, gated_delta, kda, mamba2, mamba1, short_conv, lightning, mamba2_bcdt };
  Kind kind = Kind::none;
  int layers = 0;      // layers whose mixer is this kind
  // gated delta, KDA: value heads and width; Mamba-2: SSM heads and head_dim; Mamba: 1 and d_inner;
  // short convolution: 1 and hidden (its channels); lightning: heads and head_dim
  int heads = 0;
  int head_dim = 0;
  // gated delta, KDA: query/key heads and width; Mamba-2: groups (n_groups) and d_state; Mamba: 0 and d_state;
  // short convolution: 0 and 0 (no recurrent state); lightning: heads and head_dim (k as wide as v)
  int key_heads = 0;
  int key_dim = 0;
  int conv_kernel = 4;  // short convolution: conv_L_cache
  int dt_rank = 0;      // Mamba, PLaMo 2's Mamba: rank of the time-step projection
  bool conv_bias = false;  // short convolution: the projections' biases too (LFM2's conv_bias)
  // KDA: the output gate is one full-rank projection hidden -> heads x head_dim (Kimi K3's
  // linear_attn_config.use_full_rank_gate) instead of Kimi Linear's low-rank pair through head_dim.
  bool full_rank_gate = false;
  // KDA: the forget gate one full-rank projection hidden -> heads x head_dim (f_proj) instead of
  // the low-rank f_a / f_b pair (Ling 3.0's no_kda_lora, both gates full rank).
  bool full_rank_forget = false;
  int chunk = 64;       // prefill scan chunk (gated delta, KDA: FLA's 64; Mamba-2: chunk_size; lightning: block_size)
  DType state_dtype = DType::bf16;  // the recurrent state's (mamba_ssm_cache_dtype); the conv state follows activations

  bool enabled() const { return kind != Kind::none && layers > 0; }
  bool recurrent() const { return kind != Kind::none && kind != Kind::short_conv; }  // holds a recurrent matrix
  std::int64_t inner() const { return static_cast<std::int64_t>(heads) * head_dim; }  // out_proj input
  std::int64_t in_proj_width() const;   // input projection outputs (from hidden)
  std::int64_t mid_params() const;      // Mamba's x_proj + dt_proj; KDA's up-projections from head_dim; 0 otherwise
  std::int64_t conv_channels() const;
  std::int64_t params_per_layer(std::int64_t hidden) const;  // projections, conv, small vectors (not the layer norm)
  std::int64_t state_elements() const;       // recurrent state per sequence and layer
  std::int64_t conv_state_elements() const;  // the short convolution's last inputs
  // FLOPs of the scan (or state update) per token and layer; projections are GEMMs, apart.
  double prefill_flops_per_token() const;
  double decode_flops_per_token() const;
  std::string kind_name() const;  // "gated delta rule", "Mamba-2", "Mamba", "gated short convolution"
  std::string describe() const;   // "gated delta rule on 36 layers (32 heads of 128 x 128 state)"
};

// The indexer runs on the top-k layers (ModelSpec::local.layers, with local.kind topk): every
// layer with DSA, the layers sparse_attention_freq marks with MiniMax-M3's block-sparse
// attention (MSA; the fields below that differ from DSA's say how).
struct SparseIndexer {
  int heads = 0;     // index_n_heads
  int head_dim = 0;  // index_head_dim
  int topk = 0;      // keys the main attention reads per query: index_topk (DSA), blocks x block (MSA)
  // Tokens per selected unit: 1 with DSA (it picks tokens); MiniMax-M3's MSA picks
  // sparse_topk_blocks blocks of sparse_block_size tokens, scoring a block by its best token
  // (sparse_score_type "max"), so the index emits topk / block indices per query.
  int block = 1;
  // DSA's weights_proj (hidden -> heads) weighting the heads' scores; MSA has none (its
  // attention module holds index_q_proj, index_k_proj and their two norms only).
  bool head_weights = true;
  // DSA caches its key in fp8 with one fp32 scale per 128 (vLLM's DeepseekV32IndexerCache);
  // MiniMax-M3's index key is kept at 16 bits by default (vLLM's minimax_m3 indexer_kv_dtype
  // "bf16" unless the engine is told fp8; TensorRT-LLM's index-K pool the same).
  bool key_fp8 = true;
  // Layers with an indexer of their own where fewer than the top-k layers have one (Tencent
  // Hy4's indexer_types "full" / "shared", GLM-5.3's IndexCache: a shared layer reuses the
  // previous full layer's selection, with no indexer weights, keys or scoring). -1: every top-k
  // layer has its own.
  int own_layers = -1;
  // Tokens per cached index key (GLM-5.3-Flash's index_kpool: the indexer keeps one key per
  // pool of 4 tokens, built by a learned compression, index_kpool_compress_ape (pool x head_dim)
  // and _gate (head_dim x hidden), and scores pools, not tokens). 1: a key per token.
  int key_pool = 1;
  // Qwen3.8-Flash-Next's QSA pools without weights when it scores: each token's raw key is
  // cached and a block's key is the mean of its key_pool raw keys, so the scores are one a pool
  // (FLOPs / key_pool) but the cache holds and the scoring reads a key a token. false: the
  // pooled key is what is cached (GLM-5.3's learned compression, its weights counted).
  bool pool_when_scoring = false;
  bool enabled() const { return heads > 0 && head_dim > 0 && topk > 0 && block > 0; }
  int selected() const { return topk / block; }  // indices the indexer emits per query
  // Weights per layer: its query projection from the compressed query (q_lora_rank; hidden
  // without), the key projection, the key LayerNorm's weight and bias (DSA) or the query and
  // key RMSNorms (MSA: head_dim each, the same 2 x head_dim) and the head weights.
  std::int64_t params_per_layer(std::int64_t hidden, std::int64_t q_lora_rank) const;
  // Its cached key per token and layer, whatever the KV cache precision: head_dim fp8 values
  // and one fp32 scale per 128 (DSA), or head_dim 16-bit values (MSA).
  // Per token: with pooled keys, a pool's key over its key_pool tokens.
  double key_bytes() const {
    return (key_fp8 ? head_dim + 4.0 * ((head_dim + 127) / 128) : 2.0 * head_dim) / (pool_when_scoring ? 1 : key_pool);
  }
};

// DeepSeek-V4's attention (deepseek-ai/DeepSeek-V4-Flash inference/model.py, classes
// Attention, Compressor and Indexer; read in the copy at
// Nicooo-Wang/DeepSeek-V4-Pro-code@0ec3a03c2fc34f29b2e72696ceaed9ae7a373aeb:inference/model.py).
// Every layer: q = wq_b(q_norm(wq_a(x))) (hidden -> q_lora_rank -> heads x head_dim), one
// KV head kv = kv_norm(wkv(x)) (hidden -> head_dim, keys and values alike, the last rope_dim
// rotary), a learned sink logit per head, and a grouped low-rank output: the heads' outputs
// in o_groups groups, each projected to o_lora_rank by wo_a (heads x head_dim / o_groups ->
// o_groups x o_lora_rank), then wo_b (o_groups x o_lora_rank -> hidden). The layer caches
// the last `window` tokens' kv (kv_cache of window_size + max_seq_len // ratio rows) and,
// with compress_ratio r > 0, one compressed entry per r tokens: a Compressor (wkv and wgate
// hidden -> coff x head_dim, ape r x coff x head_dim, a norm of head_dim; coff = 2 for r = 4,
// whose windows overlap, 1 otherwise) pools r tokens' kv by a softmax over its gate. A query
// at position p attends to min(p, window) raw entries plus, with r = 128, all floor(p / 128)
// compressed ones (get_compress_topk_idxs) or, with r = 4, the index_topk its Indexer picks
// among floor(p / 4): the indexer's query wq_b (q_lora_rank -> index heads x index head_dim),
// its head weights weights_proj (hidden -> index heads) and its own Compressor (r = 4,
// index_head_dim wide, overlapping) score every compressed key (relu(q.k) summed over heads).
// The Compressors keep per sequence their last coff x r inputs and scores in fp32 (kv_state,
// score_state) until r tokens are pooled.
struct CompressedAttention {
  static constexpr int kIndexedRatio = 4;   // compress_ratio with the indexer (and overlapping windows)
  static constexpr int kDenseRatio = 128;   // compress_ratio whose entries are all read
  int window = 0;            // sliding_window: raw tokens kept and read in every layer
  int head_dim = 0;          // the KV head's and every query head's width
  int rope_dim = 0;          // qk_rope_head_dim
  int q_lora_rank = 0;
  int o_groups = 0, o_lora_rank = 0;
  int window_layers = 0;     // compress_ratio 0: the window only
  int indexed_layers = 0;    // compress_ratio 4, with the indexer
  int dense_layers = 0;      // compress_ratio 128
  SparseIndexer indexer;     // of the indexed layers (index_n_heads, index_head_dim, index_topk)

  bool enabled() const { return layers() > 0 && head_dim > 0; }
  int layers() const { return window_layers + indexed_layers + dense_layers; }
  // Weights of one layer's attention without a compressor (wq_a, q_norm, wq_b, wkv, kv_norm,
  // wo_a, wo_b, the sinks), of a Compressor of `ratio` and `width`, and of the indexer (its
  // query and head-weight projections and its own compressor).
  std::int64_t base_params(std::int64_t hidden, int heads) const;
  std::int64_t compressor_params(std::int64_t hidden, int ratio, int width) const;
  std::int64_t indexer_params(std::int64_t hidden) const;
  std::int64_t params(std::int64_t hidden, int heads) const;  // over every layer
  std::int64_t split_params_per_layer(std::int64_t hidden, int heads) const;  // wq_b, wo_a, wo_b: split over TP
  // Compressor weights over every layer (stored bf16: "wkv and wgate in the checkpoint is
  // stored in bf16", Compressor.__init__) and the indexer's head weights (bf16 weights_proj).
  std::int64_t bf16_params(std::int64_t hidden) const;
  // Entries a query at 1-based position p reads in one layer of each kind: the window's raw
  // ones, the compressed ones of an indexed layer (min(topk, floor(p/4))) and of a dense
  // one (floor(p/128)); and the compressed keys the indexer scores (floor(p/4)).
  std::int64_t window_keys(std::int64_t p) const { return p < window ? p : window; }
  std::int64_t indexed_keys(std::int64_t p) const {
    const std::int64_t c = p / kIndexedRatio;
    return c < indexer.topk ? c : indexer.topk;
  }
  static std::int64_t dense_keys(std::int64_t p) { return p / kDenseRatio; }
  static std::int64_t index_keys(std::int64_t p) { return p / kIndexedRatio; }
  // Sums over positions 1..p of the above (closed forms, layer_kinds.cpp).
  double window_pairs_through(std::int64_t p) const;
  double indexed_pairs_through(std::int64_t p) const;
  static double compressed_pairs_through(std::int64_t p, int ratio);  // sum of floor(q / ratio), q = 1..p
  // KV of one sequence of `ctx` tokens over every layer at `entry_bytes` per element: the
  // window's raw entries, the compressed entries, the indexer's keys (fp8 + scale).
  double kv_bytes_per_sequence(std::int64_t ctx, double entry_bytes) const;
  // The part that grows with the context, per token (compressed entries and indexer keys:
  // what KV blocks hold), and the part every sequence holds whatever its length (the window
  // at its full size, as the model's kv_cache, and the compressors' fp32 state).
  double compressed_bytes_per_token(double entry_bytes) const;
  double window_bytes_per_sequence(double entry_bytes) const;
  double compressor_state_bytes_per_sequence() const;
  std::string describe() const;
};

// LongCat-Flash-Lite's n-gram embedding (model_type longcat_flash_ngram; vLLM's NgramEmbedding,
// vllm-project/vllm@fe441ccfe6a851ce9704eb3ed5a4f5559b89e75f:vllm/model_executor/models/longcat_flash.py):
// beside the token embedding, k x (n - 1) hashed tables (emb_split_num k, emb_neighbor_num n),
// table i of floor(m + 2 i + 1) rows with m = ngram_vocab_size_ratio x vocab_size, each
// hidden / (k (n - 1)) wide and projected back to hidden by its own post_proj (no bias); the
// token's vector is the mean of the embedding and the projections. A token looks up one row a
// table (no GEMM): the tables are in the total parameters and the weights (31.4B of
// LongCat-Flash-Lite's 68.5B, its publisher says), not in the active ones; the projections run
// for every token.
struct NgramEmbedding {
  int tables = 0;            // k (n - 1); 0: none
  double rows_base = 0.0;    // m = ratio x vocab (a ratio may be fractional)
  std::int64_t width = 0;    // hidden / tables
  bool enabled() const { return tables > 0; }
  std::int64_t table_params() const {
    std::int64_t sum = 0;
    for (int i = 0; i < tables; ++i) sum += static_cast<std::int64_t>(rows_base + 2.0 * i + 1.0) * width;
    return sum;
  }
  std::int64_t projection_params(std::int64_t hidden) const { return static_cast<std::int64_t>(tables) * width * hidden; }
};

// Inkling's attention parts beyond GQA (huggingface/transformers@04fafa296134367ab5b7ce37a54c622644ccde5a:
// src/transformers/models/inkling/modeling_inkling.py, InklingAttention, InklingRelativeLogits,
// InklingShortConvolution, InklingDecoderLayer): in place of RoPE, r_proj (hidden -> heads x d_rel)
// and a table of d_rel x extent (the window on local layers, rel_extent on global ones) give each
// head a logit bias per backward distance; per-head RMSNorms of q and k (head_dim each); and four
// depthwise causal convolutions of sconv_kernel taps without bias, each with its residual: k and v
// after their projections (kv heads x head_dim channels each), the attention output and the MLP
// output (hidden each). The bias adds 2 d_rel FLOPs a query-key pair and head to the attention's
// 4 head_dim (+6% at Inkling's 16 and 128), not priced; the projection and the convolutions are.
struct RelativeAttention {
  int d_rel = 0;  // 0: none
  std::int64_t extent_local = 0;
  std::int64_t extent_global = 0;
  int sconv_kernel = 0;  // 0: no convolutions
  bool enabled() const { return d_rel > 0; }
  // Weights of one attention layer with `heads` query heads and k, v `kv_width` wide each.
  std::int64_t params_per_layer(std::int64_t hidden, std::int64_t heads, std::int64_t kv_width, std::int64_t head_dim,
                                bool global) const {
    if (!enabled()) return 0;
    return hidden * heads * d_rel + d_rel * (global ? extent_global : extent_local) + 2 * head_dim +
           sconv_kernel * (2 * kv_width + 2 * hidden);
  }
};

// Qwen3.8-Flash-Next's per-layer n-gram embedding (PLE; its model reference in NInfer's docs,
// "Qwen4Exp model reference", and transformers' qwen4_exp): once, before one layer's mixer, the
// token's 2- and 3-gram hashes pick heads_per_ngram rows each (lookups in all) of one table of
// `rows` x `width` (the sum of lookups primes after ngram_vocab_size_base, rounded up to
// make_ngram_vocab_size_divisible_by: 320,001,536 x 160, 51.2B weights), concatenated to an
// embed_dim-wide E; key_proj (embed_dim -> streams x hidden) and value_proj (embed_dim -> hidden)
// turn E into a gated update of the hyper-connection streams, through three grouped norms
// (streams x hidden each) and a depthwise causal convolution of conv_kernel taps spaced
// conv_dilation apart. A row lookup is no GEMM: the table is in the total parameters and the
// weights, not the active ones; the projections run for every token. The convolution keeps the
// last (conv_kernel - 1) x conv_dilation inputs of a sequence as state (9 x 10,240 values), as a
// state layer does.
struct PleNgram {
  std::int64_t rows = 0;   // 0: none
  std::int64_t width = 0;  // per looked-up row
  int lookups = 0;         // rows a token gathers (n-gram sizes x heads_per_ngram)
  std::int64_t embed_dim = 0;
  int streams = 1;         // hyper-connection streams the update is written into
  int conv_kernel = 0;
  int conv_dilation = 1;
  // Bytes a table weight is stored in: 0, the token embedding's (16-bit); 1 where an FP8
  // checkpoint converts it (Qwen3.8-Flash-Next-FP8's quantization_config modules_to_convert
  // names ple.ple_embedding.ngram_embedding).
  double table_bytes = 0.0;
  bool enabled() const { return rows > 0 && width > 0; }
  std::int64_t table_params() const { return enabled() ? rows * width : 0; }
  std::int64_t projection_params(std::int64_t hidden) const {
    if (!enabled()) return 0;
    const std::int64_t wide = static_cast<std::int64_t>(streams) * hidden;
    return wide * embed_dim + hidden * embed_dim + 3 * wide + wide * conv_kernel;  // key, value, norms, conv
  }
  // Values of one sequence's convolution state (its last inputs), at the activations' precision.
  std::int64_t conv_state_elements(std::int64_t hidden) const {
    return enabled() ? static_cast<std::int64_t>(conv_kernel - 1) * conv_dilation * streams * hidden : 0;
  }
};

// Zamba2's shared transformer blocks (Zamba2ForCausalLM; transformers' modeling_zamba2.py and
// vLLM's zamba2.py, Zamba2HybridLayer). Every layer of the model is a Mamba-2 layer; on `uses`
// of them (hybrid_layer_ids) a transformer block runs first: attention and a gated GELU MLP with
// their two norms, one of `blocks` sets of weights taken in turn (num_mem_blocks: the hybrid
// layer i runs block i mod blocks). Its input is the hidden state concatenated with the token's
// embedding, `input_width` = 2 x hidden wide: the first norm and q, k, v read that width (o_proj
// writes hidden). Each use adds its own weights: low-rank adapters of rank `adapter_rank` on q,
// k and v (use_shared_attention_adapter; each input_width -> rank -> the query width) and on the
// MLP's gate_up (use_shared_mlp_adapter; hidden -> rank -> 2 x ffn), and a hidden x hidden
// linear map (no bias) whose output is added to the Mamba layer's input.
//
// The attention and MLP layers of the ModelSpec (attention_layer_count, mlp_layer_count) are the
// uses: a step computes and streams each use's weights, and each use keeps its own KV cache
// (vLLM builds one Attention, one KV cache, per hybrid layer). The blocks' weights are held once
// each: total and active parameters and the memory plan count `blocks` of them
// (ModelSpec::shared_blocks_params_delta corrects the per-layer sums).
struct SharedBlocks {
  int blocks = 0;  // num_mem_blocks
  int uses = 0;    // hybrid layers
  std::int64_t input_width = 0;
  int adapter_rank = 0;
  bool attention_adapters = false;
  bool mlp_adapters = false;
  bool enabled() const { return blocks > 0 && uses > 0; }
  // One use's own weights: its adapters and its linear map.
  std::int64_t adapter_params(std::int64_t hidden, std::int64_t q_width, std::int64_t gate_up_width) const {
    const std::int64_t r = adapter_rank;
    return (attention_adapters ? 3 * (input_width * r + r * q_width) : 0) +
           (mlp_adapters ? hidden * r + r * gate_up_width : 0);
  }
  std::int64_t per_use_params(std::int64_t hidden, std::int64_t q_width, std::int64_t gate_up_width) const {
    return adapter_params(hidden, q_width, gate_up_width) + hidden * hidden;
  }
};

// Gemma 3n's parts beyond Gemma 3's decoder layer (hf_gemma3n_family.cpp; transformers'
// modeling_gemma3n.py, vLLM's gemma3n.py). Every count below is the checkpoint's:
//   AltUp (altup_num_inputs n streams): per layer a router (hidden x n), its norm, the
//     prediction (n x n^2) and correction (n x n) coefficients and the output scale (hidden);
//     before the layers n - 1 projections hidden x hidden, after them n - 1 more (unembed);
//   LAuReL (laurel_rank r): per layer linear_left hidden x r, linear_right r x hidden, a norm;
//   per-layer embeddings (PLE): a table of vocab_size_per_layer_input rows of layers x w
//     (hidden_size_per_layer_input w), a lookup; the model's projection hidden -> layers x w
//     and its norm (w); per layer a gate hidden -> w, a projection w -> hidden and a norm.
// The layer's work runs on one stream (the active one): attention and MLP as Gemma 3's.
// Gemma 4's small models (E2B, E4B) keep the per-layer embeddings alone.
struct Gemma3nParts {
  int altup_streams = 0;       // altup_num_inputs; 0: no AltUp
  int laurel_rank = 0;         // 0: no LAuReL
  std::int64_t ple_rows = 0;   // vocab_size_per_layer_input
  std::int64_t ple_width = 0;  // hidden_size_per_layer_input; 0: no per-layer embeddings
  bool enabled() const { return altup_streams > 0 || laurel_rank > 0 || ple_width > 0; }
  // Weights of one layer's AltUp, LAuReL and PLE gate/projection/norm.
  std::int64_t params_per_layer(std::int64_t hidden) const;
  // The model-level weights beside the layers: the AltUp projections, the PLE projection and
  // its norm (the table apart).
  std::int64_t model_params(std::int64_t hidden, int layers) const;
  std::int64_t table_params(int layers) const { return enabled() ? ple_rows * layers * ple_width : 0; }
  // Multiply-add weights a token runs through beyond its layers' attention and MLP (all of
  // the above but the table and the norms and scales): what a step streams and computes.
  std::int64_t matmul_params(std::int64_t hidden, int layers) const;
};

}  // namespace servesim
