#pragma once
// Immutable description of a transformer's shapes, read once from models/*.yaml or
// imported from a Hugging Face config.json. Everything the cost model needs and
// nothing about weights' values.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "model/layer_kinds.h"

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
  // MoE layers counted from a per-layer list (Nemotron-H's hybrid_override_pattern, Jamba's
  // expert_layer_period and offset): overrides dense_layers and layer_step when >= 0.
  int listed_layers = -1;
  // Routing restricted to topk_groups of `groups` expert groups (DeepSeek-V3's n_group /
  // topk_group): read and shown; it changes which experts a token reaches, not how many.
  int groups = 0, topk_groups = 0;
  // Nemotron-3 Super's latent MoE: tokens are projected hidden -> latent before the routed
  // experts and back after (fc1/fc2_latent_proj), so the experts run at width `latent`. 0 = none.
  std::int64_t latent = 0;
  // Kimi K3's latent MoE (latent_moe_use_norm): an RMSNorm of the latent width on the routed
  // experts' output before the projection back (vLLM's KimiMoE.routed_expert_norm).
  bool latent_norm = false;
  bool expert_bias = false;  // gpt-oss: biases on every expert's projections and on the router
  // DeepSeek-V4's first num_hash_layers MoE layers pick their experts from a table indexed by
  // the token id (Gate.tid2eid: vocab x top-k int32, inference/model.py) instead of the top
  // scores; their experts run as in the other MoE layers. The tables are counted in the total
  // parameters (a lookup: not in the active ones).
  int hash_layers = 0;
  // Zero-computation (identity) experts among the router's choices (LongCat-Flash's
  // zero_expert_num): the router scores num_experts + zero_experts and picks `routed_topk`; an
  // identity expert returns its input scaled, with no weights and no work. experts_per_token is
  // then the real experts a token reaches on average, routed_topk x num_experts / (num_experts +
  // zero_experts) (8 of 12 for LongCat-Flash, whose publisher's 27B average active figure is
  // that count); every routed-expert cost and the expert loads follow it. 0: none.
  int zero_experts = 0;
  int routed_topk = 0;  // the router's top-k over all choices (with zero_experts), else unused
  // ERNIE-4.5-VL's vision experts: a second set of routed experts, with its own router, beside
  // the text experts on every MoE layer, which only image and video tokens reach (vLLM's
  // Ernie4_5_VLMoeMoE: vision_experts and vision_experts_gate). servesim serves text: their
  // weights are in the total parameters and the memory plan, never in the active count or a
  // step's work. 0: none.
  int vision_experts = 0;
  std::int64_t vision_expert_ffn = 0;
  bool enabled() const { return num_experts > 0; }
};

// Local attention: `layers` of the model's layers attend only to a recent span of
// keys, the others to the whole context. Sliding window (Mistral 7B v0.1, Gemma 2/3):
// a query at position p sees the last min(p, span) keys. Chunked (Llama 4): the
// sequence is cut into chunks of `span` tokens and a query sees the keys of its own
// chunk up to itself, ((p - 1) mod span) + 1 of them. Which layers are local matters
// only through their number (a pipeline stage split treats them as spread evenly).
//
// Top-k sparse attention (DeepSeek sparse attention, DSA: DeepSeek-V3.2, GLM-5) is the third
// kind: every layer's query attends to the `span` = index_topk keys its lightning indexer
// (SparseIndexer, layer_kinds.h) selects, min(p, span) of them like a sliding window, but any
// earlier key may be selected, so no block is ever freed and a prefill chunk may read them all.
struct LocalAttention {
  enum class Kind { none, sliding, chunked, topk };
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
    if (kind == Kind::topk) return c + n;  // any earlier key may be among a query's top k
    const std::int64_t first = kind == Kind::chunked ? c / span * span : (c + 1 > span ? c + 1 - span : 0);
    return c + n - first;
  }
  // Whether keys past the span can be dropped (a window or a chunk); top-k selection keeps all.
  bool frees_keys() const { return kind == Kind::sliding || kind == Kind::chunked; }
  std::string describe() const;  // "sliding window of 1024 tokens on 40 layers"
};

