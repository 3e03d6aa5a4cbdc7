#include "run/serving_pool.h"

#include <fmt/format.h>

#include <algorithm>

#include "cost/layout_text.h"
#include "engine/data_parallel_ranks.h"
#include "hardware/power_model.h"
#include "util/error.h"

namespace servesim {

ServingPool::ServingPool(const Setup& s, std::string pool_label, bool own_collector, std::size_t timeline_rows,
                         const std::string& key)
    : setup(s), label(std::move(pool_label)), cost(make_cost_model(s)), draft_cost(make_draft_cost_model(s)) {
  memory = plan_setup_memory(s, cost);
  if (!memory.fits) {
    std::string verdict = memory.verdict;
    if (memory.lora_slots_fit >= 0 && !key.empty())
      verdict += memory.lora_slots_fit > 0
                     ? fmt::format("; {}.max_loras: {} (or fewer) gives this pool fewer slots than the others",
                                   key, memory.lora_slots_fit)
                     : fmt::format("; not even {}.max_loras: 1 fits: this pool's GPUs cannot serve adapters beside "
                                   "the model (leave the pool out of a LoRA fleet, or give it a higher tp)",
                                   key);
    throw Error(label.empty() ? verdict : fmt::format("{}: {}", label, verdict));
  }
  blocks = s.engine.num_gpu_blocks_override > 0 ? s.engine.num_gpu_blocks_override : memory.kv_blocks;
  rank_blocks = rank_kv_blocks(blocks, s.parallelism.attention_dp);
  if (!own_collector) return;
  collector = std::make_unique<Collector>(cost.peak_flops(), s.gpu.memory_bandwidth, s.parallelism.gpus_per_replica(),
                                          s.parallelism.replicas);
  collector->set_power_model(PowerModel::of(s.gpu));
  collector->keep_timeline(timeline_rows);
}

EngineContext ServingPool::context(int replica, RunObserver* observer, bool fast_forward) const {
  EngineContext ctx;
  ctx.cost = &cost;
  ctx.draft_cost = draft_cost.get();
  ctx.step_costs = &step_costs;
  ctx.config = replica_engine_config(setup.engine, setup.parallelism.attention_dp);
  ctx.memory = memory;
  ctx.kv_blocks = blocks;
  ctx.max_request_blocks = rank_blocks;
  ctx.replica = replica;
  ctx.observer = observer;
  ctx.fast_forward = fast_forward;
  return ctx;
}

PoolReport pool_report(const ServingPool& p, const RunSummary& s, double duration_s, double* busy_gpu_s,
                       double* step_j) {
  PoolReport r;
  r.gpu = p.setup.gpu.name;
  r.tp = p.setup.parallelism.tp;
  r.gpus_per_instance = p.setup.parallelism.gpus_per_replica();
  if (p.setup.parallelism.wide()) r.layout = layout_label(p.setup.parallelism);
  r.replicas = p.setup.parallelism.replicas;
  r.gpus = p.setup.parallelism.total_gpus();
  r.precision = p.setup.resolved.describe();
  r.kv_blocks_per_instance = p.blocks;
  const double busy_s = s.busy_fraction * s.duration_s * r.replicas;  // summed over instances
  r.busy_fraction = duration_s > 0 ? busy_s / (duration_s * r.replicas) : 0.0;
  r.mfu = s.mfu;
  r.bandwidth_utilization = s.bandwidth_utilization;
  r.batch_size_mean = s.batch_size_mean;
  r.batch_size_max = s.batch_size_max;
  r.kv_utilization_mean = s.kv_utilization_mean;
  r.kv_utilization_max = s.kv_utilization_max;
  r.queue_length_mean = s.queue_length_mean;
  r.queue_length_max = s.queue_length_max;
  r.steps = s.steps;
  const PowerModel power = PowerModel::of(p.setup.gpu);
  const double gpr = p.setup.parallelism.gpus_per_replica();
  r.energy_j = s.energy_j + std::max(0.0, duration_s - s.duration_s) * r.replicas * gpr * power.idle_watts;
  *busy_gpu_s = busy_s * gpr;
  *step_j = s.busy_power_w_per_gpu * busy_s * gpr;
  return r;
}

}  // namespace servesim
