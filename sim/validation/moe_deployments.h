#pragma once
// `servesim validate-moe`: published throughput of large-scale mixture-of-experts
// deployments (data/moe_at_scale/deployments.csv, provenance in its README) against
// servesim's wide-EP cost model and simulator.
//
// Each row states a deployment as its source describes it: GPU, model and precision,
// layout (attention tp x dp, ep, redundant experts), MoE settings (kernels, overlap,
// load balancer), the workload (ISL/OSL, batch per rank or concurrency) and a
// throughput per GPU. The row's `kind` says how servesim predicts it:
//   decode_step   a decode-only step of B sequences per DP rank at context c (B from the
//                 row, or as many as the KV cache of a rank holds at isl + osl tokens each,
//                 capped by max_batch_per_rank): output tokens/s per GPU = B D E / (t G),
//                 with E the tokens a step emits per sequence (1, or 1 + a + ... + a^k with
//                 MTP: k draft tokens of acceptance a) and t the step's wall time
//                 (speculative drafting included);
//   prefill_step  a prefill step of T tokens per DP rank made of isl-token prompts:
//                 input tokens/s per GPU = T D / (t G);
//   serving       a closed-loop run (concurrency users, fixed isl/osl, the engine's
//                 max_batch_per_rank and max_tokens_per_rank): output tokens/s per GPU;
//   overlap_gain  decode_step's throughput with the row's moe.overlap over without (prefill_overlap_gain:
//                 prefill_step's).
// Rows are split `fit` / `heldout` / `excluded` (the reason in `notes`); the command
// reports the median |error| of each split.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/edits.h"

namespace servesim {

struct MoeDeploymentRow {
  std::int64_t line = 0;
  std::string id, source, date, framework, gpu, model, weights, activations, kv_cache, kind;
  int attention_tp = 1, attention_dp = 1, ep = 1, redundant_experts = 0, gpus_per_node = 0;
  std::string load_balancer, overlap, prefill_all_to_all, decode_all_to_all, dispatch;
  std::int64_t isl = 0, osl = 0, context = 0, batch_per_rank = 0, concurrency = 0, max_batch_per_rank = 0,
               max_tokens_per_rank = 0, mtp_draft_tokens = 0;
  double mtp_acceptance = 0, memory_utilization = 0;
  // TensorRT-LLM's kv_cache_free_gpu_mem_fraction: the KV cache gets this share of the memory
  // left after weights, activations and runtime (0: engine.gpu_memory_utilization rules).
  double kv_free_fraction = 0;
  std::string metric, split, notes;
  double value = 0;
};

// Reads the CSV (quoted fields allowed); throws servesim::Error with file:line for a
// missing column or a malformed number.
std::vector<MoeDeploymentRow> read_moe_deployments(const std::string& path);

struct MoeDeploymentResult {
  MoeDeploymentRow row;
  double predicted = 0;
  double error = 0;          // predicted / measured - 1
  std::int64_t batch = 0;    // decode_step: sequences per rank used; prefill_step: tokens per rank
  std::string skipped;       // non-empty: not predicted, and why
};

// The prediction of one row, with `edits` applied to the scenario built from it.
MoeDeploymentResult predict_moe_deployment(const MoeDeploymentRow& row, const std::vector<ConfigEdit>& edits = {});

}  // namespace servesim