// How the checkpoint itself stores and runs its tensors, as its quantization config says
// (quantization_config, hf_quant_config.json): the weights of some tensor groups may stay
// unquantized (gpt-oss's MXFP4 experts beside bf16 attention; Kimi-K2.5's int4 experts), and
// the config may name the activation (W4A4 NVFP4, W8A8 FP8) and KV cache precisions. The
// scenario's model.weights / activations / kv_cache default to these; a scenario asking for
// another precision is warned (config/read_setup.cpp). Catalog models have none.
enum class TensorGroup { attention, dense_mlp, experts, shared_experts, state_layers };
constexpr int kTensorGroups = 5;
std::string tensor_group_name(TensorGroup g);
struct CheckpointPrecision {
  bool present = false;      // the checkpoint names its quantization
  std::string source;        // "config.json quantization_config (mxfp4)", "hf_quant_config.json (NVFP4)"
  bool has_activations = false, has_kv_cache = false;
  DType activations = DType::bf16;  // what its quantized GEMMs compute in (W4A4: fp4)
  DType kv_cache = DType::bf16;     // its KV cache precision (kv_cache_quant_algo FP8: fp8)
  // Bytes per stored weight of each tensor group where it differs from native_dtype's (with
  // weight_groups' scales): a group the checkpoint leaves unquantized (2 for bf16), or part
  // of (a share of the layers from a list of modules to skip), or stores at another
  // precision (ModelOpt MIXED_PRECISION). 0: native_dtype's.
  std::array<double, kTensorGroups> group_bytes{};
  std::array<std::string, kTensorGroups> group_note{};  // "bf16 (not quantized)", "fp8, 24 of 48 layers"
  double bytes(TensorGroup g) const { return group_bytes[static_cast<int>(g)]; }
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

// A run of dense MLP layers of one width, or of sublayers replaced by one linear map, in a
// model whose layers differ (NVIDIA's NAS-pruned Llama-Nemotron models: DeciLM's block_configs
// give each layer its own ffn_mult, or replace its attention or its MLP by a hidden x hidden
// linear layer, DeciLMLinearAttention / DeciLMLinearMLP in their modeling_decilm.py).
struct MlpWidthGroup {
  std::int64_t ffn = 0;  // intermediate width of these dense MLP layers (0 with linear)
  int layers = 0;
  bool linear = false;   // hidden x hidden linear sublayers: no KV, no activation, one GEMM each
};

// A run of attention layers sharing one KV-head count, in a model whose attention layers group
// their query heads differently (Llama-3.1-Nemotron-51B's "variable GQA": each block_configs
// entry's n_heads_in_group, KV heads = num_attention_heads / it).
struct KvHeadGroup {
  int kv_heads = 0;
  int layers = 0;
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
  // KV heads per attention layer where they differ (KvHeadGroup, the most first): their layers
  // sum to attention_layers() and kv_heads holds the largest count. KV cache, k/v_proj weights
  // and the attention's KV traffic follow each group's count. Empty: kv_heads on every layer.
  std::vector<KvHeadGroup> kv_head_groups;
  int head_dim = 0;
  std::int64_t ffn = 0;       // dense MLP intermediate size (the widest, with mlp_widths)
  // Dense MLP layers of differing widths and linear replacements (MlpWidthGroup). Empty: every
  // dense MLP layer is `ffn` wide. Else its non-linear groups hold dense_mlp_layers() layers.
  std::vector<MlpWidthGroup> mlp_widths;
  bool gated_mlp = true;      // SwiGLU/GeGLU: gate and up projections
  // StarCoder2's dense MLP biases (c_fc and c_proj with use_bias): one per output of each
  // projection, ffn (twice when gated) + hidden a layer.
  bool mlp_bias = false;
  // LayerNorms with a bias beside each weight (StarCoder2, PhiMoE): hidden more a norm.
  bool norm_bias = false;
  bool qkv_bias = false;
  std::int64_t vocab = 0;
  bool tied_embeddings = false;
  // Rows of a learned absolute position table, each hidden wide (GPT-2's and GPTBigCode's wpe:
  // n_positions; OPT's embed_positions: max_position_embeddings + 2): counted in the total
  // parameters and the weights; a row lookup per token, no GEMM. 0: rotary, ALiBi or none.
  std::int64_t position_table_rows = 0;
  // Width of the token embedding and LM head where it differs from hidden (OPT-350m's
  // word_embed_proj_dim 512): tables of vocab x it, with project_in and project_out (it x hidden
  // each, no bias) between them and the layers. 0: hidden.
  std::int64_t embed_proj_dim = 0;
  NgramEmbedding ngram;  // LongCat-Flash-Lite's hashed n-gram tables beside the token embedding
  PleNgram ple;          // Qwen3.8-Flash-Next's per-layer n-gram embedding (one table, before one layer)
  RelativeAttention rel;  // Inkling's relative-position logits and short convolutions (attention weights)
  // A norm after the last layer (false: OPT-350m's post-LN layout, do_layer_norm_before false).
  bool final_norm = true;
  bool embedding_norm = false;  // an RMSNorm right after the lookup (Inkling's embed_norm)
  std::int64_t max_context = 0;
  DType native_dtype = DType::bf16;
  WeightGroups weight_groups;  // of native_dtype weights (quantized checkpoints)
  CheckpointPrecision checkpoint;  // imported checkpoints: what their quantization config says
  MoeSpec moe;
  MlaSpec mla;
  LocalAttention local;  // none unless a window, chunk or top-k selection binds below max_context
  // Layer kinds beyond attention + MLP in every layer (layer_kinds.h):
  StateLayers state;        // recurrent mixers in place of attention on state.layers layers
  SparseIndexer indexer;    // DSA's lightning indexer (with local.kind topk)
  CompressedAttention compressed;  // DeepSeek-V4's attention in place of the usual one on its layers
  // Hyper-connections (DeepSeek-V4's Block.hc_pre / hc_post, inference/model.py): hc_mult
  // copies of the residual stream; before each sublayer a Sinkhorn-normalised mix of
  // (2 + hc_mult) x hc_mult weights computed from the flattened streams (hc_*_fn: that many
  // rows of hc_mult x hidden, fp32) reduces them to one, after it they are recombined. 0: a
  // plain residual.
  int hc_mult = 0;
  // Tencent Hy4's independent hyper-connections (iHC): no Sinkhorn mix, so each sublayer's
  // hc_fn has 2 x hc_mult rows of hc_mult x hidden, with 2 x hc_mult bases and 2 scales
  // (hc_pre.{hc_fn, hc_base, hc_scale} in its checkpoint), where DeepSeek-V4's has (2 + hc_mult)
  // x hc_mult rows, as many bases and 3 scales.
  bool hc_independent = false;
  // Qwen3.8-Flash-Next's low-rank mixers (hc_lowrank r; its model reference, "Hyper-connection
  // residual"): before each sublayer a grouped norm of the hc_mult x hidden streams (its weight
  // hc_mult x hidden), W_down (hc_mult x hidden -> r), W_up (r -> hc_mult x hidden) and
  // W_inject (hc_mult x hidden -> hc_mult), 16-bit linear layers; the final mixer before the
  // head has no W_inject. 0: DeepSeek-V4's or Hy4's mix.
  int hc_lowrank = 0;
  // Rows of one sublayer's mixing GEMM over the hc_mult x hidden streams: 2 hc_mult
  // (independent), (2 + hc_mult) hc_mult (DeepSeek-V4), or 2 r + hc_mult (low rank: W_down and
  // W_up have the FLOPs and weights of 2 r rows, W_inject hc_mult).
  std::int64_t hc_mix_rows() const {
    if (hc_lowrank > 0) return 2LL * hc_lowrank + hc_mult;
    return hc_independent ? 2LL * hc_mult : (2LL + hc_mult) * hc_mult;
  }
  // Bytes of a mixing weight: fp32 (DeepSeek-V4's and Hy4's hc_fn), 16-bit (the low-rank mixers).
  double hc_weight_bytes() const { return hc_lowrank > 0 ? 2.0 : 4.0; }
  // Attention residuals (Kimi K3's attn_res_block_size; vLLM's KimiDecoderLayer): before each
  // sublayer the residual input is an attention over the outputs of the earlier blocks of
  // attn_res_block_size layers, scored by an RMSNorm and a hidden -> 1 projection per sublayer
  // (self_attention_res_norm / _proj, mlp_res_norm / _proj) and once more before the final
  // norm (output_attn_res_norm / _proj). Its weights are counted; its work (elementwise, a
  // few blocks of hidden per token) is not priced. 0: a plain residual.
  int attn_res_block_size = 0;
  std::int64_t attn_res_params() const;  // (4 per layer + 2) x hidden, or 0
  // Blocks with a softmax-attention mixer and blocks with an MLP (dense or MoE) when not every
  // layer has one: Nemotron-H's blocks are a single mixer or a single MLP each. -1: derived
  // (attention: the layers without a state mixer; MLP: every layer).
  int attention_layer_count = -1;
  int mlp_layer_count = -1;
  // Attention details of newer families:
  bool attention_sinks = false;   // gpt-oss: a learned sink logit per head (no KV, a few weights)
  // Qwen3-Next/3.5: q_proj also emits a sigmoid gate per query channel; with MLA (Kimi K3's
  // mla_use_output_gate) a g_proj hidden -> heads x v_head_dim gates the heads' output.
  bool attention_output_gate = false;
  bool attention_o_bias = false;  // gpt-oss: bias on o_proj too (qkv_bias covers q, k, v)
  // Per-head RMSNorms of q and k counted as weights: 2 x head_dim a softmax-attention layer
  // (LFM2's q_layernorm and k_layernorm). Other families with such norms leave them uncounted
  // (a few hundred weights a layer; their comments say so), which keeps their figures as they were.
  bool qk_head_norms = false;
  // Gemma 4: the global (full-attention) layers have their own head width and KV heads, and
  // with attention_k_eq_v no v_proj (the keys' projection serves as values). 0: as the others.
  int global_head_dim = 0;
  int global_kv_heads = 0;
  bool global_k_eq_v = false;
  // Query heads of the global layers where they differ from the local layers' `heads`
  // (Step-3.5-Flash: 64 on its full-attention layers, 96 on its sliding ones, from
  // attention_other_setting; Laguna: num_attention_heads_per_layer). 0: `heads` everywhere.
  int global_heads = 0;
  // Width of a value head where it differs from the query/key head's (MiMo-V2-Flash: q and k
  // heads of head_dim 192, values of v_head_dim 128, in its full and sliding layers alike): v_proj's
  // output, the cached values and o_proj's input are kv_heads or heads x v_head_dim. 0: the value
  // head is as wide as the key head (head_dim_of). MLA has its own (mla.v_head_dim).
  int v_head_dim = 0;
  // Step3's multi-matrix factorization attention (MFA; StepFun's share_q_dim, "Low-rank Query
  // Dimension" 2048 on its model card): the query is low-rank, not projected straight from the
  // hidden state. vLLM's Step3TextAttention (vllm-project/vllm@d29a69a5f9eac41579524a0c22bcd68dd15b9ba7:
  // vllm/model_executor/models/step3_text.py) builds qkv_proj hidden -> query_rank + 2 x KV width
  // (ReplicatedLinear: whole on every GPU), inter_norm (an RMSNorm of query_rank weights), then wq
  // query_rank -> heads x head_dim (ColumnParallelLinear: split over TP). MLA's q_lora_rank is the
  // same factorization beside a latent KV; this is it beside ordinary K/V heads, which MlaSpec
  // cannot say. Weights (attention_params_with), the memory plan and the step's qkv_proj / q_up_proj
  // GEMMs follow it. 0: the query is hidden -> heads x head_dim, as in every other non-MLA model.
  std::int64_t query_rank = 0;
  // Which embedding tables the publisher counts in its "active parameters" figure: both
  // (Qwen, Meta, Mistral, Google), only the LM head (OpenAI's gpt-oss model card: the
  // embedding is a lookup, no multiply; DeepSeek and Moonshot's figures fit this too) or
  // neither (Zhipu's GLM, MiniMax, NVIDIA's Nemotron 3: "active parameters excluding
  // embeddings"). Only the reported figure follows it; weights and traffic count all.
  enum class ActiveCount { all_tables, lm_head_only, no_tables };
  ActiveCount active_count = ActiveCount::all_tables;
  // Cross-attention layers (Llama 3.2 Vision's cross_attention_layers): beside the `layers`
  // self-attention layers, each an attention block whose keys and values come from the
  // image encoder (q/k/v/o, per-head q/k norms, a tanh gate) and a gated MLP (its own
  // gate), two norms. Engines skip them for a request without an image (vLLM's and
  // SGLang's mllama: skip_cross_attention), and servesim serves text: their weights
  // are counted and held in memory; no step runs them, and they hold no KV.
  int cross_attention_layers = 0;
  // A looped (Universal-Transformer style) model runs its stack of layers layer_passes times
  // per token (Ouro's total_ut_steps; vLLM's ouro.py: one set of weights, each pass with its
  // own KV cache and all passes run, no early exit). `layers` and every count derived from
  // it are the layers run, passes x the checkpoint's: compute, the weights streamed by each
  // pass and KV follow them. The weights are held once: total and active parameters and the
  // memory plan count the layers' weights (attention, dense MLP, their norms) once. 1: no loop.
  int layer_passes = 1;
  // IQuest-Loop-Coder's gate projections (vLLM's LoopGateProjection, one per stored layer:
  // head_dim -> heads with a bias), which mix its later loops' two attentions per head:
  // counted and held once, split over TP; their work (a GEMM of head_dim x heads per head and
  // token of a later loop, under 0.1% of a layer's) is not priced. 0 elsewhere.
  std::int64_t loop_gate_params = 0;
  int loop_window = 0;  // IQuest-Loop-Coder's loop_window_size: the later loops' own window (not priced)
  SharedBlocks shared_blocks;  // Zamba2's shared transformer blocks (layer_kinds.h); none elsewhere
  // What the per-layer sums (attention_params, dense_mlp_params, layer_norm_params) miss or
  // count too often for shared blocks: the blocks' weights held `blocks` times, not once per
  // use, at their input width, plus each use's adapters and linear map. 0 without.
  std::int64_t shared_blocks_params_delta() const;
  // One block's weights beyond what attention_params_of / dense_mlp_params_per_layer count per
  // layer: q, k, v reading input_width, not hidden (0 without).
  std::int64_t shared_block_wide_input_params() const;
  Gemma3nParts gemma3n;  // AltUp, LAuReL and per-layer embeddings (Gemma 3n); none elsewhere
  std::int64_t gemma3n_params() const;  // its weights but the per-layer table (0 elsewhere)
  // Attention layers that read the KV an earlier layer of their kind wrote and store none
  // (Gemma 3n's last num_kv_shared_layers: transformers' kv_sharing_roles "consumer",
  // vLLM's kv_sharing_target_layer_name), global and local apart. They attend as any
  // layer does (a step reads that KV again); the KV cache holds the others' only.
  int kv_shared_global_layers = 0;
  int kv_shared_local_layers = 0;
  // Whether the KV-sharing layers hold k_proj and v_proj: Gemma 3n's checkpoints keep them
  // (counted and held, their output unused), Gemma 4's do not (transformers does not build
  // them: their weights are left out of the counts and the memory plan).
  bool kv_shared_layers_hold_kv_proj = true;
  // The k_proj and v_proj weights the KV-sharing layers do not hold (0 unless Gemma 4's).
  std::int64_t kv_shared_missing_kv_proj_params() const;
  // Attention layers that cache KV (all of them but the KV-sharing ones), global and local.
  int cached_global_layers() const { return global_attention_layers() - kv_shared_global_layers; }
  int cached_local_layers() const { return (local.enabled() ? local.layers : 0) - kv_shared_local_layers; }
  int cached_attention_layers() const { return cached_global_layers() + cached_local_layers(); }
  // The per-layer weights that the passes after the first reuse ((P - 1) / P of them): what
  // total_params() takes off the unrolled layers' sum. 0 without a loop.
  std::int64_t repeated_pass_params() const;
  std::int64_t repeated_pass_norm_params() const;  // the norms' share of it (the memory plan holds norms apart)
  // A multimodal wrapper's vision encoder, from its vision_config: its weights, estimated,
  // are NOT in the parameter counts or the memory plan, and image prefill is not priced.
  std::int64_t vision_params_estimate = 0;
  // Multi-token-prediction modules the checkpoint ships beside the model (DeepSeek-V3's
  // num_nextn_predict_layers): counted in checkpoint_params(), not run or loaded (serving
  // engines load them only to draft speculative tokens).
  int mtp_layers = 0;
  bool mtp_own_tables = true;  // DeepSeek stores the embedding and head again in each module; Qwen3.5 shares them

