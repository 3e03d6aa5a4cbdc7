#pragma once
// The roofline step-cost model: time of one forward step of a batch on one replica,
// and its per-operator breakdown. Pure: a CostModel is immutable once built, and
// evaluating it reads no clock and mutates nothing, so one instance serves many
// simulations and threads.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cost/all_to_all.h"
#include "cost/batch.h"
#include "cost/expert_load.h"
#include "cost/moe_deployment.h"
#include "cost/ggml_kernels.h"
#include "cost/lora_shape.h"
#include "cost/parallelism.h"
#include "cost/precision.h"
#include "cost/replica_layout.h"
#include "hardware/gpu_spec.h"
#include "model/model_spec.h"

namespace servesim {

enum class OpKind { gemm, attention, elementwise, communication, overhead };
enum class Bound { compute = 0, memory = 1, communication = 2, overhead = 3 };
constexpr int kBoundCount = 4;
std::string bound_name(Bound b);
std::string op_kind_name(OpKind k);

enum class AttentionKernel { flash, naive };

struct OpCost {
  const char* name = "";
  OpKind kind = OpKind::gemm;
  double count = 0;            // kernel launches (summed over layers)
  double calls = 0;            // collectives: calls per step (their count stays 0: latency is in comm_time)
  double m_tokens = 0;         // GEMM M dimension (tile-fill efficiency); elementwise: rows (tokens)
  ElementwiseKind elementwise_kind = ElementwiseKind::other;  // which per-kind knobs time it (Efficiency)
  double flops = 0;
  bool fp8_math = false;       // an attention-kind op computing in fp8 (DSA's indexer): the 8-bit peak
  double weight_bytes = 0;     // in the weight precision
  double activation_bytes = 0;
  double kv_bytes = 0;         // in the KV-cache precision
  double comm_bytes = 0;       // per GPU, over the interconnect
  double compute_time = 0;
  double memory_time = 0;
  double comm_time = 0;
  double overhead_time = 0;    // fixed per-kernel or per-step time
  double exposed_time = 0;     // GEMMs: the part of min(compute, memory) not hidden (Efficiency::gemm_overlap)
  double time = 0;             // max(compute, memory) + exposed + comm + overhead
  Bound bound = Bound::memory;
  double bytes() const { return weight_bytes + activation_bytes + kv_bytes; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0.0; }  // FLOP per byte
};

// Sums over a group of ops: a step's totals are made of three such parts (see
// CostModel::token_part and friends).
struct CostPart {
  double layer_time = 0;  // ops inside the transformer layers (split across PP stages)
  double other_time = 0;  // embedding, LM head, sampling, per-step overheads
  double flops = 0;
  double bytes = 0;
  std::array<double, kBoundCount> time_by_bound{};
};

struct StepTotals {
  double time = 0;        // latency of the whole step through all pipeline stages, seconds
  double stage_time = 0;  // time of the busiest pipeline stage (the throughput limit with PP)
  double flops = 0;       // per GPU
  double bytes = 0;       // per GPU, HBM traffic
  std::array<double, kBoundCount> time_by_bound{};  // how much of `time` each bound took
};

// The totals with the per-operator list behind them (CostModel::breakdown).
struct StepCost : StepTotals {
  std::vector<OpCost> ops;
};

// A wide-EP step's token-dependent work on one GPU (cost/wide_ep_step.cpp), in the
// four groups the two-batch overlap treats differently.
struct WideParts {
  CostPart moe;    // MoE layers' compute: their attention block, router, routed and shared experts
  CostPart comm;   // MoE layers' dispatch and combine
  CostPart dense;  // dense layers' compute, the attention ranks' TP all-reduces
  CostPart other;  // embedding, final norm, LM head and sampling, step overhead, pipeline sends
  double comm_sm_share = 0;  // SMs the all-to-all kernel holds while in flight (AllToAllKernel::sm_share)
};
// The tokens a wide-EP step's parts depend on.
struct WideLoad {
  double rank_tokens = 0;   // tokens of the busiest attention DP rank (each of its GPUs computes them)
  double rank_sampled = 0;  // sequences the busiest rank samples
  double total_tokens = 0;  // tokens of all ranks: what the experts receive
  bool prefill = false;     // the step prefills: the throughput all-to-all kernel (else the low-latency one)
};

// DeepSeek-V4's attention work in one phase of a batch, per layer of each kind
// (state_cost.cpp compressed_work: from the batch's aggregate sums): query-entry pairs and
// entries read in the window (every layer), of the indexed (ratio 4) and dense (ratio 128)
// layers' compressed entries, and the indexer's scored keys (indexed layers).
struct CompressedWork {
  double queries = 0;
  double window_pairs = 0, indexed_pairs = 0, dense_pairs = 0, scored_pairs = 0;
  double window_read = 0, indexed_read = 0, dense_read = 0, scored_read = 0;
};
CompressedWork compressed_work(const CompressedAttention& c, const BatchSummary& b, bool prefill);

class CostModel {
 public:
  // `ggml`: the weight matrices run on a ggml back end's kernels (llama.cpp; cost/ggml_kernels.h)
  // instead of the roofline's tensor-core GEMMs; off by default.
  CostModel(GpuSpec gpu, ModelSpec model, ResolvedPrecision precision, Parallelism par,
            AttentionKernel attention = AttentionKernel::flash, GgmlKernels ggml = {},
            const MoeDeployment& moe = MoeDeployment{});

