#pragma once
// The roofline step-cost model: time of one forward step of a batch on one replica,
// and its per-operator breakdown. Pure: a CostModel is immutable once built, and
// evaluating it reads no clock and mutates nothing, so one instance serves many
// simulations and threads.
#include <array>
#include <string>
#include <vector>

#include "cost/batch.h"
#include "cost/parallelism.h"
#include "cost/precision.h"
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
  double m_tokens = 0;         // GEMM M dimension (tile-fill efficiency)
  double flops = 0;
  double weight_bytes = 0;     // in the weight precision
  double activation_bytes = 0;
  double kv_bytes = 0;         // in the KV-cache precision
  double comm_bytes = 0;       // per GPU, over the interconnect
  double compute_time = 0;
  double memory_time = 0;
  double comm_time = 0;
  double overhead_time = 0;    // fixed per-kernel or per-step time
  double time = 0;             // max(compute, memory) + comm + overhead
  Bound bound = Bound::memory;
  double bytes() const { return weight_bytes + activation_bytes + kv_bytes; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0.0; }  // FLOP per byte
};

struct StepCost {
  double time = 0;        // latency of the whole step through all pipeline stages, seconds
  double stage_time = 0;  // time of the busiest pipeline stage (the throughput limit with PP)
  double flops = 0;       // per GPU
  double bytes = 0;       // per GPU, HBM traffic
  std::array<double, kBoundCount> time_by_bound{};  // how much of `time` each bound took
  std::vector<OpCost> ops;
};

class CostModel {
 public:
  CostModel(GpuSpec gpu, ModelSpec model, ResolvedPrecision precision, Parallelism par,
            AttentionKernel attention = AttentionKernel::flash);

  // Fast path for the event loop: the same number as breakdown(b).time.
  double step_time(const BatchSummary& b) const;
  // Totals (time, flops, bytes, time by bound) without the per-op list: no allocation.
  StepCost totals(const BatchSummary& b) const { return evaluate(b, false); }
  StepCost breakdown(const BatchSummary& b) const;

  const GpuSpec& gpu() const { return gpu_; }
  const ModelSpec& model() const { return model_; }
  const ResolvedPrecision& precision() const { return precision_; }
  const Parallelism& parallelism() const { return par_; }
  const ShardShape& shard() const { return shard_; }
  AttentionKernel attention_kernel() const { return attention_; }
  // Peak FLOP/s of the compute precision, per GPU (for MFU).
  double peak_flops() const { return peak_compute_; }

 private:
  StepCost evaluate(const BatchSummary& b, bool keep_ops) const;
  void finish_op(OpCost& op) const;

  GpuSpec gpu_;
  ModelSpec model_;
  ResolvedPrecision precision_;
  Parallelism par_;
  AttentionKernel attention_;
  ShardShape shard_;
  Link tp_link_;
  Link pp_link_;
  double peak_compute_ = 0;    // FLOP/s for GEMMs
  double peak_attention_ = 0;  // FLOP/s for attention (16-bit)
  double act_bytes_ = 2;       // bytes per activation element
  double w_bytes_ = 2;         // bytes per weight element
  double kv_bytes_ = 2;        // bytes per KV element
};

}  // namespace servesim