  // --- derived (pure functions of the fields above) ---
  // Bytes one weight of precision `weights` occupies: its element size, plus its share of
  // the group scales when `weights` is the checkpoint's own quantized precision.
  double weight_element_bytes(DType weights) const;
  // The same for one tensor group: at the checkpoint's own precision, a group it stores
  // otherwise (left unquantized, MIXED_PRECISION) takes its own bytes.
  double weight_element_bytes(DType weights, TensorGroup g) const;
  int attention_layers() const;   // layers with softmax attention (global + local)
  int global_attention_layers() const { return attention_layers() - (local.enabled() ? local.layers : 0); }
  int mlp_layers() const { return mlp_layer_count >= 0 ? mlp_layer_count : layers; }
  // Layers with the sparse-attention indexer: the top-k layers (every attention layer with DSA;
  // MiniMax-M3's sparse_attention_freq layers). 0 without an indexer.
  int indexer_layers() const {
    if (!indexer.enabled() || local.kind != LocalAttention::Kind::topk) return 0;
    return indexer.own_layers >= 0 ? indexer.own_layers : static_cast<int>(local.layers);
  }
  int dense_mlp_layers() const { return mlp_layers() - moe_layers(); }
  // Sublayers replaced by one linear map (mlp_widths' linear groups): each has its norm.
  int linear_sublayers() const {
    int n = 0;
    for (const MlpWidthGroup& g : mlp_widths) n += g.linear ? g.layers : 0;
    return n;
  }
  int sublayers() const {  // each with a norm
    return attention_layers() + state.layers + compressed.layers() + mlp_layers() + linear_sublayers();
  }
  // Attention shapes of a global and of a local layer (they differ only for Gemma 4).
  int head_dim_of(bool global) const { return global && global_head_dim > 0 ? global_head_dim : head_dim; }
  int heads_of(bool global) const { return global && global_heads > 0 ? global_heads : heads; }
  int kv_heads_of(bool global) const { return global && global_kv_heads > 0 ? global_kv_heads : kv_heads; }
  // Value head width of a global or local layer (non-MLA): v_head_dim where set, else the key's.
  int value_dim_of(bool global) const { return v_head_dim > 0 ? v_head_dim : head_dim_of(global); }
  bool mixed_attention_shapes() const {
    return global_head_dim > 0 || global_kv_heads > 0 || global_k_eq_v || global_heads > 0 || !kv_head_groups.empty();
  }
  // KV heads of the attention layers on average (kv_head_groups' layer-weighted mean; kv_heads
  // without them): what the mean attention layer caches and projects.
  double mean_kv_heads() const;
  std::int64_t q_dim() const;        // query width: heads * head_dim (MLA: heads * (nope+rope))
  // Query width of a global or local layer (non-MLA): heads_of x head_dim_of.
  std::int64_t q_dim_of(bool global) const {
    return static_cast<std::int64_t>(heads_of(global)) * head_dim_of(global);
  }
  std::int64_t kv_dim() const;       // K (or V) width: kv_heads * head_dim
  std::int64_t attention_params_per_layer() const;  // a global layer's (all of them, but for Gemma 4)
  std::int64_t attention_params_of(bool global) const;
  // The same with `kv` KV heads (kv_head_groups' layers).
  std::int64_t attention_params_with(bool global, int kv) const;
  std::int64_t attention_params() const;  // over every attention layer (with DSA's indexer)
  std::int64_t dense_mlp_params_per_layer() const;  // one `ffn`-wide layer
  // Every dense MLP layer's weights and the linear replacements' (the sum over mlp_widths, or
  // dense_mlp_layers() x dense_mlp_params_per_layer()).
  std::int64_t dense_mlp_params() const;
  std::int64_t moe_params_per_layer() const;         // all experts + shared + router (+ vision experts)
  std::int64_t vision_expert_params_per_layer() const;  // ERNIE-4.5-VL's vision experts and their router: of the above
  std::int64_t router_params_per_layer() const;      // the router (with gpt-oss's bias): of the above
  std::int64_t shared_expert_params_per_layer() const;  // the shared experts: of the above
  std::int64_t moe_active_params_per_layer() const;  // top-k + shared + router
  std::int64_t embedding_params() const;             // input embedding + LM head (once if tied)
  std::int64_t table_width() const { return embed_proj_dim > 0 ? embed_proj_dim : hidden; }
  // OPT-350m's project_in and project_out (0 without embed_proj_dim).
  std::int64_t embed_projection_params() const { return embed_proj_dim > 0 ? 2 * embed_proj_dim * hidden : 0; }
  std::int64_t position_table_params() const { return position_table_rows * hidden; }
  // Active parameters of a model with zero-computation experts when a token picks `real` real
  // experts (0 .. routed_topk): the publisher's range ends (LongCat-Flash: 18.6B-31.3B).
  std::int64_t active_params_with_real_experts(int real) const;
  std::int64_t norm_params() const;
  std::int64_t layer_norm_params() const;  // of them, the sublayers' norms (and per-head q/k norms)
  std::int64_t total_params() const;
  std::int64_t active_params() const;  // touched per token (== total for dense), as the publisher counts them
  std::int64_t active_params_all_tables() const;  // the same with both embedding tables
  std::string active_count_name() const;
  std::int64_t mtp_params() const;     // the MTP modules' weights (0 without)
  std::int64_t cross_attention_params_per_layer() const;  // one cross-attention layer's (0 without)
  std::int64_t cross_attention_params() const {
    return static_cast<std::int64_t>(cross_attention_layers) * cross_attention_params_per_layer();
  }
  // Hyper-connection weights: two mixes per layer and the head's (0 without), fp32. Every
  // token uses them: in the total and in the active figures.
  std::int64_t hc_params_per_layer() const;
  std::int64_t hc_head_params() const;  // the mix before the head
  std::int64_t hc_params() const;
  std::int64_t hash_table_params() const;  // DeepSeek-V4's tid2eid tables (MoeSpec::hash_layers)
  // KV every sequence holds whatever its length (DeepSeek-V4's windows at the KV precision and
  // its compressors' fp32 state; 0 for others): reserved per sequence like a state slot.
  double fixed_kv_bytes_per_sequence(DType kv) const;
  std::int64_t checkpoint_params() const { return total_params() + mtp_params(); }
  int moe_layers() const;
  // KV cache bytes per token over all attention layers (MLA: compressed latent + rope key;
  // DSA: plus the indexer's fp8 key, whatever `kv`; DeepSeek-V4: its compressed entries and
  // indexer keys per token, the windows apart in fixed_kv_bytes_per_sequence).
  double kv_bytes_per_token(DType kv) const;
  // Elements of KV cache per token per layer (K and V together: kv_heads x (head_dim + value
  // width)); a global layer's with Gemma 4.
  std::int64_t kv_elements_per_token_layer() const;
  std::int64_t kv_elements_of(bool global) const;
  // Recurrent state a sequence holds over all state layers, whatever its length (the PLE's
  // convolution state apart: PleNgram::conv_state_elements).
  double state_bytes_per_sequence(DType activations) const;
};

}  // namespace servesim