  // An empty batch for this model: its local attention set, so that add() keeps the
  // local layers' sums (a local-attention model refuses a batch built without it).
  BatchSummary batch() const {
    BatchSummary b;
    b.local = model_.local;
    return b;
  }
  // Fast path for the event loop: the same number as breakdown(b).time.
  double step_time(const BatchSummary& b) const;
  // A step's ops fall into three groups, each a function of few numbers of the
  // batch, so an engine can memoise the first two (step_cost_cache.h):
  //   token_part     every op whose work follows the tokens computed this step
  //                  (projections, MLP/MoE, norms, collectives, step overhead);
  //   sample_part    LM head, logits gather and sampler of the sequences that sample;
  //   attention_part attention over the KV cache (prefill and decode).
  // totals(b) is combine(token_part(b.new_tokens), sample_part(b.sampled),
  // attention_part(b)), bit for bit.
  CostPart token_part(std::int64_t new_tokens) const { return tokens_ops(static_cast<double>(new_tokens), nullptr); }
  CostPart sample_part(std::int64_t sampled) const { return sample_ops(static_cast<double>(sampled), nullptr); }
  CostPart attention_part(const BatchSummary& b) const;
  StepTotals combine(const CostPart& tokens, const CostPart& sampled, const CostPart& attention) const;
  // Multi-LoRA (cost/lora_cost.cpp): the adapters' shrink and expand GEMMs of a step
  // with l.adapters > 0 (nothing otherwise), and the step totals with a part added (add_to_totals)
  // (totals(b) is combine(...) with lora_part(b.lora) added this way when the batch has adapters).
  CostPart lora_part(const LoraLoad& l) const { return lora_ops(l, nullptr); }
  void add_to_totals(StepTotals& t, const CostPart& p) const;
  // The adapters' geometry on this model and layout (cost/lora_shape.h; unsupported: all zero).
  const LoraGeometry& lora_geometry() const { return lora_; }
  // Totals (time, flops, bytes, time by bound) without the per-op list: no allocation.
  StepTotals totals(const BatchSummary& b) const;
  StepCost breakdown(const BatchSummary& b) const;

  // Wide layouts (attention DP or EP > 1; Parallelism::wide()): totals() and breakdown()
  // price the replica's whole batch at its busiest DP rank and busiest expert GPU
  // (cost/wide_ep_step.cpp), from these pieces, which the step-cost cache memoises:
  //   wide_load(b)            the busiest rank's share of the batch and the tokens the experts see;
  //   rank_batch(b)           the busiest rank's batch (its attention over the KV cache);
  //   wide_parts(w)           the token-dependent work of a step of load w;
  //   wide_combine(...)       the step from the parts and the attention, with or without
  //                           two-batch overlap (half: the parts and attention of one micro-batch).
  bool wide() const { return wide_; }
  WideLoad wide_load(const BatchSummary& b) const;
  BatchSummary rank_batch(const BatchSummary& b) const;
  WideParts wide_parts(const WideLoad& w, std::vector<OpCost>* ops = nullptr) const;
  // One of two micro-batches of the busiest rank's batch `rank` (two-batch overlap).
  static BatchSummary half_batch(const BatchSummary& rank);
  static WideLoad half_load(const WideLoad& w);
  StepTotals wide_combine(const WideParts& full, const CostPart& attention, const WideParts* half,
                          const CostPart* half_attention) const;
  // Whether a step of load w runs as two overlapped micro-batches (moe.overlap: two_batch
  // and at least two tokens on the busiest rank).
  bool two_batch(const WideLoad& w) const { return moe_.overlap == MoeOverlap::two_batch && w.rank_tokens >= 2; }
  const MoeDeployment& moe() const { return moe_; }
  const ReplicaLayout& layout() const { return layout_; }
  const ExpertLoad& expert_load() const { return expert_load_; }

  const GpuSpec& gpu() const { return gpu_; }
  const ModelSpec& model() const { return model_; }
  const ResolvedPrecision& precision() const { return precision_; }
  const Parallelism& parallelism() const { return par_; }
  const ShardShape& shard() const { return shard_; }
  AttentionKernel attention_kernel() const { return attention_; }
  const GgmlKernels& ggml_kernels() const { return ggml_; }
  // Peak FLOP/s of the compute precision, per GPU (for MFU).
  double peak_flops() const { return peak_compute_; }

