#include "report/report_json.h"

#include "report/model_json.h"

namespace servesim {

nlohmann::json setup_json(const Setup& s, const CostModel& cost) {
  nlohmann::json j;
  j["gpu"] = s.gpu.name;
  j["model"] = s.model.name;
  j["precision"] = {{"weights", weight_format_name(s.resolved)},
                    {"compute", dtype_name(s.resolved.compute)},
                    {"kv_cache", dtype_name(s.resolved.kv_cache)},
                    {"weight_only", s.resolved.weight_only},
                    {"emulated", s.resolved.emulated}};
  j["parallelism"] = {{"tp", s.parallelism.tp}, {"pp", s.parallelism.pp}, {"ep", s.parallelism.ep},
                      {"replicas", s.parallelism.replicas}};
  j["params_total"] = s.model.total_params();
  j["params_active"] = s.model.active_params();
  j["kv_bytes_per_token"] = s.model.kv_bytes_per_token(s.resolved.kv_cache);
  j["peak_flops"] = cost.peak_flops();
  j["model_detail"] = model_json(s.model);
  return j;
}

nlohmann::json memory_json(const MemoryPlan& p) {
  nlohmann::json j = {{"capacity_bytes", p.capacity},         {"budget_bytes", p.budget},
          {"weights_bytes", p.weights},           {"activations_bytes", p.activations},
          {"runtime_overhead_bytes", p.runtime_overhead}, {"kv_cache_bytes", p.kv_bytes},
          {"kv_bytes_per_token_per_gpu", p.kv_bytes_per_token}, {"kv_blocks", p.kv_blocks},
          {"kv_tokens", p.kv_tokens},             {"fits", p.fits},
          {"verdict", p.verdict},                 {"state_slots", p.state_slots},
          {"state_bytes", p.state_bytes},         {"state_bytes_per_sequence_per_gpu", p.state_bytes_per_sequence}};
  // engine.lora only, so other plans' JSON is unchanged.
  if (p.lora_slots > 0) j["lora_slot_bytes"] = p.lora_slots;
  return j;
}

nlohmann::json step_json(const StepCost& c, nlohmann::json batch) {
  nlohmann::json j;
  j["batch"] = std::move(batch);
  j["time_s"] = c.time;
  j["stage_time_s"] = c.stage_time;
  j["flops"] = c.flops;
  j["bytes"] = c.bytes;
  for (int b = 0; b < kBoundCount; ++b) j["time_by_bound_s"][bound_name(static_cast<Bound>(b))] = c.time_by_bound[b];
  for (const auto& op : c.ops) {
    j["ops"].push_back({{"name", op.name},
                        {"kind", op_kind_name(op.kind)},
                        {"calls", op.count},
                        {"flops", op.flops},
                        {"weight_bytes", op.weight_bytes},
                        {"activation_bytes", op.activation_bytes},
                        {"kv_bytes", op.kv_bytes},
                        {"comm_bytes", op.comm_bytes},
                        {"arithmetic_intensity", op.intensity()},
                        {"compute_time_s", op.compute_time},
                        {"memory_time_s", op.memory_time},
                        {"comm_time_s", op.comm_time},
                        {"overhead_time_s", op.overhead_time},
                        {"time_s", op.time},
                        {"bound", bound_name(op.bound)}});
  }
  return j;
}

}  // namespace servesim
