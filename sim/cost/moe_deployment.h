#pragma once
// How a mixture-of-experts model's experts are run across GPUs beyond their placement
// (cost/parallelism.h): which all-to-all kernels move tokens to their experts and back
// (cost/all_to_all.h), whether the communication overlaps compute (two-batch overlap),
// and how evenly the routed tokens load the GPUs (cost/expert_load.h). The scenario's
// `moe:` section (config/read_moe.cpp); every field's default is the deployed practice
// it names. Only read for a layout with attention_dp > 1 or ep > 1.
#include <string>

#include "model/dtype.h"

namespace servesim {

// Compute/communication overlap of the MoE layers.
enum class MoeOverlap {
  none,       // dispatch, experts, combine one after the other
  two_batch,  // two micro-batches: one's attention and experts run while the other's tokens move
              // (SGLang two-batch overlap, vLLM dual-batch overlap, DeepSeek's profile)
  single_batch,  // one batch: the combine runs while the down GEMM and the shared experts compute
                 // (SGLang's GB200 overlap, part II; shared experts on a second stream)
};

// How experts are placed on the EP group's GPUs.
enum class ExpertBalancer {
  none,     // experts in order, E/ep per GPU, whatever their load
  eplb,     // DeepSeek EPLB: hot experts replicated into the redundant slots, slots packed by load
  perfect,  // every GPU receives the same tokens (DeepSeek's "absolutely balanced" profiling runs)
};

struct MoeDeployment {
  // All-to-all kernels (cost/all_to_all.h registry): for steps that prefill (throughput
  // kernels) and for decode-only steps (low-latency kernels), as SGLang's DeepEP auto
  // mode and P/D deployments choose them.
  std::string prefill_all_to_all = "deepep_normal";
  std::string decode_all_to_all = "deepep_low_latency";
  MoeOverlap overlap = MoeOverlap::none;
  ExpertBalancer balancer = ExpertBalancer::eplb;
  // Spread of the experts' popularity: the standard deviation of the log of an expert's
  // share of the routed tokens (log-normal); 0 = every expert equally popular. The
  // default is fitted to TensorRT-LLM's routing statistics (cost/expert_load.h).
  double routing_skew = -1;  // < 0: the fitted default
  // Token payloads: dispatch in fp8 with 128-element fp32 scales (DeepEP), combine in bf16.
  DType dispatch = DType::fp8;
  DType combine = DType::bf16;
  // How a serving engine runs the kernels, fitted to deployment measurements
  // (cost/moe_engine_fit.h; < 0: the fitted default): an all-to-all inside a running
  // engine takes this many times its kernel benchmark's time (it waits for the slowest
  // rank and shares the GPU), and two-batch overlap hides this share of the shorter of
  // a micro-batch's compute and communication.
  double all_to_all_slowdown = -1;
  double overlap_efficiency = -1;
};

}  // namespace servesim