 private:
  CostPart tokens_ops(double tokens, std::vector<OpCost>* ops) const;
  CostPart sample_ops(double sampled, std::vector<OpCost>* ops) const;
  CostPart attention_ops(const BatchSummary& b, std::vector<OpCost>* ops) const;
  CostPart lora_ops(const LoraLoad& l, std::vector<OpCost>* ops) const;
  // The layer kinds of layer_kinds.h (state_cost.cpp): state layers' projections and DSA's
  // indexer projections (with the tokens), the scan / state update and the indexer's scoring
  // (with the batch). Nothing for a model without them.
  void state_token_ops(double tokens, CostPart& part, std::vector<OpCost>* ops) const;
  void state_batch_ops(const BatchSummary& b, CostPart& part, std::vector<OpCost>* ops) const;
  // DeepSeek-V4's compressed attention and its indexer over the batch (state_cost.cpp).
  void compressed_batch_ops(const BatchSummary& b, CostPart& part, std::vector<OpCost>* ops) const;
  // Times the op (roofline) and adds it to the part (and to ops when given).
  void emit(OpCost& op, bool per_layer, CostPart& part, std::vector<OpCost>* ops) const;
  void finish_op(OpCost& op) const;
  // Op groups shared with the wide-EP step (cost/layer_ops.h).
  template <typename Put>
  void attention_block_ops(double T, Put& put) const;
  template <typename Put>
  void dense_mlp_ops(double T, double dense_layers, Put& put) const;
  template <typename Put>
  void routed_expert_ops(double T, double assignments, double touched, double moe_layers, Put& put) const;
  template <typename Put>
  void shared_expert_ops(double T, double moe_layers, Put& put) const;
  StepTotals wide_totals(const BatchSummary& b) const;
  StepCost wide_breakdown(const BatchSummary& b) const;
  void init_wide();  // the wide-EP members below (cost/wide_ep_step.cpp)

  GpuSpec gpu_;
  ModelSpec model_;
  ResolvedPrecision precision_;
  Parallelism par_;
  AttentionKernel attention_;
  GgmlKernels ggml_;
  bool ggml_quantized_ = false;  // the GGUF file's matrices are a quantized ggml type
  bool ggml_amx_ = false;        // ... one llama.cpp repacks for AMX
  ShardShape shard_;
  LoraGeometry lora_;  // LoRA adapters' widths (cost/lora_shape.h)
  Link tp_link_;
  Link pp_link_;
  // Wide layouts (Parallelism::wide()): the MoE deployment, the replica's geometry, the
  // expert load model and the all-to-all kernels with their copies per token.
  bool wide_ = false;
  MoeDeployment moe_;
  ReplicaLayout layout_;
  ExpertLoad expert_load_;
  const AllToAllKernel* prefill_a2a_ = nullptr;
  const AllToAllKernel* decode_a2a_ = nullptr;
  TokenCopies prefill_copies_, decode_copies_;
  double dispatch_payload_ = 0, combine_payload_ = 0;  // bytes of one token copy
  double peak_compute_ = 0;    // FLOP/s for GEMMs
  bool eight_bit_compute_ = false;  // fp8 / int8 tensor compute: Efficiency::gemm_8bit_compute_ratio applies
  bool four_bit_compute_ = false;   // fp4 tensor compute: Efficiency::gemm_4bit_compute_ratio applies
  double peak_attention_ = 0;  // FLOP/s for attention (16-bit)
  double act_bytes_ = 2;       // bytes per activation element
  double w_bytes_ = 2;         // bytes per weight element of the layers' matrices
  // The same per tensor group (a checkpoint may leave some unquantized, model_spec.h).
  double w_attention_ = 2, w_dense_ = 2, w_experts_ = 2, w_shared_ = 2, w_state_ = 2;
  double lm_head_bytes_ = 2;   // ... of the LM head (16-bit unless a GGUF file quantizes it)
  // The MoE router's weights stay 16-bit in every quantized checkpoint and engine (vLLM builds
  // the gate without a quant_config); the memory plan holds them so too (memory_plan.cpp).
  static constexpr double kRouterWeightBytes = 2.0;
  bool has_layer_kinds_ = false;  // state layers or a sparse-attention indexer (state_cost.cpp)
  double attention_s_per_flop8_ = 0;  // fp8 attention-kind math (the indexer)
  double kv_bytes_ = 2;        // bytes per KV element
  // Attention per unit of work (attention_ops), precomputed for attention_part: FLOPs
  // per query-key pair, activation bytes per query token and KV bytes per cached
  // token, over all layers; and the roofline's seconds per FLOP and per byte.
  struct AttentionRates {
    double flops_per_pair = 0, act_bytes_per_query = 0, kv_bytes_per_token = 0, naive_bytes_per_entry = 0;
  };
  AttentionRates prefill_rates_, decode_rates_;
  // Local attention (model.local): the global rates above cover the global layers,
  // these the local ones (none: has_local_ false, the rates above cover all layers).
  bool has_local_ = false;
  AttentionRates local_prefill_rates_, local_decode_rates_;
  void check_local(const BatchSummary& b) const;
  template <bool Local>
  CostPart attention_sum(const BatchSummary& b) const;
  double attention_kernels_ = 0;  // launches per attention op, all layers
  double attention_s_per_flop_ = 0, attention_s_per_byte_ = 0;
};

}  // namespace servesim
