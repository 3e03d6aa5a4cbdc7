#pragma once
// Memory planner: what one GPU of a replica holds (weights, activation workspace,
// runtime overhead) and how many KV-cache blocks fit in the rest, as vLLM sizes it:
// KV = capacity * gpu_memory_utilization - weights - peak activations - runtime.
#include <cstdint>
#include <string>

#include "cost/step_cost.h"

namespace servesim {

struct MemoryConfig {
  double gpu_memory_utilization = 0.9;
  int block_size = 16;                   // tokens per KV block
  std::int64_t max_num_batched_tokens = 8192;  // sizes the activation workspace
  std::int64_t max_num_seqs = 256;
  // CUDA context, cuBLAS/NCCL workspaces and CUDA graphs, outside PyTorch's
  // allocator: vLLM logs ~1-2 GiB of "non-torch" memory plus graph pools on H100.
  double runtime_overhead_bytes = 1.5 * 1024.0 * 1024.0 * 1024.0;
  // Multi-LoRA (engine.lora): bytes per GPU of the adapters' GPU slots, max_loras x one
  // adapter at max_lora_rank (cost/lora_shape.h). vLLM allocates them with the model,
  // before it profiles memory (vllm/lora/model_manager.py create_lora_weights), so they
  // come out of the KV cache's budget. 0 without LoRA.
  double lora_slot_bytes = 0;
};

struct MemoryPlan {
  double capacity = 0;            // bytes per GPU a model process can hold (GpuSpec::usable_memory)
  double budget = 0;              // capacity * gpu_memory_utilization
  double weights = 0;             // bytes per GPU (busiest pipeline stage)
  double activations = 0;         // peak activation workspace per GPU
  double runtime_overhead = 0;
  double lora_slots = 0;          // the LoRA adapters' GPU slots per GPU (MemoryConfig::lora_slot_bytes)
  double kv_bytes = 0;            // left for the KV cache per GPU (may be negative)
  double kv_bytes_per_token = 0;  // per GPU (its attention layers and KV heads)
  // State layers (layer_kinds.h): each sequence holds a constant state, not KV blocks. The
  // plan reserves a state slot for each of engine.max_num_seqs sequences before sizing the
  // KV cache (vLLM V0's MambaCacheManager, SGLang's mamba pool), so the engine's sequence
  // cap is also its slot count. 0 without state layers.
  double state_bytes_per_sequence = 0;  // per GPU
  std::int64_t state_slots = 0;
  double state_bytes = 0;               // reserved per GPU
  std::int64_t kv_blocks = 0;     // blocks per replica (each GPU holds its shard of every block of its DP rank)
  std::int64_t kv_tokens = 0;     // kv_blocks * block_size
  // Blocks of one attention data-parallel rank (parallelism.attention_dp; = kv_blocks
  // without DP attention): a request's KV lives on one rank, so this bounds one request.
  std::int64_t kv_blocks_per_rank = 0;
  // Multi-LoRA, when the slots are what keeps the setup from fitting (it fits without
  // them): the most slots that leave one KV block (0: not one). -1 otherwise.
  std::int64_t lora_slots_fit = -1;
  bool fits = false;
  std::string verdict;            // one line: fits, or by how much it does not and what would
};

// Bytes of weights one GPU holds under this precision and parallelism.
double weight_bytes_per_gpu(const ModelSpec& m, const ResolvedPrecision& p, const Parallelism& par);

// What a speculative drafter (engine/speculative.h) adds per GPU: its weights and
// the KV it caches per token (it grows with the target's, so it shares the blocks).
struct DraftMemory {
  double weights = 0;
  double kv_bytes_per_token = 0;
};
// `shared_tables`: the drafter shares the target's embedding and LM head (EAGLE, MTP).
DraftMemory draft_memory(const CostModel& drafter, bool shared_tables);

MemoryPlan plan_memory(const CostModel& cost, const MemoryConfig& cfg, const DraftMemory* draft = nullptr);

}  // namespace servesim
